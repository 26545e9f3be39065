"""``mockengine record --upstream``: the base URL the recorder relays under (mockengine/record/app.py)."""

from __future__ import annotations

import pytest

from mockengine.cli import build_parser
from mockengine.record.app import run, upstream_base


@pytest.mark.parametrize(
    ("given", "taken"),
    [
        # no path: every request went to https://api.openai.com/chat/completions, a 404
        ("https://api.openai.com", "https://api.openai.com/v1"),
        ("https://api.openai.com/", "https://api.openai.com/v1"),
        ("ws://127.0.0.1:8765", "ws://127.0.0.1:8765/v1"),
        ("https://api.openai.com/v1", "https://api.openai.com/v1"),  # as documented: unchanged
        ("https://example.openai.azure.com/openai/v1", "https://example.openai.azure.com/openai/v1"),
    ],
)
def test_an_upstream_without_a_path_is_taken_as_v1(given: str, taken: str) -> None:
    assert upstream_base(given) == taken


@pytest.mark.parametrize("given", ["ftp://x/v1", "api.openai.com/v1", "https:///v1"])
def test_an_upstream_that_is_no_url_is_one_line_and_status_2(given: str, tmp_path, capsys) -> None:
    args = build_parser().parse_args(["record", "--upstream", given, "--out", str(tmp_path / "rec")])
    assert run(args) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"mockengine record: --upstream {given}: expected") and "/v1" in line
    assert not (tmp_path / "rec").exists()  # refused before anything is written
