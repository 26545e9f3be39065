"""CPU per talking session-second of two engine versions and the bare baseline, in lockstep.

Usage: ``.venv/bin/python tools/cpu_lockstep.py --before main [--rounds 3 --sessions 50 --duration 25]``
(``--before-env NAME=VALUE`` / ``--after-env NAME=VALUE``, repeatable, set the environment of one engine:
e.g. ``--before HEAD --before-env PYTHONMALLOC=pymalloc`` compares the allocators on the same code).

The engine at git ref ``--before`` (exported to a temporary directory), the engine of this checkout and
the bare aiohttp baseline (``mockengine.loadtest.baseline``) each start once, are warmed up (not
measured) and then take the same load in turn, round after round (before, after, baseline, before, …),
so a shared machine's drifting speed reaches all three alike. Per run it prints the whole process's CPU
per session-second and its main thread's (the event loop; the rest is the model threads), both from
``/proc``, the load average during the run, p95 onset and response start, and turns; at the end the
means and each one's ratio to the baseline (docs/cpu.md). The load is ``mockengine bench --only load``'s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from mockengine.bench.context import BENCH_ENGINE_ARGS
from mockengine.loadtest.capacity import measured
from mockengine.loadtest.driver import run_load
from mockengine.loadtest.processes import Child, start_server
from mockengine.loadtest.profile import LoadProfile

REPO = Path(__file__).resolve().parent.parent


def main_thread_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def export(ref: str, into: Path) -> None:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)


async def start(name: str, before_dir: Path, env: dict[str, str]) -> Child:
    if name == "baseline":
        return await start_server([], baseline=True)
    # ``python -m`` puts the working directory first on sys.path: run from elsewhere, so PYTHONPATH
    # decides which mockengine the engine imports.
    extra = {"PYTHONPATH": str(before_dir if name == "before" else REPO), **env}
    saved = {key: os.environ.get(key) for key in extra}
    os.environ.update(extra)
    try:
        return await start_server(BENCH_ENGINE_ARGS)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


async def one_run(name: str, child: Child, round_no: int, sessions: int, duration_s: float) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    loop_before = main_thread_cpu_s(child.process.pid)
    mode = "baseline" if name == "baseline" else "realtime"
    profile = LoadProfile("steady", sessions, duration_s)
    report, _ = await measured(child, run_load(child.url, profile, mode=mode, seed=1, progress=False))
    loop_s = main_thread_cpu_s(child.process.pid) - loop_before
    summary = report.summary()
    return {
        "name": name,
        "round": round_no,
        "cpu_ms_per_session_s": summary.get("server_cpu_ms_per_session_s"),
        "loop_ms_per_session_s": round(1000 * loop_s / (sessions * duration_s), 2),
        "load_average": round((load_before + os.getloadavg()[0]) / 2, 1),
        "onset_p95_ms": summary.get("onset_to_speech_started_ms", {}).get("p95"),
        "response_p95_ms": summary.get("speech_stopped_to_first_audio_ms", {}).get("p95"),
        "turns": summary.get("turns"),
        "dropped": summary.get("sessions_dropped"),
        "lost_events": summary.get("lost_events"),
    }


async def lockstep(args: argparse.Namespace, before_dir: Path) -> list[dict[str, Any]]:
    names = ["before", "after", "baseline"]
    envs = {"before": args.before_env, "after": args.after_env, "baseline": {}}
    children = {name: await start(name, before_dir, envs[name]) for name in names}
    runs = []
    try:
        for name in ("before", "after"):  # warm-up (not measured): first model calls, caches
            warm_up = LoadProfile("steady", 4, 12.0)
            await run_load(children[name].url, warm_up, turn_every_s=3.0, barge_in=0.0, progress=False)
        for round_no in range(args.rounds):
            for name in names:
                run = await one_run(name, children[name], round_no, args.sessions, args.duration)
                print(json.dumps(run), flush=True)
                runs.append(run)
    finally:
        for child in children.values():
            child.stop()
    return runs


def summarize(runs: list[dict[str, Any]]) -> None:
    means = {}
    for name in ("before", "after", "baseline"):
        mine = [r for r in runs if r["name"] == name]
        cpu = [r["cpu_ms_per_session_s"] for r in mine]
        loop = [r["loop_ms_per_session_s"] for r in mine]
        means[name] = (sum(cpu) / len(cpu), sum(loop) / len(loop))
        print(f"{name:8} CPU {means[name][0]:.2f} ms/session-s {cpu}; event loop {means[name][1]:.2f} {loop}")
    base_cpu, base_loop = means["baseline"]
    for name in ("before", "after"):
        cpu, loop = means[name]
        print(f"{name:8} {cpu / base_cpu:.2f} × the baseline (event-loop thread {loop / base_loop:.2f} ×)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="git ref of the engine to compare against")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--duration", type=float, default=25.0, help="seconds per run")
    parser.add_argument("--before-env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--after-env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    args.before_env = dict(item.split("=", 1) for item in args.before_env)
    args.after_env = dict(item.split("=", 1) for item in args.after_env)
    with tempfile.TemporaryDirectory(prefix="mockengine-before-") as before:
        export(args.before, Path(before))
        os.chdir(tempfile.gettempdir())
        summarize(asyncio.run(lockstep(args, Path(before))))


if __name__ == "__main__":
    main()
