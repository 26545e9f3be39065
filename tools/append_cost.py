"""What one 20 ms append costs the session, on the VAD's numpy path and its C path (docs/cpu.md, sixth pass).

Usage: ``PYTHONPATH=. .venv/bin/python tools/append_cost.py [--callgrind] [--appends 3000]``

Feeds ``RealtimeSession.receive_audio`` (a seeded ``server_vad`` session) 20 ms appends of three kinds:
*quiet* (noise at about -64 dBFS, under the energy gate, between turns), *talking* (voiced audio in
a turn, every frame classified by webrtcvad) and *conversation* (8 s quiet, 3 s talking, over and over:
a turn's onset, commit and probe among the appends; twenty-first pass). With ``--callgrind`` and more
than 750 appends, *quiet* includes the buffer's trim to its 15 s between turns. Prints µs per append,
best of 7 runs with the two paths alternating in one process; with ``--callgrind``, instructions per
append instead, counted by valgrind's callgrind inside the measured appends only (each kind and path in
a child process, after 200 appends of warm-up; deterministic, so it compares code on a busy machine
where wall-clock cannot). The C path needs ``mockengine/audio/_fastpath.c`` built (``pip install -e .``).
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import subprocess
import sys
import time

import numpy as np

from mockengine.audio import vad
from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions

FRAME_BYTES = 960  # 20 ms of PCM16 at 24 kHz
WARM_UP = 200
KINDS = ("quiet", "talking", "conversation")


def frames(kind: str, n: int) -> list[bytes]:
    if kind == "conversation":
        # Turns as a study has them: 8 s between turns, 3 s of talking (a commit, a probe, a drop of the
        # idle audio at each onset: the per-turn work, spread over its appends).
        quiet, talking = frames("quiet", 400), frames("talking", 150)
        cycle = quiet + talking
        return [cycle[i % len(cycle)] for i in range(n)]
    if kind == "quiet":
        noise = np.random.default_rng(1).normal(0, 20, 480 * n)
        pcm = noise.astype("<i2").tobytes()
    else:
        voiced = synthetic_voiced_pcm16(1200)
        pcm = (voiced * (FRAME_BYTES * n // len(voiced) + 1))[: FRAME_BYTES * n]
    return [pcm[i * FRAME_BYTES : (i + 1) * FRAME_BYTES] for i in range(n)]


def session(native: bool) -> RealtimeSession:
    vad.NATIVE_AVAILABLE = native  # read when the session builds its FrameClassifier
    return RealtimeSession(
        SessionOptions(
            model="gpt-realtime",
            pacing=Pacing(pace=0.0, first_delta_delay_ms=0),
            created_at_s=1_700_000_000,
            max_input_buffer_ms=900_000,
        ),
        brain=ScriptedBrain(load_scenario(None), seed=3),
        ids=IdFactory(3),
        tokens=TokenCounter(None),
        describe_image=describe_image,
    )


def microseconds(appends: int, paths: list[bool]) -> None:
    best: dict[tuple[str, bool], float] = {}
    for kind in KINDS:
        pcm = frames(kind, appends)
        for _ in range(7):
            for native in paths:
                s = session(native)
                started = time.perf_counter()
                for n, frame in enumerate(pcm):
                    s.receive_audio(frame, None, 20.0 * (n + 1))
                spent = (time.perf_counter() - started) / appends * 1e6
                best[kind, native] = min(best.get((kind, native), spent), spent)
    for (kind, native), spent in sorted(best.items()):
        print(f"{kind:8} {'C' if native else 'numpy':6} {spent:.2f} µs per append")
    print(f"load average {os.getloadavg()[0]:.1f}")


def inner(kind: str, native: bool, appends: int) -> None:
    """One measured run under callgrind: it collects inside ``starmap_next`` only, i.e. the appends."""
    pcm = frames(kind, WARM_UP + appends)
    s = session(native)
    for n, frame in enumerate(pcm[:WARM_UP]):
        s.receive_audio(frame, None, 20.0 * (n + 1))
    calls = [(frame, None, 20.0 * (WARM_UP + n + 1)) for n, frame in enumerate(pcm[WARM_UP:])]
    for _ in itertools.starmap(s.receive_audio, calls):
        pass


def instructions(appends: int, paths: list[bool]) -> None:
    for kind in KINDS:
        for native in paths:
            command = [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                "--toggle-collect=starmap_next",
                "--callgrind-out-file=/dev/null",
                sys.executable,
                __file__,
                "--inner",
                f"{kind},{int(native)}",
                "--appends",
                str(appends),
            ]
            env = {**os.environ, "PYTHONHASHSEED": "0"}
            done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
            collected = re.search(r"Collected : (\d+)", done.stderr)
            assert collected is not None, done.stderr[-2000:]
            per_append = int(collected[1]) / appends
            print(f"{kind:8} {'C' if native else 'numpy':6} {per_append:,.0f} instructions per append")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callgrind", action="store_true", help="count instructions under valgrind")
    parser.add_argument("--appends", type=int, default=3000, help="measured appends per run")
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        kind, native = args.inner.split(",")
        inner(kind, native == "1", args.appends)
        return
    paths = [False, True] if vad.NATIVE_AVAILABLE else [False]
    if not vad.NATIVE_AVAILABLE:
        print("mockengine.audio._fastpath is not built: the numpy path only")
    if args.callgrind:
        instructions(min(args.appends, 5500), paths)
    else:
        microseconds(args.appends, paths)


if __name__ == "__main__":
    main()
