"""The ``mockengine bench`` entry point: shared options, then the chosen sections in order."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from mockengine.bench.context import BenchContext
from mockengine.bench.option_types import positive, share
from mockengine.bench.sections import sections
from mockengine.near_miss import did_you_mean

# A section's own option (dest) → (section, option string, default), filled by add_arguments: a value
# given for a section the run leaves out was silently ignored (`--only soak --plot f.png` drew nothing,
# `--only load --minutes 5` ran the load's 40 s), so run_bench refuses it by name.
_SECTION_OPTIONS: dict[str, tuple[str, str, object]] = {}

# dest → (the sections reading it, option string, default), filled by add_arguments.
_SHARED_OPTIONS: dict[str, tuple[tuple[str, ...], str, object]] = {}

# The shared options (dest → the sections that read them): `--only tools --duration 5` or `--only chat
# --sessions 200` ran as if the option had not been given, without a word, so a shared option given a
# value is refused as a section's own when none of its sections runs.
_SHARED_OPTION_SECTIONS: dict[str, tuple[str, ...]] = {
    "sessions": ("load", "soak", "loops"),
    "duration": ("load", "loops"),
    "profile": ("load",),
    "turn_every": ("load", "capacity", "soak"),
    "barge_in": ("load", "capacity", "soak"),
    "seed": ("load", "soak", "loops"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every section shares, then each section's own."""
    all_sections = sections()
    parser.add_argument(
        "--only",
        action="append",
        help=f"run only these sections (repeat, or comma-separate): {', '.join(all_sections)}",
    )
    parser.add_argument("--url", help="drive this Realtime URL instead of starting an engine")
    parser.add_argument("--engine-args", help="extra options for the engine the bench starts (quoted)")
    parser.add_argument(
        "--sessions", type=positive(int), default=50, help="load: concurrent sessions (default 50)"
    )
    parser.add_argument("--duration", type=positive(float), default=40.0, help="load: seconds (default 40)")
    parser.add_argument(
        "--profile",
        choices=("steady", "ramp", "spike"),
        default="steady",
        help="load: how the sessions arrive (default steady)",
    )
    parser.add_argument(
        "--turn-every", type=positive(float), default=10.0, help="seconds between turns (default 10)"
    )
    parser.add_argument("--barge-in", type=share, default=0.2, help="share of replies interrupted (0.2)")
    parser.add_argument("--seed", type=int, default=1, help="the participants' random choices (default 1)")
    parser.add_argument("--json", help="write every figure to this JSON file")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress line")
    for action in parser._actions:
        if action.dest in _SHARED_OPTION_SECTIONS:
            owners = _SHARED_OPTION_SECTIONS[action.dest]
            _SHARED_OPTIONS[action.dest] = (owners, action.option_strings[0], action.default)
    for section in all_sections.values():
        if section.add_arguments is not None:
            known = len(parser._actions)
            section.add_arguments(parser)
            for action in parser._actions[known:]:
                default = action.default  # argparse converts a string default with the option's type
                if isinstance(default, str) and action.type is not None and callable(action.type):
                    default = action.type(default)
                _SECTION_OPTIONS[action.dest] = (section.name, action.option_strings[0], default)


def _options_for_sections_not_run(args: argparse.Namespace, parts: list[str]) -> str | None:
    """The error for section options given a value when their section is not among ``parts``: each
    named with its section, and a selected section's option of a like name offered (``--soak-plot``
    for ``--plot``)."""
    wrong = []
    for dest, (owner, option, default) in _SECTION_OPTIONS.items():
        if owner in parts or getattr(args, dest, default) == default:
            continue
        alike = [o for s, o, _ in _SECTION_OPTIONS.values() if s in parts and option.lstrip("-") in o]
        hint = f"; did you mean {' or '.join(alike)}?" if alike else ""
        wrong.append(f"{option} is an option of the {owner} section, which this run leaves out{hint}")
    for dest, (owners, option, default) in _SHARED_OPTIONS.items():
        if any(owner in parts for owner in owners) or getattr(args, dest, default) == default:
            continue
        named = owners[0] if len(owners) == 1 else f"{', '.join(owners[:-1])} and {owners[-1]}"
        sections_word = "section" if len(owners) == 1 else "sections"
        wrong.append(f"{option} is an option of the {named} {sections_word}, which this run leaves out")
    if not wrong:
        return None
    return f"mockengine bench: {'; '.join(wrong)} (sections run: {', '.join(parts)})"


