"""`mockengine conformance` with a bad `--json` path, a clip that is not a WAV or a URL that cannot be a
Realtime endpoint: one line on stderr and exit status 2 before anything runs (a fresh user got a
traceback, for --json only after the whole suite had run; `--url foo` failed all 15 checks alike)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from mockengine.cli import build_parser
from mockengine.conformance.runner import realtime_url, run_from_args

NOWHERE = "ws://127.0.0.1:9/v1/realtime?model=gpt-realtime"  # never reached: the mistake is found first


def run(*argv: str, url: str = NOWHERE) -> tuple[int, str]:
    """Exit status and stderr; nothing may reach stdout (the results' stream) on a bad invocation."""
    out, err = io.StringIO(), io.StringIO()
    args = build_parser().parse_args(["conformance", "--url", url, *argv])
    status = run_from_args(args, out=out, err=err)
    assert out.getvalue() == ""
    return status, err.getvalue()


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


@pytest.mark.parametrize(
    ("given", "taken"),
    [
        ("http://127.0.0.1:8765", "ws://127.0.0.1:8765/v1/realtime?model=gpt-realtime"),
        ("https://engine.example/", "wss://engine.example/v1/realtime?model=gpt-realtime"),
        ("ws://h:1/v1/realtime", "ws://h:1/v1/realtime?model=gpt-realtime"),
        ("ws://h:1/v1/realtime?api_key=k", "ws://h:1/v1/realtime?api_key=k&model=gpt-realtime"),
        ("WS://h:1/custom/path?model=m", "ws://h:1/custom/path?model=m"),
        ("ws://h:1/v1/realtime?model=gpt-realtime-mini", "ws://h:1/v1/realtime?model=gpt-realtime-mini"),
    ],
)
def test_the_url_is_completed_as_the_openai_sdk_completes_a_base_url(given: str, taken: str) -> None:
    assert realtime_url(given) == taken


@pytest.mark.parametrize("url", ["foo", "127.0.0.1:8765", "ftp://h/v1/realtime", "ws:///v1/realtime"])
def test_a_url_that_cannot_be_a_realtime_endpoint_is_refused_up_front(url: str) -> None:
    status, err = run("--check", "handshake", url=url)
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"conformance: --url {url}: expected ws://, wss://, http:// or https://")
