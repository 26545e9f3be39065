"""``mockengine bench``: figures for this machine, printed (never asserted).

* ``audio``: webrtcvad frame classification cost per 20 ms frame.
* ``session``: one real engine on loopback, one session, the recorded question streamed at real-time
  pace several times: speech onset → ``speech_started``, ``speech_stopped`` → first audio delta, and the
  reply's real-time factor (synthesis time / audio duration).
* ``load``: N concurrent sessions each speaking one question: ``speech_stopped`` → first audio delta.
* ``semantic``: issue 4's turn-detection table on the labelled utterance set (``turn_eval``).
* ``chat``: Chat Completions throughput and p50/p95 latency at 8 and 64 clients (``chat.bench``).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import functools
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
UTTERANCES = REPO / "tests" / "data" / "utterances"
QUESTION = REPO / "tests" / "data" / "question"
TURNS = 5
LOAD_SESSIONS = (1, 4, 8, 16)
CHUNK_BYTES = 20 * 48


def _fmt(value: float | None, unit: str = " ms") -> str:
    return "n/a" if value is None else f"{value:.0f}{unit}"


def _p95(values: list[float]) -> float:
    data = sorted(values)
    return data[min(len(data) - 1, round(0.95 * (len(data) - 1)))]


def bench_audio() -> None:
    from mockengine.audio.bench import bench_frame_classifier

    print(f"audio: webrtcvad frame classification {bench_frame_classifier(10.0):.1f} µs per 20 ms frame")


def _read_wav_24k(path: Path) -> bytes:
    import wave

    import numpy as np
    import soxr

    with wave.open(str(path), "rb") as handle:
        rate = handle.getframerate()
        samples = np.frombuffer(handle.readframes(handle.getnframes()), dtype="<i2")
    resampled = soxr.resample(samples.astype(np.float32) / 32768.0, rate, 24_000)
    return np.clip(np.rint(resampled * 32768.0), -32768, 32767).astype("<i2").tobytes()


def bench_turns() -> None:
    from mockengine.engines.stt import WhisperTranscriber
    from mockengine.turn_eval import CONFIGS, CachingTranscriber, load_labels, run_utterance, summarize

    if not (UTTERANCES / "labels.json").exists():
        print("semantic: labelled set not found (run from a source checkout)")
        return
    labels = load_labels(UTTERANCES)
    transcriber = CachingTranscriber(WhisperTranscriber())
    outcomes = []
    started = time.perf_counter()
    for label in labels:
        pcm = _read_wav_24k(UTTERANCES / label["file"])
        for name in CONFIGS:
            outcomes.append(run_utterance(label, pcm, name, transcriber, measured_latency=True))
    kinds = {k: sum(1 for lab in labels if lab["kind"] == k) for k in ("complete", "question", "trailing")}
    print(
        f"\nturn detection on {len(labels)} utterances ({kinds}), whisper tiny.en on this machine "
        f"({time.perf_counter() - started:.0f} s):"
    )
    print(
        f"  {'config':<22}{'end→stopped (policy)':>22}{'incl. STT, median':>19}{'p95':>8}"
        f"{'cut off mid-thought':>22}"
    )
    for name in CONFIGS:
        s = summarize(outcomes, name)
        print(
            f"  {name:<22}{_fmt(s['median_policy_delay_ms']):>22}{_fmt(s['median_wall_delay_ms']):>19}"
            f"{_fmt(s['p95_wall_delay_ms']):>8}"
            f"{s['cut_off']:>8}/{s['trailing_counted']:<3} ({100 * s['cut_off_share']:.0f} %)"
        )
    print(
        "  policy = audio the engine waited for after the speech ended; incl. STT adds the measured "
        "transcription latency (semantic_vad must hear the words before it decides)."
    )


@dataclass
class TurnFigures:
    onset_ms: float  # speech onset sent → speech_started received
    response_ms: float  # speech_stopped received → first audio delta received
    audio_ms: float  # reply audio length
    stream_speed: float  # reply audio length / time its deltas took to arrive
    transcript: str


async def _spoken_turn(ws: Any, pcm: bytes, speech_start_ms: int) -> TurnFigures:
    """Stream one recorded question at real-time pace (then silence) and time the engine's answer."""
    loop = asyncio.get_running_loop()
    times: dict[str, float] = {}
    deltas: list[tuple[float, int]] = []
    transcript = ""
    done = asyncio.Event()

    async def read() -> None:
        nonlocal transcript
        async for msg in ws:
            event = json.loads(msg.data)
            kind = event["type"]
            if kind.startswith("input_audio_buffer.speech_"):
                times.setdefault(kind, loop.time())
            elif kind == "response.output_audio.delta":
                deltas.append((loop.time(), len(base64.b64decode(event["delta"]))))
            elif kind == "response.output_audio_transcript.done":
                transcript = event["transcript"]
            elif kind == "response.done":
                done.set()
                return

    reader = asyncio.create_task(read())
    audio = pcm + bytes(48 * 800)
    start = loop.time()
    for index, offset in enumerate(range(0, len(audio), CHUNK_BYTES)):
        chunk = base64.b64encode(audio[offset : offset + CHUNK_BYTES]).decode()
        await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": chunk}))
        await asyncio.sleep(max(0.0, start + (index + 1) * 0.02 - loop.time()))
    silence = base64.b64encode(bytes(CHUNK_BYTES)).decode()
    while not done.is_set():
        await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": silence}))
        await asyncio.sleep(0.02)
    await reader
    audio_ms = sum(n for _, n in deltas) / 48
    return TurnFigures(
        onset_ms=(times["input_audio_buffer.speech_started"] - start - speech_start_ms / 1000) * 1000,
        response_ms=(deltas[0][0] - times["input_audio_buffer.speech_stopped"]) * 1000,
        audio_ms=audio_ms,
        stream_speed=audio_ms / max(1.0, (deltas[-1][0] - deltas[0][0]) * 1000),
        transcript=transcript,
    )


