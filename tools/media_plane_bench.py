"""Talking WebRTC calls on the aiortc and pion media planes, one engine per plane, back to back, each
level through one or both drivers (A/B of drivers, or of two checkouts' engines).

Usage: ``python tools/media_plane_bench.py [--planes pion,aiortc] [--levels 10,40,100] [--seconds 12]
[--drivers aiortc,pion] [--per-driver 25] [--port 8790] [--udp-port 8791] [--engine-tree DIR]``. The
capacity climb of ``mockengine bench --only webrtc`` (:mod:`mockengine.bench.webrtc_capacity`, which
does the measuring) without its stop at the goal: every level runs through every driver in turn, and
the engine may come from the checkout ``DIR`` (``serve`` imported from there, to set two versions side
by side). Printed per level, one JSON line: the plane, driver and engine, then
:func:`~mockengine.bench.webrtc_capacity.measure_level`'s figures (p95 onset, CPU per call-second of
the event loop, the engine's process, its busiest other threads, the sidecar and the driver; resident
memory at the level's start and end; load average; the engine's cache lookups). docs/webrtc.md,
"Ninth pass" and "Tenth pass", has the figures.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from mockengine.bench.webrtc_capacity import EngineProbe, measure_level, plane_engine_args, start_plane_engine


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
    if args.engine_tree:  # the engine subprocess imports mockengine from there; this process keeps its own
        os.environ["PYTHONPATH"] = str(Path(args.engine_tree).resolve())
    drivers = args.drivers.split(",")
    for plane in args.planes.split(","):
        child = start_plane_engine(plane_engine_args(plane, args.udp_port), drivers[0], port=args.port)
        probe = EngineProbe(child.process.pid)
        try:
            for level, driver in ((int(n), d) for n in args.levels.split(",") for d in drivers):
                row = measure_level(probe, driver, child.url, level, args.seconds, args.per_driver)
                labels = {"plane": plane, "driver": driver, "engine": args.engine_tree or "this checkout"}
                print(json.dumps(labels | row), flush=True)
        finally:
            child.stop()


if __name__ == "__main__":
    main()
