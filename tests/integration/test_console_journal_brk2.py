"""The console journal's incremental refresh (docs/console.md) under what its first tests did not send:
a journal copied over in place (``cp`` keeps the file: the offsets kept served the middles of the new
file's lines), refreshes at once while the writer appends in halves, a 9 MB line and ``from`` past the
end."""

from __future__ import annotations

import asyncio
import json
import shutil

import aiohttp

from tests.integration.test_console_journal_refresh import lines, whole_file_answer


async def test_a_journal_copied_over_in_place_is_read_anew(engine, tmp_path):
    """Failed before: the kept offsets of the old file were read in the new one."""
    eng = await engine(journal_dir=str(tmp_path))
    path = tmp_path / "sess_cp" / "events.jsonl"
    path.parent.mkdir()
    path.write_text(lines(1, 70), encoding="utf-8")
    other = tmp_path / "other.jsonl"
    other.write_text(lines(500, 140), encoding="utf-8")
    async with aiohttp.ClientSession() as http:
        url = f"{eng.http_url}/mockengine/journal/sess_cp"
        assert (await (await http.get(url)).json())["total"] == 40
        inode = path.stat().st_ino
        shutil.copyfile(other, path)  # cp onto it: truncated and written, the same file
        assert path.stat().st_ino == inode
        body = await (await http.get(url)).json()
        assert (body["records"], body["total"]) == whole_file_answer(path, 0, 5000)


async def test_refreshes_while_the_writer_appends(engine, tmp_path):
    eng = await engine(journal_dir=str(tmp_path))
    path = tmp_path / "sess_live" / "events.jsonl"
    path.parent.mkdir()
    path.write_text("", encoding="utf-8")
    stop = False

    async def write() -> None:
        seq = 1
        with path.open("a", encoding="utf-8") as handle:
            while not stop:
                text = lines(seq, 50)
                half = len(text) // 2
                handle.write(text[:half])
                handle.flush()
                await asyncio.sleep(0)
                handle.write(text[half:])
                handle.flush()
                seq += 50
                await asyncio.sleep(0.001)

    writer = asyncio.create_task(write())
    async with aiohttp.ClientSession() as http:
        url = f"{eng.http_url}/mockengine/journal/sess_live"
        for _ in range(30):
            bodies = await asyncio.gather(*(http.get(url, params={"from": str(f)}) for f in (0, 3, 99999)))
            for answer in bodies:
                assert answer.status == 200, await answer.text()
                body = await answer.json()
                seqs = [r["seq"] for r in body["records"]]
                assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    stop = True
    await writer
    async with aiohttp.ClientSession() as http:
        body = await (await http.get(url)).json()
    assert (body["records"], body["total"]) == whole_file_answer(path, 0, 5000)


async def test_a_huge_line_and_from_past_the_end(engine, tmp_path):
    eng = await engine(journal_dir=str(tmp_path))
    path = tmp_path / "sess_huge" / "events.jsonl"
    path.parent.mkdir()
    big = json.dumps({"seq": 1, "from": "server", "event": {"type": "x", "delta": "é" * 9_000_000}})
    path.write_text(lines(1, 5) + big + "\n" + lines(6, 5), encoding="utf-8")
    async with aiohttp.ClientSession() as http:
        url = f"{eng.http_url}/mockengine/journal/sess_huge"
        body = await (await http.get(url)).json()
        assert (body["records"], body["total"]) == whole_file_answer(path, 0, 5000)
        body = await (await http.get(url, params={"from": "99999"})).json()
        assert (body["records"], body["total"]) == whole_file_answer(path, 99999, 5000)
        for first in (str(10**30), "-1", "1e3", " 3"):
            answer = await http.get(url, params={"from": first})
            assert answer.status == 400 and (await answer.json())["error"]["param"] == "from"
