"""Text and JSON forms of conformance results."""

from __future__ import annotations

from mockengine.conformance.report import (
    CheckResult,
    format_result,
    json_report,
    redact_url,
    summary_line,
)


def test_pass_line_carries_label_and_figures() -> None:
    result = CheckResult(
        "engine_turn", "server_vad", True, {"onset_delay_ms": 312, "response_start_ms": 845.4}
    )
    assert format_result(result) == "PASS engine_turn[server_vad]  onset_delay_ms=312 response_start_ms=845"


def test_failures_and_notes_follow_the_fail_line_indented() -> None:
    result = CheckResult(
        "cancel",
        None,
        False,
        {"ratio": 0.12345},
        failures=["audio delta for resp_X arrived 420 ms after its response.done"],
        notes=["slow"],
    )
    assert format_result(result).splitlines() == [
        "FAIL cancel  ratio=0.123",
        "    audio delta for resp_X arrived 420 ms after its response.done",
        "    note: slow",
    ]


def test_a_result_without_figures_has_no_trailing_spaces() -> None:
    assert format_result(CheckResult("handshake", None, True)) == "PASS handshake"


def test_summary_counts_passes_and_failures() -> None:
    results = [
        CheckResult("a", None, True),
        CheckResult("b", None, False),
        CheckResult("c", "semantic_vad", True),
    ]
    assert summary_line(results) == "2 passed, 1 failed"
    assert summary_line([]) == "0 passed, 0 failed"


def test_redact_url_hides_credentials_only() -> None:
    url = "wss://user:pw@host/v1/realtime?model=gpt-realtime&api_key=sk-123&token=t"
    redacted = redact_url(url)
    assert "sk-123" not in redacted and "pw@" not in redacted and "=t" not in redacted
    assert "model=gpt-realtime" in redacted
    assert redact_url("ws://127.0.0.1:8765/v1/realtime?model=x") == "ws://127.0.0.1:8765/v1/realtime?model=x"


def test_json_report_shape() -> None:
    results = [CheckResult("barge_in", "server_vad", False, {"played_ms": 900}, ["late"])]
    report = json_report(
        results,
        suite_version=6,
        spec_version="0.2.0",
        url="ws://h/v1/realtime?api_key=k",
        started_at="2026-01-01T00:00:00+00:00",
        finished_at="2026-01-01T00:01:00+00:00",
        realtime_factor=1.0,
    )
    assert report["suiteVersion"] == 6
    assert report["url"] == "ws://h/v1/realtime?api_key=REDACTED"
    assert report["summary"] == {"passed": 0, "failed": 1, "total": 1}
    assert report["results"][0] == {
        "label": "barge_in[server_vad]",
        "id": "barge_in",
        "turn_detection": "server_vad",
        "passed": False,
        "figures": {"played_ms": 900},
        "failures": ["late"],
        "notes": [],
    }
