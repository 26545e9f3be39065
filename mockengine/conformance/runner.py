"""``mockengine conformance``: run the HRP conformance suite against any Realtime GA WebSocket URL.

The runner is a pure protocol client (no mockengine internals). Checks run one after another, each on its
own session; per-turn-detection checks run once per selected turn detection and are labelled
``id[server_vad]``. Output is one block per check and, last, exactly ``N passed, N failed``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TextIO
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from . import checks_pause, checks_speech, checks_text
from .audio import DEFAULT_CLIPS_DIR, Clip, MicrophoneStopped, load_clips
from .connection import ConnectionFailed, EngineUnreachable
from .context import CheckAborted, CheckContext, open_session
from .report import CheckResult, json_report, print_result, summary_line, write_json_report
from .spec import CheckSpec, Suite, load_suite

TurnDetectionChoice = Literal["server_vad", "semantic_vad", "all"]
CheckFn = Callable[[CheckContext], Awaitable[None]]

CHECKS: dict[str, CheckFn] = {
    "handshake": checks_text.handshake,
    "engine_turn": checks_speech.engine_turn,
    "barge_in": checks_speech.barge_in,
    "listening_pause": checks_pause.listening_pause,
    "listening_pause_silent": checks_pause.listening_pause_silent,
    "cancel": checks_text.cancel,
    "function_call": checks_text.function_call,
    "silent_tool": checks_text.silent_tool,
    "image_context": checks_text.image_context,
    "turn_detection_fields": checks_text.turn_detection_fields,
}
# The speech clips each check streams (``ctx.clip``): a ``--clips`` DIR that lacks one a chosen check
# needs is refused before anything runs, not reported as that check failing (an engine's failure in CI).
CLIPS_NEEDED: dict[str, tuple[str, ...]] = {
    "engine_turn": ("question",),
    "barge_in": ("interrupt",),
    "listening_pause": ("long_statement",),
    "listening_pause_silent": ("question",),
}
# A check that is still running after this long is stuck (the longest streams ~20 s of audio).
CHECK_TIMEOUT_S = 180.0
DEFAULT_API_KEY = "sk-mockengine"
EXIT_UNREACHABLE = 3  # nothing answered at --url: no check ran (1 = a check failed, 2 = a usage mistake)


@dataclass(frozen=True)
class PlannedCheck:
    """One check run: the spec entry and the turn detection its session uses (label only if per-TD)."""

    spec: CheckSpec
    turn_detection: str
    per_turn_detection: bool

    @property
    def label(self) -> str:
        return f"{self.spec.id}[{self.turn_detection}]" if self.per_turn_detection else self.spec.id


def plan(suite: Suite, turn_detection: TurnDetectionChoice, checks: list[str] | None) -> list[PlannedCheck]:
    """Check runs in spec order. ``checks`` holds ids (``cancel``) or labels (``barge_in[server_vad]``).

    Raises ValueError naming any id or label that matches nothing.
    """
    types = list(suite.turn_detection_types) if turn_detection == "all" else [turn_detection]
    if any(t not in suite.turn_detection_types for t in types):
        raise ValueError(
            f"unknown turn detection {turn_detection!r}; choose from {suite.turn_detection_types}"
        )
    runs = [
        PlannedCheck(spec, td, spec.per_turn_detection)
        for spec in suite.checks
        for td in (types if spec.per_turn_detection else types[:1])
    ]
    if not checks:
        return runs
    unknown = [c for c in checks if not any(c in (r.spec.id, r.label) for r in runs)]
    if unknown:
        raise ValueError(
            f"unknown check {', '.join(unknown)}; choose from {', '.join(r.label for r in runs)}"
        )
    return [r for r in runs if r.spec.id in checks or r.label in checks]


async def run_check(
    planned: PlannedCheck,
    *,
    url: str,
    api_key: str | None,
    suite: Suite,
    clips: dict[str, Clip],
    realtime_factor: float = 1.0,
    transport: str = "websocket",
    unreachable_raises: bool = False,
) -> CheckResult:
    """Open a session, run one check, and close; never raises for engine misbehaviour.

    ``unreachable_raises``: raise EngineUnreachable when nothing answers at the URL (the first check:
    nothing was tested) instead of failing the check (later: an engine that went away mid-run failed)."""
    label_td = planned.turn_detection if planned.per_turn_detection else None
    try:
        conn, figures, handshake_failures = await open_session(
            url, api_key, suite, suite.turn_detection(planned.turn_detection), transport
        )
    except (CheckAborted, ConnectionFailed) as exc:
        if unreachable_raises and isinstance(exc, EngineUnreachable):
            raise
        return CheckResult(planned.spec.id, label_td, False, failures=[f"session setup: {exc}"])
    ctx = CheckContext(conn, suite, clips, suite.turn_detection(planned.turn_detection), realtime_factor)
    if planned.spec.id == "handshake":
        ctx.figures.update(figures)
        ctx.failures.extend(handshake_failures)
    try:
        await asyncio.wait_for(CHECKS[planned.spec.id](ctx), CHECK_TIMEOUT_S)
    except CheckAborted as exc:
        ctx.fail(str(exc))
    except MicrophoneStopped as exc:
        ctx.fail(f"{exc}; {ctx.describe(0)}")
    except TimeoutError:
        ctx.fail(f"check did not finish within {CHECK_TIMEOUT_S:.0f} s; {ctx.describe(0)}")
    except ConnectionError as exc:
        ctx.fail(f"check stopped: {exc!r}; {ctx.describe(0)}")
    finally:
        await ctx.stop_microphones()
        await conn.close()
    return CheckResult(planned.spec.id, label_td, not ctx.failures, ctx.figures, ctx.failures, ctx.notes)


async def arun_conformance(
    url: str,
    *,
    api_key: str | None,
    turn_detection: TurnDetectionChoice = "all",
    checks: list[str] | None = None,
    clips_dir: Path = DEFAULT_CLIPS_DIR,
    realtime_factor: float = 1.0,
    suite: Suite | None = None,
    out: TextIO = sys.stdout,
    transport: str = "websocket",
) -> tuple[list[CheckResult], dict[str, object]]:
    """Run the planned checks, printing each result as it finishes and the summary line last.

    Returns (results, the JSON report). ``realtime_factor`` > 1 is for tests against fake engines only
    (see ``context``). Raises ValueError for unknown checks / turn detections and for unreadable clips,
    EngineUnreachable when nothing answers at ``url`` for the first check (nothing printed yet).
    """
    suite = suite or load_suite()
    runs = plan(suite, turn_detection, checks)
    clips = load_clips(clips_dir)
    for planned in runs:
        missing = [name for name in CLIPS_NEEDED.get(planned.spec.id, ()) if name not in clips]
        if missing:
            raise ValueError(
                f"--clips {clips_dir}: no {missing[0]!r} clip ({missing[0]}.wav), which {planned.label} "
                f"streams; it has: {', '.join(sorted(clips)) or 'none'}"
            )
    started_at = _utc_now()
    results: list[CheckResult] = []
    for planned in runs:
        result = await run_check(
            planned,
            url=url,
            api_key=api_key,
            suite=suite,
            clips=clips,
            realtime_factor=realtime_factor,
            transport=transport,
            unreachable_raises=not results,
        )
        print_result(result, out)
        results.append(result)
    print(summary_line(results), file=out, flush=True)
    report = json_report(
        results,
        suite_version=suite.suite_version,
        spec_version=suite.spec_version,
        url=url,
        started_at=started_at,
        finished_at=_utc_now(),
        realtime_factor=realtime_factor,
    )
    return results, report


DEFAULT_MODEL = "gpt-realtime"


def realtime_url(url: str) -> str:
    """The Realtime WebSocket URL ``--url`` names, completed the way the openai SDK completes a base URL.

    ``http``/``https`` become ``ws``/``wss`` (the SDK's ``websocket_base_url`` rule); a URL with no path
    gets ``/v1/realtime``; one with no ``model`` in its query gets ``model=gpt-realtime`` (the real service
    closes a session without one with ``missing_model``). Anything else is kept as given, so the suite
    can point at another provider's path. Raises ValueError for a URL with another scheme or no host.
    """
    parts = urlsplit(url.strip())
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme.lower(), parts.scheme.lower())
    if scheme not in ("ws", "wss") or not parts.hostname:
        raise ValueError(
            f"--url {url}: expected ws://, wss://, http:// or https:// and a host, "
            "e.g. ws://127.0.0.1:8765/v1/realtime?model=gpt-realtime"
        )
    path = parts.path if parts.path not in ("", "/") else "/v1/realtime"
    query = parts.query
    if not any(key == "model" for key, _ in parse_qsl(query, keep_blank_values=True)):
        query = "&".join(filter(None, [query, urlencode({"model": DEFAULT_MODEL})]))
    return urlunsplit((scheme, parts.netloc, path, query, ""))


def run_conformance(
    url: str,
    *,
    api_key: str | None,
    turn_detection: TurnDetectionChoice = "all",
    json_path: str | None = None,
    checks: list[str] | None = None,
    out: TextIO = sys.stdout,
    clips_dir: str | Path | None = None,
    transport: str = "websocket",
    err: TextIO = sys.stderr,
) -> int:
    """CLI entry: run the suite; exit status 0 only if every check passed, 1 if one failed, 2 for a bad
    invocation, 3 when nothing answers at the URL (no check ran).

    Results go to ``out``; a bad invocation or an unreachable engine is one line on ``err``."""
    if json_path and not Path(json_path).resolve().parent.is_dir():  # not after minutes of checks
        print(f"conformance: --json {json_path}: no such directory", file=err, flush=True)
        return 2
    if clips_dir is not None and not Path(clips_dir).is_dir():  # every speech check then failed alike
        print(f"conformance: --clips {clips_dir}: no such directory", file=err, flush=True)
        return 2
    try:
        url = realtime_url(url)  # every check failed alike on a URL that could never connect
        results, report = asyncio.run(
            arun_conformance(
                url,
                api_key=api_key,
                turn_detection=turn_detection,
                checks=checks,
                out=out,
                clips_dir=Path(clips_dir) if clips_dir else DEFAULT_CLIPS_DIR,
                transport=transport,
            )
        )
    except (ValueError, OSError) as exc:
        print(f"conformance: {exc}", file=err, flush=True)
        return 2
    except EngineUnreachable as exc:  # not 15 FAIL blocks repeating one connection error
        print(f"conformance: {exc}", file=err, flush=True)
        return EXIT_UNREACHABLE
    if json_path:
        write_json_report(report, json_path)
    return 0 if results and all(r.passed for r in results) else 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``conformance`` sub-command's options."""
    parser.add_argument(
        "--url",
        required=True,
        help="Realtime WebSocket URL, e.g. ws://127.0.0.1:8765/v1/realtime?model=gpt-realtime; http(s) is "
        "taken as ws(s), no path as /v1/realtime, no model as model=gpt-realtime",
    )
    parser.add_argument(
        "--api-key",
        # an empty $OPENAI_API_KEY is a variable left unset: the default key
        default=os.environ.get("OPENAI_API_KEY") or DEFAULT_API_KEY,
        type=_api_key,
        help="bearer key, not empty (default: $OPENAI_API_KEY, else sk-mockengine)",
    )
    parser.add_argument(
        "--turn-detection",
        choices=["server_vad", "semantic_vad", "all"],
        default="all",
        help="run the per-turn-detection checks for one turn detection or both (default)",
    )
    parser.add_argument(
        "--transport",
        choices=["websocket", "webrtc"],
        default="websocket",
        help="run the checks over the WebSocket (default) or a WebRTC call to --url/calls (docs/webrtc.md)",
    )
    parser.add_argument("--json", metavar="PATH", dest="json", default=None, help="also write a JSON report")
    parser.add_argument(
        "--check",
        metavar="ID",
        action="append",
        default=None,
        help="run only this check id or label, e.g. cancel or barge_in[server_vad]; repeatable",
    )
    parser.add_argument(
        "--clips",
        metavar="DIR",
        default=None,
        help="directory of speech clips (question, interrupt, long_statement WAVs)",
    )


def _api_key(value: str) -> str:
    """``--api-key``'s value as given; an empty one is a usage mistake (exit status 2, argparse's line).
    It was sent as no ``Authorization`` header at all, and the suite ran to fail its handshake check: an
    engine that checks keys refuses none, as the real service does, and one that checks none takes any
    key, so no engine is tested by an empty key that the default would not test as well."""
    if not value.strip():
        raise argparse.ArgumentTypeError(
            "an empty key sends no Authorization header, which an engine that checks keys refuses; give "
            "the key (or leave the option out for $OPENAI_API_KEY, else sk-mockengine)"
        )
    return value


def run_from_args(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """``run_conformance`` with the options ``add_arguments`` defined."""
    return run_conformance(
        args.url,
        api_key=args.api_key,
        turn_detection=args.turn_detection,
        json_path=args.json,
        checks=args.check,
        out=out,
        clips_dir=args.clips,
        transport=args.transport,
        err=err,
    )


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
