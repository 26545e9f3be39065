"""Instructions per talking session-second: the engine against the bare baseline, one scripted load.

Issue 15's CPU goal compares the engine's CPU per talking session-second with the bare aiohttp
baseline's (``mockengine/loadtest/baseline.py``). On a shared machine wall-clock CPU moves ±20 % with the
load, so this tool counts **instructions** under valgrind's callgrind, which do not (docs/cpu.md, ninth
pass). The same scripted input goes into both servers over a real loopback WebSocket:

* ``--sessions`` talking sessions, each a fixed seeded script of 20 ms ``input_audio_buffer.append``
  messages (PCM16 24 kHz), the study rhythm ``bench --only load`` uses: digital silence between turns,
  a turn every ~``--turn-every`` s (one of the conformance clips), and with probability ``--barge-in``
  a ``response.cancel`` 1.2 s of audio after the clip ends (while the reply plays) followed by the
  ``interrupt`` clip. Every session starts with a ``session.update`` (``server_vad``, 500 ms).
  The script does not depend on what the server answers, so both servers get byte-identical input
  (its SHA-256 is printed).
* The engine is ``serve``'s application (``create_app``, the load bench's settings) on the stand-in
  models (``engines/fakes.py``): whisper and piper under valgrind take minutes a call and starve the
  event loop. The stand-in's tones are kept in a speech cache by sentence, as piper's are, so after the
  warm-up a reply's speech is a cache hit on the event loop, as in a warm engine (``--uncached-speech``:
  a numpy tone per sentence in the thread pool every time, which no warm engine does; docs/cpu.md,
  eleventh pass). The baseline is ``mockengine.loadtest.baseline`` as the bench starts it.
* Each server runs under ``valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes``.
  After start-up and a warm-up run of the same script (the engine's transcript and speech caches fill),
  and a 12 s pause (the reclaimer's collection after the warm-up's sessions end), instrumentation is
  switched on with ``callgrind_control -i on``, the script is played, the tool waits
  until the server has been quiet for a while (the last reply done), and ``callgrind_control -d`` dumps
  the counts of that window only.
* Time is dilated by ``--slow`` (default 6): a 20 ms append leaves every 20 × slow ms and the engine
  paces its replies at ``3/slow`` (its default pace, 3 × real time, dilated alike), so under valgrind's
  slowdown each frame still arrives on its own, as it does natively, and replies interleave with the
  input as they would. The count is per session-second of *audio*.

Prints, for each server, instructions per session-second for the whole process and for its main
(event-loop) thread, and the engine's ratio to the baseline (whole / loop thread). The input and the
engine's seeded output are fixed; the count still moves by up to ~5 % with how many frames each wake-up
finds (the machine's load), far less than wall-clock CPU. ``OPENBLAS_NUM_THREADS=1``: idle BLAS threads
spin under valgrind.

Usage: ``PYTHONPATH=$PWD .venv/bin/python tools/append_bench.py [--sessions 4] [--seconds 20]
[--only engine|baseline] [--keep DIR]``. Takes a few minutes (two valgrind runs side by side).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from mockengine.conformance.audio import load_clips
from mockengine.loadtest.participant import CHUNK_MS, SILENCE, ClipMessages
from mockengine.loadtest.processes import free_port

TURN_CLIPS = ("question", "colour_question", "interrupt")  # as the load bench draws them
BARGE_AFTER_MS = 1200
CANCEL = json.dumps({"type": "response.cancel"})
SESSION_UPDATE = json.dumps(
    {
        "type": "session.update",
        "session": {
            "type": "realtime",
            "audio": {"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 500}}},
        },
    }
)


def session_script(index: int, seconds: float, seed: int, turn_every_s: float, barge_in: float) -> list[str]:
    """One session's messages, one per 20 ms slot (a ``response.cancel`` shares its slot's wake-up)."""
    clips = {name: ClipMessages.of(clip) for name, clip in load_clips().items() if name in TURN_CLIPS}
    rng = random.Random(seed * 1_000_003 + index)
    slots = int(seconds * 1000 // CHUNK_MS)
    script: list[str] = [SESSION_UPDATE]
    next_turn = int(rng.uniform(0.2, 1.0) * turn_every_s * 1000 // CHUNK_MS)
    while len(script) < slots:
        if len(script) < next_turn:
            script.append(SILENCE)
            continue
        turn_at = len(script)
        clip = clips[rng.choice(TURN_CLIPS)]
        script.extend(clip.messages)
        if rng.random() < barge_in:
            script.extend([SILENCE] * (BARGE_AFTER_MS // CHUNK_MS))
            script.append(CANCEL)
            script.extend(clips["interrupt"].messages)
        next_turn = turn_at + int(rng.uniform(0.8, 1.2) * turn_every_s * 1000 // CHUNK_MS)
    return script[:slots]


def serve_engine(
    host: str, port: int, pace: float, timer_scale: float = 1.0, speech_cache: bool = True
) -> None:
    """The engine's application as ``serve`` builds it, on the stand-in models (``engines/fakes.py``: a
    scripted transcript, a tone per sentence), with the load bench's settings (``bench/context.py``).
    ``timer_scale``: the process's own periodic checks (the loop-lag probe, the WebRTC fault clock, 10 a
    second each whatever the number of sessions) run that many times less often (``--dilate-timers``).
    ``speech_cache``: the stand-in's tones kept by sentence as piper's are (off: ``--uncached-speech``)."""
    from aiohttp import web

    from mockengine.server import admission
    from mockengine.server.app import create_app
    from mockengine.server.resources import make_fake_resources
    from mockengine.server.webrtc import calls
    from mockengine.settings import Settings

    admission.PROBE_INTERVAL_S *= timer_scale  # (both read at every wake-up)
    calls.FAULT_CLOCK_S *= timer_scale

    settings = Settings(seed=1, audio_pace=pace, first_delta_delay_ms=0, max_sessions=0, log_level="WARNING")
    resources = make_fake_resources(settings, speech_cache=speech_cache)
    web.run_app(create_app(settings, resources), host=host, port=port, print=None)


@dataclass
class Server:
    name: str
    process: subprocess.Popen[bytes]
    port: int
    out_dir: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/realtime?model=gpt-realtime"

    def control(self, *args: str) -> None:
        subprocess.run(["callgrind_control", *args, str(self.process.pid)], check=True, capture_output=True)

    def counts(self) -> tuple[int, int]:
        """(whole process, main thread) instructions of the first dump (``callgrind_control -d``)."""
        whole = main = 0
        for path in self.out_dir.glob("cg.out.1-*"):
            totals = next(
                (line for line in path.read_text().splitlines() if line.startswith(("totals:", "summary:"))),
                None,
            )
            count = int(totals.split()[1]) if totals else 0
            whole += count
            if path.name.endswith("-01"):
                main = count
        return whole, main


def start(
    name: str, port: int, out_dir: Path, slow: float, dilate_timers: bool = False, speech_cache: bool = True
) -> Server:
    env = dict(os.environ)
    if name == "engine":
        module = [__file__, "--serve-engine", "--pace", f"{3.0 / slow:g}"]
        if dilate_timers:
            module += ["--timer-scale", f"{slow:g}"]
        if not speech_cache:
            module += ["--uncached-speech"]
        env["PYTHONMALLOC"] = "malloc"  # serve's default allocator
    else:
        module = ["-m", "mockengine.loadtest.baseline"]
    env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = "1"  # idle BLAS threads spin under valgrind
    command = [
        *([] if not VALGRIND else ["valgrind"]),
        *(
            []
            if not VALGRIND
            else [
                "--tool=callgrind",
                "--instr-atstart=no",
                "--separate-threads=yes",
                f"--callgrind-out-file={out_dir}/cg.out",
            ]
        ),
        sys.executable,
        *module,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    log = (out_dir / "server.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    return Server(name, process, port, out_dir)


async def wait_ready(server: Server, timeout_s: float = 900.0) -> None:
    deadline = time.monotonic() + timeout_s
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                raise RuntimeError(
                    f"{server.name} exited: {(server.out_dir / 'server.log').read_text()[-2000:]}"
                )
            try:
                async with http.get(f"http://127.0.0.1:{server.port}/healthz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(1.0)
    raise RuntimeError(f"{server.name} did not answer /healthz within {timeout_s:.0f} s")


VALGRIND = True


class Quiet:
    """The time the last server event arrived, over every session of a run."""

    def __init__(self) -> None:
        self.last = time.monotonic()
        self.events = 0
        self.kinds: dict[str, int] = {}


async def play(http: aiohttp.ClientSession, url: str, script: list[str], slot_s: float, quiet: Quiet) -> None:
    async with http.ws_connect(url, headers={"Authorization": "Bearer sk-bench"}, max_msg_size=0) as ws:
        first = await ws.receive()  # session.created
        if first.type != aiohttp.WSMsgType.TEXT:
            raise RuntimeError(f"no session.created: {first}")

        async def read() -> None:
            async for msg in ws:
                quiet.last = time.monotonic()
                quiet.events += 1
                kind = json.loads(msg.data).get("type", "?") if msg.type == aiohttp.WSMsgType.TEXT else "?"
                quiet.kinds[kind] = quiet.kinds.get(kind, 0) + 1

        reader = asyncio.create_task(read())
        loop = asyncio.get_running_loop()
        base = loop.time()
        for k, message in enumerate(script):
            delay = base + k * slot_s - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            await ws.send_str(message)
        while time.monotonic() - quiet.last < slot_s * 200:  # 4 s of audio time with nothing sent back
            await asyncio.sleep(slot_s * 10)
        await ws.close()
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)


async def run_script(server: Server, scripts: list[list[str]], slot_s: float) -> int:
    quiet = Quiet()
    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(play(http, server.url, s, slot_s, quiet) for s in scripts))
    await asyncio.sleep(2.0)  # the server closes its sessions
    print(f"  {server.name}: {quiet.events} events {dict(sorted(quiet.kinds.items()))}", flush=True)
    return quiet.events


async def measure(server: Server, scripts: list[list[str]], slot_s: float, warm_up: bool) -> dict[str, float]:
    await wait_ready(server)
    if warm_up:  # uninstrumented valgrind runs a few times faster: the warm-up needs less dilation
        await run_script(server, scripts, slot_s / 3)
        # The sessions that ended start the reclaimer's full collection 5 s later (server/reclaim.py):
        # let it run before counting, as it would between waves of a study, not inside the window.
        await asyncio.sleep(12.0)
    server.control("-i", "on")
    events = await run_script(server, scripts, slot_s)
    server.control("-d")
    server.control("-i", "off")
    for _ in range(120):
        if list(server.out_dir.glob("cg.out.1-01")):
            break
        await asyncio.sleep(0.5)
    await asyncio.sleep(2.0)
    whole, main = server.counts()
    return {"whole": whole, "main": main, "events": events}


async def main_async(args: argparse.Namespace) -> None:
    scripts = [
        session_script(i, args.seconds, args.seed, args.turn_every, args.barge_in)
        for i in range(args.sessions)
    ]
    digest = hashlib.sha256("\n".join("\n".join(s) for s in scripts).encode()).hexdigest()[:16]
    audio_s = args.sessions * len(scripts[0]) * CHUNK_MS / 1000
    print(f"script: {args.sessions} sessions × {args.seconds:g} s, seed {args.seed}, sha256 {digest}")
    slot_s = CHUNK_MS / 1000 * args.slow
    root = Path(args.keep or tempfile.mkdtemp(prefix="append-bench-"))
    names = ["engine", "baseline"] if args.only is None else [args.only]
    servers = []
    port = args.port
    for name in names:
        out_dir = root / name
        out_dir.mkdir(parents=True, exist_ok=True)
        servers.append(
            start(name, port or free_port(), out_dir, args.slow, args.dilate_timers, not args.uncached_speech)
        )
        port = port + 1 if port else 0
    try:
        results = await asyncio.gather(*(measure(s, scripts, slot_s, s.name == "engine") for s in servers))
    finally:
        for server in servers:
            server.process.terminate()
            try:
                server.process.wait(60)
            except subprocess.TimeoutExpired:
                server.process.kill()
    figures = {}
    for server, result in zip(servers, results, strict=True):
        per_s = {k: result[k] / audio_s for k in ("whole", "main")}
        figures[server.name] = per_s
        print(
            f"{server.name:9s} instructions per session-second: whole {per_s['whole'] / 1e6:8.2f} M, "
            f"event-loop thread {per_s['main'] / 1e6:8.2f} M  ({int(result['events'])} events received)"
        )
    if len(figures) == 2:
        e, b = figures["engine"], figures["baseline"]
        print(
            f"engine / baseline: whole {e['whole'] / b['whole']:.2f} ×, "
            f"loop thread {e['main'] / b['main']:.2f} ×"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"digest": digest, "audio_s": audio_s, **figures}, indent=1))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0, help="audio per session")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--turn-every", type=float, default=10.0)
    parser.add_argument("--barge-in", type=float, default=0.2)
    parser.add_argument("--slow", type=float, default=6.0, help="time dilation under valgrind")
    parser.add_argument("--only", choices=["engine", "baseline"])
    parser.add_argument("--port", type=int, default=0, help="first port (the next for the second server)")
    parser.add_argument("--serve-engine", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--pace", type=float, default=3.0, help=argparse.SUPPRESS)
    parser.add_argument("--timer-scale", type=float, default=1.0, help=argparse.SUPPRESS)
    parser.add_argument(
        "--dilate-timers",
        action="store_true",
        help="dilate the engine's per-process periodic checks by --slow too (docs/cpu.md, tenth pass)",
    )
    parser.add_argument(
        "--uncached-speech",
        action="store_true",
        help="the stand-in synthesizer makes every reply's tone in the thread pool, as before the "
        "eleventh pass (docs/cpu.md); by default its tones are cached by sentence as piper's are",
    )
    parser.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--keep", help="keep callgrind's files in this directory")
    args = parser.parse_args()
    if args.serve_engine:
        serve_engine(args.host, args.port, args.pace, args.timer_scale, not args.uncached_speech)
        return
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