async def _with_engine(work: Callable[[int, Any], Awaitable[Any]]) -> Any:
    """Run ``work(port, resources)`` against a real engine (default settings) on a free loopback port."""
    from aiohttp import web

    from mockengine.server.app import create_app
    from mockengine.server.state import RESOURCES
    from mockengine.settings import Settings

    app = create_app(Settings())
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        return await work(port, app[RESOURCES])
    finally:
        await runner.cleanup()


async def _sessions(port: int, count: int, turns: int) -> list[TurnFigures]:
    """``count`` concurrent sessions, each speaking ``turns`` questions one after another."""
    import aiohttp

    pcm = _read_wav_24k(QUESTION.with_suffix(".wav"))
    label = json.loads(QUESTION.with_suffix(".json").read_text())
    update = {
        "type": "session.update",
        "session": {
            "type": "realtime",
            "audio": {"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 500}}},
        },
    }

    async def one(http: aiohttp.ClientSession) -> list[TurnFigures]:
        url = f"ws://127.0.0.1:{port}/v1/realtime?model=gpt-realtime"
        async with http.ws_connect(url, headers={"Authorization": "Bearer sk-bench"}) as ws:
            await ws.send_str(json.dumps(update))
            results = []
            for _ in range(turns):
                results.append(await _spoken_turn(ws, pcm, label["speech_start_ms"]))
                await asyncio.sleep(0.3)
            return results

    async with aiohttp.ClientSession() as http:
        per_session = await asyncio.gather(*(one(http) for _ in range(count)))
    return [figures for session in per_session for figures in session]


def bench_session() -> None:
    async def work(port: int, resources: Any) -> tuple[list[TurnFigures], list[float]]:
        turns = await _sessions(port, 1, TURNS)
        rtf = []
        for turn in turns:  # the engine is unseeded here, so piper really runs (no cache)
            started = time.perf_counter()
            resources.synthesizer.synthesize(turn.transcript, voice="alloy")
            rtf.append((time.perf_counter() - started) * 1000 / turn.audio_ms)
        return turns, rtf

    turns, rtf = asyncio.run(_with_engine(work))
    print(f"\nsession: {TURNS} spoken turns, one session, real-time streaming, server_vad 500 ms:")
    _print_row("speech onset → speech_started", [t.onset_ms for t in turns])
    _print_row("speech_stopped → first audio delta", [t.response_ms for t in turns])
    print(
        f"  {'reply synthesis real-time factor':<38} median {statistics.median(rtf):6.3f}"
        "      (piper compute time / audio duration)"
    )
    print(
        f"  {'reply streaming speed':<38} median {statistics.median(t.stream_speed for t in turns):6.1f} ×"
        "     real time (--audio-pace)"
    )


def bench_load() -> None:
    print("\nload: N concurrent sessions, each speaking the question once (default settings, 2 workers):")
    for count in LOAD_SESSIONS:
        turns = asyncio.run(_with_engine(functools.partial(_load_round, count=count)))
        _print_row(f"{count:>2} sessions: stopped → first audio", [t.response_ms for t in turns])


async def _load_round(port: int, resources: Any, count: int) -> list[TurnFigures]:
    return await _sessions(port, count, 1)


def _print_row(title: str, values: list[float]) -> None:
    print(f"  {title:<38} median {statistics.median(values):6.0f} ms   p95 {_p95(values):6.0f} ms")


def run_bench(args: argparse.Namespace) -> int:
    parts: list[str] = args.only or ["audio", "session", "load", "semantic", "chat"]
    if "audio" in parts:
        bench_audio()
    if "session" in parts:
        bench_session()
    if "load" in parts:
        bench_load()
    if "semantic" in parts:
        bench_turns()
    if "chat" in parts:
        from mockengine.chat.bench import bench_chat

        bench_chat()
    return 0
