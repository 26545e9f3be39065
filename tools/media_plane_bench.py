"""Talking WebRTC calls on the aiortc and pion media planes, one engine per plane, back to back.

Usage: ``python tools/media_plane_bench.py [--planes pion,aiortc] [--levels 10,40,100] [--seconds 12]
[--drivers aiortc,pion] [--per-driver 25] [--port 8790] [--udp-port 8791] [--engine-tree DIR]``. Each
plane's engine (``serve --stt-cache-fingerprint --media-plane PLANE``; from the checkout ``DIR`` when
given, to set two versions side by side) is warmed with 2 talking calls for 8 s, then each level of N
talking calls runs through each driver in turn: ``aiortc`` (the default;
``mockengine.bench.webrtc_load.talking_calls``: aiortc clients in processes of their own speaking the
``question`` clip in a loop) or ``pion`` (``tools/pion_driver``, ``make pion-driver``: one Go process
playing the same clip's Opus packets on every call, so that the driver, on the engine's machine, takes
less of its cores). Printed per level, one JSON line: the onsets and their p95 (speech onset →
``speech_started``, ms), and CPU per call-second (ms) of the engine's event-loop thread (``loop_ms``),
its whole Python process (``python_ms``, the loop and the speech models' threads), its busiest other
threads (``threads_ms``), the pion sidecar (``sidecar_ms``; 0 on aiortc) and the driver processes; the
1-min load average before and after, the time, and the engine's cache lookups over the level
(``transcripts_miss``: turns whisper transcribed; ``speech_miss``: replies piper spoke). docs/webrtc.md,
"Ninth pass" and "Tenth pass", has the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import time
import urllib.request
from pathlib import Path

import mockengine.loadtest.processes as processes
from mockengine.bench.pion_driver import pion_talking_calls
from mockengine.bench.webrtc import _p95
from mockengine.bench.webrtc_load import LevelResult, talking_calls

TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def _cpu_s(stat_path: str) -> float:
    fields = Path(stat_path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_S


def _threads_cpu_s(pid: int) -> dict[int, float]:
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found[int(task.name)] = _cpu_s(str(task / "stat"))
        except OSError:
            continue
    return found


class Probe:
    """What ``talking_calls`` reads the engine's CPU from: the engine and its children (the sidecar),
    each reading kept apart (engine, sidecar, event-loop thread)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[tuple[float, float, float]] = []
        self.threads: list[dict[int, float]] = []

    def cpu_seconds(self) -> float:
        engine = _cpu_s(f"/proc/{self.pid}/stat")
        sidecar = sum(_cpu_s(f"/proc/{child}/stat") for child in processes.children(self.pid))
        loop = _cpu_s(f"/proc/{self.pid}/task/{self.pid}/stat")
        self.samples.append((engine, sidecar, loop))
        self.threads.append(_threads_cpu_s(self.pid))
        return engine + sidecar

    def busiest_threads_ms(self, call_s: float, top: int = 4) -> list[float]:
        """CPU per call-second (ms) of the engine's busiest threads besides the event loop's over the
        last level (the speech models' executors, whisper's and piper's pools, OpenBLAS's)."""
        before, after = self.threads[-2], self.threads[-1]
        spent = sorted((after[tid] - before.get(tid, 0.0) for tid in after if tid != self.pid), reverse=True)
        return [round(cpu * 1000 / call_s, 1) for cpu in spent[:top]]


def _cache_lookups(port: int) -> dict[str, int]:
    """The engine's cache lookups so far by cache and result (``transcripts_hit``, ``speech_miss``, ...)
    from /metrics: a turn transcribed by whisper is a ``transcripts_miss``, a reply synthesised by piper
    a ``speech_miss``; empty when /metrics does not answer within a minute."""
    try:  # a figure left out rather than the run lost: a starved engine may answer late
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=60).read().decode()
    except OSError:
        return {}
    found: dict[str, int] = {}
    for match in re.finditer(
        r'^mockengine_cache_lookups_total\{cache="(\w+)",result="(\w+)"\} (\S+)$', text, re.M
    ):
        found[f"{match[1]}_{match[2]}"] = int(float(match[3]))
    return found


def _load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--planes", default="pion,aiortc")
    parser.add_argument("--levels", default="10,40,100")
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument(
        "--drivers", default="aiortc", help="aiortc, pion, or both (each level once per driver)"
    )
    parser.add_argument("--per-driver", type=int, default=25, help="talking calls per aiortc driver process")
    parser.add_argument("--engine-tree", default=None, help="run the engine from this checkout (A/B)")
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument("--udp-port", type=int, default=8791, help="the pion plane's UDP port")
    args = parser.parse_args()
    processes.free_port = lambda: args.port  # the engine on this port (start_server picks its own)
    if args.engine_tree:  # the engine subprocess imports mockengine from there; this process keeps its own
        os.environ["PYTHONPATH"] = str(Path(args.engine_tree).resolve())
    drivers = args.drivers.split(",")

    def drive(driver: str, probe: Probe | None, url: str, calls: int, seconds: float) -> LevelResult:
        if driver == "pion":
            return pion_talking_calls(probe, url, calls, seconds)
        return talking_calls(probe, url, calls, seconds, args.per_driver)

    for plane in args.planes.split(","):
        extra = ["--media-udp-port", str(args.udp_port)] if plane == "pion" else []
        child = asyncio.run(
            processes.start_server(["--stt-cache-fingerprint", "--media-plane", plane, *extra])
        )
        url = f"ws://127.0.0.1:{args.port}/v1/realtime"
        probe = Probe(child.process.pid)
        try:
            drive(drivers[0], None, url, 2, 8)  # warm-up
            for level, driver in ((int(n), d) for n in args.levels.split(",") for d in drivers):
                load_before = _load()
                lookups_before = _cache_lookups(args.port)
                probe.samples.clear()
                run = drive(driver, probe, url, level, args.seconds)
                (engine0, sidecar0, loop0), (engine1, sidecar1, loop1) = probe.samples
                call_s = max(1, run.opened) * run.engine_wall_s
                p95 = _p95(run.onsets_ms)
                driver_ms = run.driver_ms_per_call_second
                row = {
                    "plane": plane,
                    "driver": driver,
                    "engine": args.engine_tree or "this checkout",
                    "calls": level,
                    "opened": run.opened,
                    "onsets": len(run.onsets_ms),
                    "p95_ms": p95 and round(p95),
                    "loop_ms": round((loop1 - loop0) * 1000 / call_s, 1),
                    "python_ms": round((engine1 - engine0) * 1000 / call_s, 1),
                    "sidecar_ms": round((sidecar1 - sidecar0) * 1000 / call_s, 1),
                    "threads_ms": probe.busiest_threads_ms(call_s),
                    "driver_ms": driver_ms and round(driver_ms, 1),
                    "load": f"{load_before:.1f}->{_load():.1f}",
                    "at": time.strftime("%H:%M:%S", time.gmtime()),
                }
                lookups = _cache_lookups(args.port)
                row.update({k: v - lookups_before.get(k, 0) for k, v in sorted(lookups.items())})
                print(json.dumps(row), flush=True)
        finally:
            child.stop()


if __name__ == "__main__":
    main()
