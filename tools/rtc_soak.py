"""A soak of WebRTC calls against ``serve`` (docs/memory.md, "WebRTC calls"): waves of talking calls,
RSS sampled, growth per call-minute and RSS after each wave (:mod:`mockengine.bench.rtc_soak`).

Usage: ``.venv/bin/python tools/rtc_soak.py --calls 5 --waves 12,4,4 [--engine-args "..."] [--json F]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from mockengine.bench.rtc_soak import RtcSoakRun, run_rtc_soak, summary
from mockengine.loadtest.processes import start_server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=5, help="talking calls per wave")
    parser.add_argument("--waves", default="12,4,4", help="minutes of each wave, comma-separated")
    parser.add_argument("--sample-s", type=float, default=10.0)
    parser.add_argument("--warm-up-s", type=float, default=20.0, help="one call first, not measured")
    parser.add_argument("--engine-args", default="", help="more arguments for serve")
    parser.add_argument("--json", default=None, help="write the summary and every sample here")
    args = parser.parse_args()

    async def go() -> RtcSoakRun:
        engine = await start_server(args.engine_args.split())
        try:
            return await run_rtc_soak(
                engine,
                calls=args.calls,
                wave_minutes=[float(m) for m in args.waves.split(",")],
                sample_s=args.sample_s,
                warm_up_s=args.warm_up_s,
                verbose=True,
            )
        finally:
            engine.stop()

    run = asyncio.run(go())
    result = summary(run)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({**result, "samples": [s.__dict__ for s in run.samples]}, out, indent=1)
    json.dump(result, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
