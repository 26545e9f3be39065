"""`mockengine conformance --api-key ""` (stop brk29): the empty key was sent as no key at all, and the
suite ran to fail its handshake check (the engine refuses a connection without a key, as the real service
does). No engine accepts an empty key where it would refuse another (one that checks no key takes any), so
it is a usage mistake: argparse's one line and exit status 2, before anything connects. An empty
``$OPENAI_API_KEY`` is a variable left unset: the default key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mockengine.cli import build_parser

NOWHERE = "ws://127.0.0.1:9/v1/realtime?model=gpt-realtime"  # never reached: the mistake is found first
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("key", ["", "   "])
def test_an_empty_key_is_a_usage_error(key: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "mockengine", "conformance", "--url", NOWHERE, "--api-key", key],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr.count("\n")) == (2, "", 1)
    assert done.stderr.splitlines()[-1] == (
        "mockengine conformance: error: argument --api-key: an empty key sends no Authorization header, "
        "which an engine that checks keys refuses; give the key (or leave the option out for "
        "$OPENAI_API_KEY, else sk-mockengine) (`mockengine conformance --help` lists the options)"
    )


def test_a_key_is_taken_as_given() -> None:
    args = build_parser().parse_args(["conformance", "--url", NOWHERE, "--api-key", "sk-live"])
    assert args.api_key == "sk-live"


@pytest.mark.parametrize(("environment", "key"), [("", "sk-mockengine"), ("sk-env", "sk-env")])
def test_the_environments_key_and_an_empty_one(
    monkeypatch: pytest.MonkeyPatch, environment: str, key: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", environment)
    args = build_parser().parse_args(["conformance", "--url", NOWHERE])
    assert args.api_key == key
