"""``mockengine faults kinds | schedule``: what can be injected, and which connections a profile hits.

``schedule`` prints, for ordinals 1..N, the faults of a profile, exactly as a server with the same
profile and seed will choose them for its first N WebSocket connections or HTTP requests (an ``http``
rule's ``path`` aside: every request is taken to match it) — so a load test can be planned, and its
dropped sessions told from real failures.
"""

from __future__ import annotations

import argparse
import sys

from mockengine.faults.spec import COMMON, KINDS, FaultProfile, FaultSpecError, load_profile, parse_faults
from mockengine.faults.state import fault_state


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # metavar: a missing subcommand said "the following arguments are required: faults_command"
    sub = parser.add_subparsers(dest="faults_command", required=True, metavar="{kinds,schedule}")
    sub.add_parser(
        "kinds",
        help="list every fault kind with its parameters",
        description="List every fault kind: its layer (ws, http), what it does, its parameters with their "
        "defaults, and the parameters every kind takes.",
    )
    schedule = sub.add_parser(
        "schedule",
        help="which connections / requests a profile hits",
        description="Print which connections (--layer ws) or requests (--layer http) of a server with this "
        "profile and seed are hit, and by which faults, as serve draws them (an http rule's path aside: "
        "every request is taken to match it). Needs --faults or --fault; without either, or with a bad "
        "spec, one line and exit status 2.",
    )
    schedule.add_argument("--faults", dest="faults_file", metavar="FILE.yaml", help="fault profile")
    schedule.add_argument("--fault", action="append", default=[], metavar="SPEC", help="a fault (repeatable)")
    schedule.add_argument("--seed", type=int, help="the server's --seed (a profile's seed: wins)")
    schedule.add_argument("--count", type=int, default=20, help="how many ordinals (default 20)")
    schedule.add_argument(
        "--layer",
        choices=["ws", "http"],
        help="connections (ws) or requests (http); default: the layer its faults act on (ws if both)",
    )


def kinds() -> str:
    lines = []
    for name, kind in KINDS.items():
        params = ", ".join(f"{p}={spec.default}" for p, spec in kind.params.items())
        main = f" (bare value: {kind.main})" if kind.main else ""
        lines.append(f"{name:26} [{kind.layer}] {kind.doc}\n{'':31}{params or '-'}{main}")
    lines.append("every kind also takes: " + ", ".join(COMMON))
    return "\n".join(lines)


# The longest schedule printed: a table a person or a script reads (a longer one was worked out whole
# before the first line, for minutes).
SCHEDULE_MAX_COUNT = 100_000


def schedule(args: argparse.Namespace) -> str:
    profile = load_profile(args.faults_file) if args.faults_file else FaultProfile()
    extra = tuple(spec for text in args.fault for spec in parse_faults(text))
    specs = profile.faults + extra
    state = fault_state(FaultProfile(specs, profile.seed), args.seed)
    # An http-only profile previewed on the ws layer (the old default) read "0 of 20 hit", as if its
    # faults never fired: the layer left out is the one the faults act on.
    layers = {spec.layer for spec in specs}
    layer = args.layer or ("ws" if "ws" in layers or not layers else "http")
    rows = state.schedule(layer, args.count)
    out = [f"seed {state.seed}, {layer} ordinals 1..{args.count}"]
    out += [f"{n:5}  {', '.join(kinds) or '-'}" for n, kinds in enumerate(rows, start=1)]
    hit = sum(1 for kinds in rows if kinds)
    out.append(f"{hit} of {args.count} hit")
    if specs and layer not in layers:
        other = "http" if layer == "ws" else "ws"
        noun = {"ws": "connections", "http": "requests"}
        named = ", ".join(dict.fromkeys(f"{spec.kind}: {spec.layer}" for spec in specs))
        out.append(
            f"no fault of this profile acts on {layer} {noun[layer]} ({named}); "
            f"--layer {other} previews {noun[other]}"
        )
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    """Print the kinds or the schedule: 0; a mistake in the options or the profile is one line on stderr
    and 2, as every other start-up mistake of the command line."""
    if args.faults_command == "schedule" and args.count < 1:  # 0 or -3 printed a table of no ordinals
        print(f"mockengine: --count must be at least 1, not {args.count}", file=sys.stderr)
        return 2
    if args.faults_command == "schedule" and args.count > SCHEDULE_MAX_COUNT:  # 99999999 ran for minutes
        print(f"mockengine: --count must be at most {SCHEDULE_MAX_COUNT}, not {args.count}", file=sys.stderr)
        return 2
    if args.faults_command == "schedule" and not args.faults_file and not args.fault:
        # It printed a table of N "-" rows: a preview of no profile at all.
        print(
            "mockengine: no fault given: name a profile with --faults FILE.yaml or a fault with --fault SPEC",
            file=sys.stderr,
        )
        return 2
    try:
        print(kinds() if args.faults_command == "kinds" else schedule(args))
    except FaultSpecError as exc:
        print(f"mockengine: {exc}", file=sys.stderr)
        return 2
    return 0
