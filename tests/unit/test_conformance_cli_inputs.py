"""`mockengine conformance` with a bad `--json` path or a clip that is not a WAV: one line and exit status 2
before anything runs (a fresh user got a traceback, for --json only after the whole suite had run)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from mockengine.cli import build_parser
from mockengine.conformance.runner import run_from_args

NOWHERE = "ws://127.0.0.1:9/v1/realtime?model=gpt-realtime"  # never reached: the mistake is found first


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    status = run_from_args(build_parser().parse_args(["conformance", "--url", NOWHERE, *argv]), out=out)
    return status, out.getvalue()


def test_a_json_report_in_a_missing_directory_is_refused_up_front(tmp_path: Path) -> None:
    status, out = run("--check", "handshake", "--json", str(tmp_path / "missing" / "report.json"))
    assert (
        status == 2
        and out.strip() == f"conformance: --json {tmp_path}/missing/report.json: no such directory"
    )


@pytest.mark.parametrize("content", [b"garbage", b"RIFF\x00\x00"])
def test_a_clip_that_is_not_a_wav_is_one_line(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "question.wav").write_bytes(content)
    status, out = run("--check", "engine_turn[server_vad]", "--clips", str(tmp_path))
    assert status == 2 and out.count("\n") == 1
    assert out.startswith(f"conformance: {tmp_path}/question.wav: not a PCM WAV file (")


@pytest.mark.parametrize("where", ["missing", "question.wav"])
def test_a_clips_directory_that_is_not_there_is_refused_up_front(tmp_path: Path, where: str) -> None:
    """`--clips /missing` was taken: no clips, and every speech check failed with "clip is missing"."""
    (tmp_path / "question.wav").write_bytes(b"RIFF")
    status, out = run("--clips", str(tmp_path / where))
    assert status == 2 and out == f"conformance: --clips {tmp_path / where}: no such directory\n"
