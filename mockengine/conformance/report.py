"""Check results, their one-line text form, and the JSON report.

Text output (one block per check, then the summary line, which is always last)::

    PASS engine_turn[server_vad]  onset_delay_ms=312 response_start_ms=845
    FAIL cancel  cancel_to_done_ms=40
        audio delta for resp_X arrived 420 ms after its response.done
    9 passed, 1 failed
"""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

Figure = float | int | str

_SECRET_QUERY_KEYS = ("key", "token", "secret", "password", "auth")


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one check run: ``figures`` are measurements (``*_ms`` are milliseconds)."""

    id: str
    turn_detection: str | None
    passed: bool
    figures: dict[str, Figure] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """``id`` or ``id[turn_detection]`` for per-turn-detection checks."""
        return f"{self.id}[{self.turn_detection}]" if self.turn_detection else self.id


def format_figure(value: Figure) -> str:
    if isinstance(value, float):
        return str(round(value)) if value.is_integer() or abs(value) >= 100 else f"{value:.3g}"
    return str(value)


def format_result(result: CheckResult) -> str:
    """The check's block: a PASS/FAIL line with its figures, then one indented line per failure and note."""
    figures = " ".join(f"{k}={format_figure(v)}" for k, v in result.figures.items())
    head = f"{'PASS' if result.passed else 'FAIL'} {result.label}"
    lines = [f"{head}  {figures}" if figures else head]
    lines += [f"    {failure}" for failure in result.failures]
    lines += [f"    note: {note}" for note in result.notes]
    return "\n".join(lines)


def summary_line(results: list[CheckResult]) -> str:
    """Exactly ``N passed, N failed``."""
    passed = sum(1 for r in results if r.passed)
    return f"{passed} passed, {len(results) - passed} failed"


def redact_url(url: str) -> str:
    """``url`` with any password and any credential-looking query value replaced by ``REDACTED``."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", ":REDACTED@")
    query = [
        (k, "REDACTED" if any(s in k.lower() for s in _SECRET_QUERY_KEYS) else v)
        for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    ]
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=urllib.parse.urlencode(query)))


def json_report(
    results: list[CheckResult],
    *,
    suite_version: int,
    spec_version: str,
    url: str,
    started_at: str,
    finished_at: str,
    realtime_factor: float,
) -> dict[str, Any]:
    """The ``--json`` report: suite/spec versions, redacted url, times (ISO 8601 UTC), results, summary."""
    passed = sum(1 for r in results if r.passed)
    return {
        "suiteVersion": suite_version,
        "specVersion": spec_version,
        "url": redact_url(url),
        "started_at": started_at,
        "finished_at": finished_at,
        "realtime_factor": realtime_factor,
        "results": [{"label": r.label, **asdict(r)} for r in results],
        "summary": {"passed": passed, "failed": len(results) - passed, "total": len(results)},
    }


def write_json_report(report: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def print_result(result: CheckResult, out: TextIO) -> None:
    print(format_result(result), file=out, flush=True)
