"""`serve --replay DIR --workers 2`: each new WebSocket session replays the next recorded session in
recorded order, whichever worker the kernel hands it to (docs/record-replay.md). Each worker counted on
its own, so a second session landing on the other worker replayed `realtime-0001` again: its typed turn
diverged and the scripted participant answered, differently from run to run as the kernel spread the
connections. The workers now draw the order from one counter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import serving_workers
from tests.integration.test_replay_typed import AGE, NAME, connected, frames, of_type, record, typed_turn

pytestmark = pytest.mark.models  # serve loads the models in each worker


def recorded_two_sessions(recording: Any) -> Any:
    async def script(url: str) -> None:
        for text in (NAME, AGE):  # realtime-0001 asks NAME, realtime-0002 AGE
            async with connected(url, "sk-c") as ws:
                await typed_turn(ws, text)
                await frames(ws, of_type("response.done"))

    return record(recording, script)


async def replayed_reply(url: str, text: str) -> tuple[str, str]:
    """(the reply's words, the response's status) of one typed turn in a new session."""
    async with connected(url, "sk-c") as ws:
        await typed_turn(ws, text)
        events = await frames(ws, of_type("response.done"))
    words = "".join(
        e.get("transcript", "") for e in events if e["type"] == "response.output_audio_transcript.done"
    )
    return words, events[-1]["response"]["status"]


async def test_sessions_replay_in_recorded_order_across_workers(engine, recording) -> None:
    out: Path = await recorded_two_sessions(recording)
    direct = await engine(replay_dir=str(out), replay_speed=0.0)  # one process: the order to expect
    expected = [await replayed_reply(direct.realtime, text) for text in (NAME, AGE)]
    assert [status for _, status in expected] == ["completed"] * 2, expected
    # Strict: a session given the wrong recorded session fails its response (a fallback would answer
    # as the recording did, the recording being this engine's own words). Eight sessions: all of them
    # on one worker, where the old count held, is a 1-in-128 chance.
    serve = ("--replay", str(out), "--replay-speed", "0", "--replay-strict", "--seed", "7")
    with serving_workers(*serve) as port:
        url = f"ws://127.0.0.1:{port}/v1/realtime?model=gpt-realtime"
        got = [await replayed_reply(url, text) for text in (NAME, AGE, AGE, AGE, AGE, AGE, AGE, AGE)]
    # the last recorded session again once all were served, as with one process
    assert got == [expected[0]] + [expected[1]] * 7, got


def test_one_counter_numbers_the_sessions_of_every_process(tmp_path: Path) -> None:
    """The draw itself, from several processes at once: every ordinal once."""
    code = (
        "import sys; from mockengine.recordings.recording import next_replay_ordinal as n; "
        "print(' '.join(str(n(sys.argv[1], 'k')) for _ in range(50)))"
    )
    runs = [
        subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    drawn = sorted(int(n) for run in runs for n in run.communicate(timeout=120)[0].split())
    assert drawn == list(range(200)), drawn
