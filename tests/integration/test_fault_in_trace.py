"""An injected fault is written where a QA engineer looks for why a turn went wrong: the session's trace
(`--trace-dir`) and journal (`--journal-dir`) get a `fault` engine record (its kind and where it hit),
and `mockengine journal` shows it. Before, both held only the `response.done` `failed` with a
`server_error`, indistinguishable from an engine bug; the injection was on the `mockengine.faults` log
alone (docs/faults-and-tokens.md, "Logged and counted")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.integration.conftest import eventually
from tests.integration.test_replay_typed import connected, frames, of_type, typed_turn


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def test_a_url_fault_is_in_the_trace_and_the_journal(engine, tmp_path: Path) -> None:
    traces, journals = tmp_path / "trace", tmp_path / "journal"
    live = await engine(trace_dir=str(traces), journal_dir=str(journals))
    async with connected(f"{live.realtime}&fault=response_failed:k=1", "sk-qa") as ws:
        await typed_turn(ws, "Tell me a story about a lighthouse.")
        done = (await frames(ws, of_type("response.done")))[-1]
    assert done["response"]["status"] == "failed", done
    response_id = done["response"]["id"]
    await live.wait_until_idle()

    def fault_lines() -> list[dict]:
        [trace] = traces.glob("*.jsonl")
        return [r for r in records(trace) if r["kind"] == "fault"]

    await eventually(lambda: bool(fault_lines()), message="no fault line in the trace")
    [traced] = fault_lines()
    assert traced["data"]["kind"] == "response_failed", traced
    assert traced["data"]["response_id"] == response_id, traced

    [events] = journals.glob("*/events.jsonl")
    await eventually(
        lambda: any(r.get("kind") == "fault" for r in records(events)), message="no fault in the journal"
    )
    [journaled] = [r for r in records(events) if r.get("kind") == "fault"]
    assert journaled["from"] == "engine" and journaled["data"] == traced["data"], journaled
    timeline = subprocess.run(
        [sys.executable, "-m", "mockengine", "journal", str(events)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert timeline.returncode == 0, timeline.stderr
    [line] = [line for line in timeline.stdout.splitlines() if " fault " in line]
    assert "response_failed" in line and response_id in line, line
