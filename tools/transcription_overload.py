"""Turns committed faster than whisper transcribes them, over the wire (issue 15, docs/realtime-protocol.md
"Input transcripts under overload").

``SESSIONS`` sessions on ``URL`` each commit a spoken turn (tests/data/utterances, 1.5–2.5 s) every
``GAP_S`` seconds, ``TURNS`` times, with input transcription on and no turn detection; then wait up to
90 s for every turn's transcript. Prints the turns completed, failed (``transcription_backlog``) and never
answered, the transcript latency (commit → completed) and the last turn's, median over sessions. Start
the engine with ``--stt-cache-mb 0`` so every turn reaches whisper::

    mockengine serve --port 8765 --stt-cache-mb 0 &
    python tools/transcription_overload.py ws://127.0.0.1:8765/v1/realtime?model=gpt-realtime 6 30 0.5
"""

from __future__ import annotations

import asyncio
import base64
import json
import statistics
import sys
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.speech import load_wav_24k  # noqa: E402

UTTERANCES = sorted((ROOT / "tests" / "data" / "utterances").glob("*.wav"))[:10]
COMPLETED = "conversation.item.input_audio_transcription.completed"
FAILED = "conversation.item.input_audio_transcription.failed"
SESSION = {
    "type": "realtime",
    "audio": {"input": {"transcription": {"model": "whisper-1"}, "turn_detection": None}},
}

Outcome = tuple[dict[str, float], dict[str, tuple[str, float]]]  # committed at; (result, at) by item


async def one_session(url: str, index: int, turns: int, gap_s: float, clips: list[bytes]) -> Outcome:
    committed: dict[str, float] = {}
    results: dict[str, tuple[str, float]] = {}
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers={"Authorization": "Bearer sk-x"}) as ws,
    ):

        async def read() -> None:
            async for msg in ws:
                event, at = json.loads(msg.data), time.monotonic()
                if event["type"] == "input_audio_buffer.committed":
                    committed[event["item_id"]] = at
                elif event["type"] == COMPLETED:
                    results[event["item_id"]] = ("completed", at)
                elif event["type"] == FAILED:
                    results[event["item_id"]] = (event["error"]["code"], at)

        reader = asyncio.create_task(read())
        await ws.send_json({"type": "session.update", "session": SESSION})
        for turn in range(turns):
            audio = base64.b64encode(clips[(index + turn) % len(clips)]).decode()
            await ws.send_json({"type": "input_audio_buffer.append", "audio": audio})
            await ws.send_json({"type": "input_audio_buffer.commit"})
            await asyncio.sleep(gap_s)
        deadline = time.monotonic() + 90
        while len(results) < turns and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        reader.cancel()
    return committed, results


async def main(url: str, sessions: int, turns: int, gap_s: float) -> None:
    clips = [load_wav_24k(path) for path in UTTERANCES]
    started = time.monotonic()
    outcomes = await asyncio.gather(*(one_session(url, i, turns, gap_s, clips) for i in range(sessions)))
    completed = failed = missing = 0
    latencies_s: list[float] = []
    last_s: list[float] = []
    for committed, results in outcomes:
        order = sorted(committed, key=committed.__getitem__)
        for item in order:
            if item not in results:
                missing += 1
            elif results[item][0] == "completed":
                completed += 1
                latencies_s.append(results[item][1] - committed[item])
            else:
                failed += 1
        if order and order[-1] in results:
            last_s.append(results[order[-1]][1] - committed[order[-1]])
    print(
        f"{sessions} sessions × {turns} turns every {gap_s} s: completed {completed}, failed {failed}, "
        f"unanswered after 90 s {missing}; latency median {statistics.median(latencies_s):.1f} s, "
        f"max {max(latencies_s):.1f} s; last turn {statistics.median(last_s):.1f} s (median over "
        f"sessions); {time.monotonic() - started:.0f} s"
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
