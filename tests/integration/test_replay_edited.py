"""A recording a user edited by hand (docs/record-replay.md, "Replaying"): a broken line in a session's
``events.jsonl``, a deleted WAV it refers to, a broken HTTP exchange. Each used to replay silently
without what it lost (a line that was not JSON was skipped wherever it stood; a missing WAV was sent as
empty deltas) or, for an exchange, stop the engine with a traceback; now the engine refuses the recording
at start-up, naming the file, the line and what to do. A torn last line, what a recorder that died
mid-write leaves, is still skipped: that recording replays."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from mockengine.recordings.format import RecordingError
from tests.integration.test_replay_typed import (
    NAME,
    connected,
    frames,
    of_type,
    record_one_typed_turn,
    typed_turn,
)


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


async def test_a_broken_line_in_the_middle_stops_the_replay_at_start_up(engine, recording):
    out = await record_one_typed_turn(recording)
    events = out / "realtime-0001" / "events.jsonl"
    lines = lines_of(events)
    number = len(lines) // 2
    lines[number - 1] = '{"seq": 5, "broken\n'  # a hand edit that lost its end
    events.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(RecordingError) as refused:
        await engine(replay_dir=str(out), replay_speed=0.0)
    message = str(refused.value)
    assert f"{events}: line {number}: not JSON" in message, message
    assert "fix or delete the line" in message, message


async def test_a_line_that_is_not_an_object_is_named(engine, recording):
    out = await record_one_typed_turn(recording)
    events = out / "realtime-0001" / "events.jsonl"
    lines = lines_of(events)
    lines[2] = '["not", "a", "record"]\n'
    events.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(RecordingError, match=rf"{events}: line 3: not a journal record \(a JSON list\)"):
        await engine(replay_dir=str(out), replay_speed=0.0)


async def test_a_deleted_wav_is_named_with_the_line_that_needs_it(engine, recording):
    out = await record_one_typed_turn(recording)
    session = out / "realtime-0001"
    wavs = sorted(session.glob("resp_*.wav"))
    assert wavs, sorted(p.name for p in session.iterdir())
    wavs[0].unlink()
    needing = next(
        n
        for n, line in enumerate(lines_of(session / "events.jsonl"), 1)
        if f'"wav": "{wavs[0].name}"' in line
    )
    with pytest.raises(RecordingError) as refused:
        await engine(replay_dir=str(out), replay_speed=0.0)
    message = str(refused.value)
    assert f"line {needing}: refers to {wavs[0].name}, which is not in {session}" in message, message
    assert "--no-audio" in message, message


def _no_riff(wav: Path) -> None:
    wav.write_bytes(b"JUNK" + wav.read_bytes()[4:])


def _cut(wav: Path) -> None:
    wav.write_bytes(wav.read_bytes()[: wav.stat().st_size // 2])


def _inside_header(wav: Path) -> None:
    wav.write_bytes(wav.read_bytes()[:20])


def _other_rate(wav: Path) -> None:
    import wave

    with wave.open(str(wav), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(16_000)
        handle.writeframes(bytes(3200))


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        (_no_riff, "not a WAV file of PCM samples (file does not start with RIFF id)"),
        (_cut, "cut short: its header gives "),
        (_inside_header, "not a WAV file: it ends inside its header"),
        (_other_rate, "16000 Hz, 16-bit, 1 channel(s): a recording's WAVs are PCM16 24 kHz mono"),
    ],
    ids=["no-RIFF", "cut", "cut-in-header", "16-kHz"],
)
async def test_a_corrupt_wav_is_refused_at_start_up_from_its_header(engine, recording, spoil, said):
    """A WAV the recording needs that does not read was taken at start-up and found out only when a
    session first sent from it (then sent as silence, with a warning). Its header is checked with the
    lines now: the engine does not start, naming the WAV, why and the line that needs it."""
    out = await record_one_typed_turn(recording)
    session = out / "realtime-0001"
    wav = sorted(session.glob("resp_*.wav"))[0]
    spoil(wav)
    with pytest.raises(RecordingError) as refused:
        await engine(replay_dir=str(out), replay_speed=0.0)
    message = str(refused.value)
    assert message.startswith(f"{wav}: {said}"), message
    assert f"of {session / 'events.jsonl'} sends from it" in message, message


async def test_a_broken_http_exchange_is_named(engine, recording):
    out = await record_one_typed_turn(recording)
    (out / "http").mkdir(exist_ok=True)
    exchange = out / "http" / "0001.json"
    exchange.write_text('{"method": "POST", ', encoding="utf-8")
    with pytest.raises(RecordingError, match=rf"{exchange}: not JSON"):
        await engine(replay_dir=str(out), replay_speed=0.0)


async def test_a_torn_last_line_still_replays(engine, recording):
    """What a recorder killed mid-write leaves: the last line cut, no newline after it."""
    out = await record_one_typed_turn(recording)
    events = out / "realtime-0001" / "events.jsonl"
    text = events.read_text(encoding="utf-8")
    events.write_text(text + '{"seq": 999, "t": 1, "ms": 5, "from": "ser', encoding="utf-8")
    replay = await engine(replay_dir=str(out), replay_speed=0.0)
    async with connected(replay.realtime, "sk-c") as ws:
        await typed_turn(ws, NAME)
        done = (await frames(ws, of_type("response.done")))[-1]
    assert done["response"]["status"] == "completed", done


async def test_serve_refuses_an_edited_recording_with_one_line(recording, tmp_path):
    """What a user runs: ``mockengine serve --replay DIR``, one line and exit status 2, no traceback."""
    out = await record_one_typed_turn(recording)
    broken = tmp_path / "broken"
    shutil.copytree(out, broken)
    events = broken / "realtime-0001" / "events.jsonl"
    lines = lines_of(events)
    lines[1] = lines[1].replace('"from": ', '"from" ')
    events.write_text("".join(lines), encoding="utf-8")
    text = await _serve_refused(broken)
    assert f"{events}: line 2: not JSON" in text, text


async def test_serve_refuses_a_cut_wav_before_the_models_load(recording, tmp_path):
    out = await record_one_typed_turn(recording)
    broken = tmp_path / "broken"
    shutil.copytree(out, broken)
    wav = sorted((broken / "realtime-0001").glob("resp_*.wav"))[0]
    _cut(wav)
    text = await _serve_refused(broken)
    assert f"mockengine: --replay {wav}: cut short" in text and "models loaded" not in text, text


async def _serve_refused(broken: Path) -> str:
    """``mockengine serve --replay BROKEN``'s stderr, once it exited with status 2 and no traceback."""
    import asyncio

    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "mockengine",
        "serve",
        "--port",
        "0",
        "--replay",
        str(broken),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), 120)
    text = stderr.decode()
    assert process.returncode == 2, text
    assert "Traceback" not in text, text
    assert len(text.splitlines()) == 1, text
    return text


def _refs(event: Any) -> list[str]:
    if isinstance(event, dict):
        found = [str(event["wav"])] if isinstance(event.get("wav"), str) else []
        return found + [ref for value in event.values() for ref in _refs(value)]
    if isinstance(event, list):
        return [ref for value in event for ref in _refs(value)]
    return []


async def test_an_unedited_recording_refers_only_to_its_own_wavs(recording):
    """The check's premise: every ``{"wav": …}`` a recorder writes names a file beside it."""
    out = await record_one_typed_turn(recording)
    session = out / "realtime-0001"
    names = {ref for line in lines_of(session / "events.jsonl") for ref in _refs(json.loads(line))}
    assert names, "the recording refers to no WAV"
    assert all((session / name).is_file() for name in names), names
