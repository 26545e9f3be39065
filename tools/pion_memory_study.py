"""Memory of talking calls on the pion media plane over a study's length: engine and sidecar RSS apart.

Usage: ``python tools/pion_memory_study.py [--calls 25] [--minutes 8] [--per-driver 13] [--port 8790]
[--udp-port 8791] [--every-s 30]``. Starts ``serve --stt-cache-fingerprint --media-plane pion``, warms
it with 2 talking calls for 8 s, waits for the reclaimer, reads the idle RSS of the engine's Python
process and of its sidecar (``/proc/PID/status`` VmRSS), then runs ``--calls`` talking calls
(``mockengine.bench.webrtc_load.talking_calls``: aiortc clients in driver processes of their own, the
``question`` clip then ``--gap-s`` of silence, in a loop: a study's rhythm) for ``--minutes``, printing
one JSON line of both RSS figures (MiB) every ``--every-s``; then, after the calls end, every
``--every-s`` for 2 minutes more. docs/webrtc.md, "Ninth pass, hardening", has the figures.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from pathlib import Path

import mockengine.bench.webrtc_load as webrtc_load
import mockengine.loadtest.processes as processes
from mockengine.bench.webrtc_load import talking_calls

GAP_ENV = "MOCKENGINE_STUDY_GAP_S"  # the drivers' silence between turns (spawned: they read it here)


async def _study_talk(conn: object, seconds: float, onsets: list[float]) -> None:
    """``webrtc_talk.talk`` at a study's rhythm: the clip, then ``GAP_ENV`` seconds of silence."""
    import asyncio
    import os

    from mockengine.bench.webrtc_talk import question_clip, speak

    clip = question_clip()
    gap_s = float(os.environ.get(GAP_ENV, "1"))
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        await speak(conn, clip.pcm + bytes(int(48_000 * gap_s)), loop)


def _study_driver(url: str, calls: int, seconds: float, ready: object, go: object, results: object) -> None:
    import asyncio

    import mockengine.bench.webrtc_talk as webrtc_talk

    webrtc_talk.talk = _study_talk  # type: ignore[assignment]
    asyncio.run(webrtc_load._drive(url, calls, seconds, ready, go, results))


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=25)
    parser.add_argument("--engine-args", default="", help="more serve options")
    parser.add_argument("--minutes", type=float, default=8.0)
    parser.add_argument("--per-driver", type=int, default=13)
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument("--udp-port", type=int, default=8791)
    parser.add_argument("--every-s", type=float, default=30.0)
    parser.add_argument(
        "--gap-s", type=float, default=8.0, help="silence after each clip (a turn every ~11 s)"
    )
    args = parser.parse_args()
    import os

    os.environ[GAP_ENV] = str(args.gap_s)
    webrtc_load._driver_process = _study_driver  # type: ignore[assignment]
    processes.free_port = lambda: args.port
    import asyncio

    child = asyncio.run(
        processes.start_server(
            [
                "--stt-cache-fingerprint",
                "--media-plane",
                "pion",
                "--media-udp-port",
                str(args.udp_port),
                *args.engine_args.split(),
            ]
        )
    )
    pid = child.process.pid
    started = time.monotonic()

    def sample(phase: str) -> None:
        sidecars = processes.children(pid)
        row = {
            "phase": phase,
            "t_s": round(time.monotonic() - started),
            "engine_mib": round(_rss_mib(pid), 1),
            "sidecar_mib": round(sum(_rss_mib(c) for c in sidecars), 1),
            "load": Path("/proc/loadavg").read_text().split()[0],
        }
        print(json.dumps(row), flush=True)

    try:
        sample("started")
        talking_calls(None, f"ws://127.0.0.1:{args.port}/v1/realtime", 2, 8, args.per_driver)
        time.sleep(40)  # the calls' ends and the reclaimer
        sample("idle")
        done = threading.Event()
        result: list[object] = []

        def run() -> None:
            result.append(
                talking_calls(
                    None,
                    f"ws://127.0.0.1:{args.port}/v1/realtime",
                    args.calls,
                    args.minutes * 60,
                    args.per_driver,
                )
            )
            done.set()

        threading.Thread(target=run, daemon=True).start()
        while not done.wait(args.every_s):
            sample("talking")
        level = result[0]
        print(json.dumps({"opened": level.opened, "onsets": len(level.onsets_ms)}), flush=True)  # type: ignore[attr-defined]
        for _ in range(int(120 / args.every_s)):
            time.sleep(args.every_s)
            sample("after")
    finally:
        child.stop()


if __name__ == "__main__":
    main()