def run_bench(
    args: argparse.Namespace, engine_args_problem: Callable[[str | None], str | None] | None = None
) -> int:
    """Run the chosen sections: 0; 1 when the load section connected no session; 2, with one line on
    stderr, for an unknown section, a section's option given for a section the run leaves out, a
    ``--json``, ``--plot`` or ``--soak-plot`` file in a directory that does not exist, ``--soak-waves``
    without ``--soak-transport webrtc`` or that transport with ``--url``, a chosen section's own
    ``check`` (:class:`~mockengine.bench.sections.Section`), or a ``--url`` that
    is not a ws(s) / http(s) URL with a host (one without a path or model is completed as conformance
    completes it: ``http://127.0.0.1:8765`` drives ``ws://…/v1/realtime?model=gpt-realtime``), or an
    unknown ``MOCKENGINE_BENCH_TURN_LINE`` when ``turns`` runs, or ``--engine-args`` that ``serve``
    refuses (``engine_args_problem``: the command line's check, which knows ``serve``'s options; this
    layer does not)."""
    all_sections = sections()
    chosen = [name.strip() for given in args.only or () for name in given.split(",") if name.strip()]
    parts: list[str] = chosen or [name for name, section in all_sections.items() if section.default]
    unknown = [p for p in parts if p not in all_sections]
    # A usage mistake is one line and status 2, as everywhere else on the command line (SystemExit with
    # a message exited 1, the status of a run whose figures measure nothing).
    if unknown:
        named = ", ".join(name + did_you_mean(name, all_sections) for name in unknown)
        refusal = f"unknown section(s) {named}; choose from {', '.join(all_sections)}"
        print(f"mockengine bench: {refusal}", file=sys.stderr)
        return 2
    if "turns" in parts:
        from mockengine.bench.turn_corpus import line_from_env, synthesis_from_env

        try:
            line_from_env()  # an unknown line format was a traceback after the sections before it ran
            synthesis_from_env()
        except ValueError as exc:
            print(f"mockengine bench: {exc}", file=sys.stderr)
            return 2
    misplaced = _options_for_sections_not_run(args, parts)
    if misplaced is not None:
        print(misplaced, file=sys.stderr)
        return 2
    for option, path in (
        ("--json", args.json),
        ("--plot", getattr(args, "plot", None)),
        ("--soak-plot", getattr(args, "soak_plot", None)),
    ):
        # Written once every section has run: a missing directory was a traceback minutes in, the figures
        # lost (conformance refuses its --json alike, before any check).
        if path and not Path(path).resolve().parent.is_dir():
            print(f"mockengine bench: {option} {path}: no such directory", file=sys.stderr)
            return 2
    webrtc_soak = "soak" in parts and getattr(args, "soak_transport", None) == "webrtc"
    if webrtc_soak and args.url:  # its figures are the engine process's RSS, read from /proc
        print(
            "mockengine bench: --soak-transport webrtc soaks the engine the bench starts; leave out --url",
            file=sys.stderr,
        )
        return 2
    if not webrtc_soak and getattr(args, "soak_waves", None):
        print("mockengine bench: --soak-waves needs --soak-transport webrtc", file=sys.stderr)
        return 2
    if args.url:  # checked and completed as conformance's --url: ftp://x ran the whole load, then said so
        from mockengine.conformance.runner import realtime_url

        try:
            args.url = realtime_url(args.url)
        except ValueError as exc:
            print(f"mockengine bench: {exc}", file=sys.stderr)
            return 2
    for part in parts:
        check = all_sections[part].check
        problem = check(args) if check is not None else None
        if problem is not None:
            print(f"mockengine bench: {problem}", file=sys.stderr)
            return 2
    refused = engine_args_problem(args.engine_args) if engine_args_problem else None
    if refused is not None:
        print(f"mockengine bench: --engine-args {args.engine_args!r}: {refused}", file=sys.stderr)
        return 2
    ctx = BenchContext(args)
    try:
        for part in parts:
            all_sections[part].run(ctx)
    finally:
        ctx.close()
    if args.json:
        Path(args.json).write_text(json.dumps(ctx.results, indent=1, default=str))
        print(f"\nfigures written to {args.json}")
    load = ctx.results.get("load")
    if load is not None and not load["engine"]["sessions_connected"]:
        print("\nload: no session connected; the figures above measure nothing", file=sys.stderr)
        return 1
    return 0
