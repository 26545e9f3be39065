"""``mockengine bench``: figures for this machine, printed (never asserted).

* ``audio``: webrtcvad frame classification cost per 20 ms frame.
* ``session``: one real engine on loopback, one session, the recorded question streamed at real-time
  pace several times: speech onset → ``speech_started``, ``speech_stopped`` → first audio delta, and the
  reply's real-time factor (synthesis time / audio duration).
* ``semantic``: issue 4's turn-detection table on the labelled utterance set (``turn_eval``).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
UTTERANCES = REPO / "tests" / "data" / "utterances"
QUESTION = REPO / "tests" / "data" / "question"
TURNS = 5


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


async def _session_bench() -> dict[str, list[float]]:
    import aiohttp
    from aiohttp import web

    from mockengine.server.app import create_app
    from mockengine.server.state import RESOURCES
    from mockengine.settings import Settings

    app = create_app(Settings(seed=1))
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    resources = app[RESOURCES]
    pcm = _read_wav_24k(QUESTION.with_suffix(".wav"))
    label = json.loads(QUESTION.with_suffix(".json").read_text())
    figures: dict[str, list[float]] = {"onset": [], "response": [], "rtf": [], "stream": []}
    loop = asyncio.get_running_loop()
    try:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(
                f"ws://127.0.0.1:{port}/v1/realtime?model=gpt-realtime",
                headers={"Authorization": "Bearer sk-bench"},
            ) as ws,
        ):
            await ws.send_str(
                json.dumps(
                    {
                        "type": "session.update",
                        "session": {
                            "type": "realtime",
                            "audio": {
                                "input": {
                                    "turn_detection": {"type": "server_vad", "silence_duration_ms": 500}
                                }
                            },
                        },
                    }
                )
            )
            times: dict[str, float] = {}
            deltas: list[tuple[float, int]] = []
            done = asyncio.Event()
            transcript: dict[str, str] = {}

            async def read() -> None:
                async for msg in ws:
                    event = json.loads(msg.data)
                    now = loop.time()
                    kind = event["type"]
                    if kind in ("input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped"):
                        times[kind] = now
                    elif kind == "response.output_audio.delta":
                        deltas.append((now, len(base64.b64decode(event["delta"]))))
                    elif kind == "response.output_audio_transcript.done":
                        transcript["text"] = event["transcript"]
                    elif kind == "response.done":
                        done.set()

            reader = asyncio.create_task(read())
            for _ in range(TURNS):
                times.clear()
                deltas.clear()
                done.clear()
                audio = pcm + bytes(48 * 800)
                start = loop.time()
                onset_wall = start + label["speech_start_ms"] / 1000
                for index, offset in enumerate(range(0, len(audio), 960)):
                    await ws.send_str(
                        json.dumps(
                            {
                                "type": "input_audio_buffer.append",
                                "audio": base64.b64encode(audio[offset : offset + 960]).decode(),
                            }
                        )
                    )
                    await asyncio.sleep(max(0.0, start + (index + 1) * 0.02 - loop.time()))
                silence = base64.b64encode(bytes(960)).decode()
                while not done.is_set():
                    await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": silence}))
                    await asyncio.sleep(0.02)
                figures["onset"].append((times["input_audio_buffer.speech_started"] - onset_wall) * 1000)
                figures["response"].append((deltas[0][0] - times["input_audio_buffer.speech_stopped"]) * 1000)
                audio_ms = sum(n for _, n in deltas) / 48
                figures["stream"].append(audio_ms / max(1.0, (deltas[-1][0] - deltas[0][0]) * 1000))
                synth_started = time.perf_counter()
                resources.synthesizer.synthesize(transcript["text"] + " ", voice="alloy")
                figures["rtf"].append((time.perf_counter() - synth_started) * 1000 / audio_ms)
                await asyncio.sleep(0.5)
            reader.cancel()
    finally:
        await runner.cleanup()
    return figures


def bench_session() -> None:
    figures = asyncio.run(_session_bench())
    print(f"\nsession: {TURNS} spoken turns, one session, real-time streaming, server_vad 500 ms:")
    for key, title in (
        ("onset", "speech onset → speech_started"),
        ("response", "speech_stopped → first audio delta"),
    ):
        values = figures[key]
        print(f"  {title:<38} median {statistics.median(values):6.0f} ms   p95 {_p95(values):6.0f} ms")
    print(
        f"  {'reply synthesis real-time factor':<38} median {statistics.median(figures['rtf']):6.3f}"
        f"      (piper compute time / audio duration)"
    )
    print(
        f"  {'reply streaming speed':<38} median {statistics.median(figures['stream']):6.1f} ×"
        f"     real time (--audio-pace)"
    )


def run_bench(args: argparse.Namespace) -> int:
    parts: list[str] = args.only or ["audio", "session", "semantic"]
    if "audio" in parts:
        bench_audio()
    if "session" in parts:
        bench_session()
    if "semantic" in parts:
        bench_turns()
    return 0
