"""`mockengine conformance --clips DIR` whose DIR lacks a clip a chosen check streams: a usage mistake,
one line and exit status 2 before anything runs (docs/conformance.md), as a DIR that does not exist or a
WAV that does not read already were. It ran the check instead and reported `FAIL engine_turn[server_vad]
… speech clip 'question' is missing`, exit status 1: in CI, a conformance failure of the engine."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from mockengine.conformance.audio import DEFAULT_CLIPS_DIR
from mockengine.conformance.runner import CHECKS, CLIPS_NEEDED


def conformance(*args: str) -> subprocess.CompletedProcess[str]:
    # A port nothing listens on: a run that got as far as connecting would fail its checks (status 1).
    command = [sys.executable, "-m", "mockengine", "conformance", "--url", "ws://127.0.0.1:9", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_a_missing_clip_a_check_needs_is_a_usage_mistake(tmp_path: Path) -> None:
    shutil.copy(DEFAULT_CLIPS_DIR / "question.wav", tmp_path / "question.wav")
    result = conformance("--clips", str(tmp_path), "--check", "barge_in[server_vad]")
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == "", result.stdout  # nothing ran
    assert result.stderr.strip() == (
        f"conformance: --clips {tmp_path}: no 'interrupt' clip (interrupt.wav), which barge_in[server_vad] "
        "streams; it has: question"
    ), result.stderr


def test_the_clips_a_run_needs_are_all_it_asks_for(tmp_path: Path) -> None:
    """Only the chosen checks' clips are required: `--check cancel` (text only) runs with none."""
    result = conformance("--clips", str(tmp_path), "--check", "cancel")
    # no usage mistake (2): it ran, and found nothing listening (3, one line: docs/command-line.md)
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert "cannot reach the engine at ws://127.0.0.1:9" in result.stderr, result.stderr


def test_every_check_that_streams_speech_names_its_clips() -> None:
    """The table the up-front check reads is what each check's code (and the helpers of its module it
    calls) asks ``ctx.clip`` for."""
    import inspect

    for check_id, function in CHECKS.items():
        module = inspect.getmodule(function)
        source = inspect.getsource(function)
        helpers = [
            inspect.getsource(helper)
            for name, helper in inspect.getmembers(module, inspect.isfunction)
            if name.startswith("_") and f"{name}(" in source
        ]
        said = source + "".join(helpers)
        asked = {name for name in ("question", "interrupt", "long_statement") if f'clip("{name}")' in said}
        assert asked == set(CLIPS_NEEDED.get(check_id, ())), check_id
