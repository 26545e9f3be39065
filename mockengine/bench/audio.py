"""``--only audio``: cost of the per-session audio path per 20 ms chunk (webrtcvad alone, and parse +
session), in CPU time; and ``bare_session()``, the model-free session the chunk bench and the hot-path
tests use."""

from __future__ import annotations

import base64
import json
import time
from typing import TYPE_CHECKING

from mockengine.audio.pcm import ms_to_samples
from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.audio.vad import FRAME_MS, FrameClassifier
from mockengine.bench.context import BenchContext
from mockengine.bench.sections import Section

if TYPE_CHECKING:
    from mockengine.realtime.session import RealtimeSession


def bench_frame_classifier(seconds: float) -> float:
    """Push `seconds` of audio (alternating 1 s voiced / 1 s silence) in 20 ms chunks through a
    `FrameClassifier`; return the mean cost in µs per 20 ms frame (resampling + gate + webrtcvad)."""
    voiced = synthetic_voiced_pcm16(1000)
    pattern = voiced + bytes(len(voiced))
    total_samples = ms_to_samples(seconds * 1000)
    repeats = -(-2 * total_samples // len(pattern))
    audio = (pattern * repeats)[: 2 * total_samples]
    chunk_bytes = 2 * ms_to_samples(FRAME_MS)
    chunks = [audio[i : i + chunk_bytes] for i in range(0, len(audio), chunk_bytes)]
    classifier = FrameClassifier()
    n_frames = 0
    started = time.thread_time()  # CPU time: the cost, whatever else the machine runs
    for chunk in chunks:
        n_frames += len(classifier.push(chunk))
    elapsed = time.thread_time() - started
    return elapsed * 1e6 / max(n_frames, 1)


def bare_session() -> RealtimeSession:
    """A started session with the default scenario's brain and no models (the shell's work — speech,
    transcripts — is the caller's): for measuring and checking the session core on its own."""
    from mockengine.brain.participant import ScriptedBrain
    from mockengine.brain.scenario import load_scenario
    from mockengine.engines.tokens import TokenCounter
    from mockengine.ids import IdFactory
    from mockengine.realtime.session import RealtimeSession, SessionOptions

    session = RealtimeSession(
        SessionOptions(model="gpt-realtime"),
        brain=ScriptedBrain(load_scenario(None), seed=1),
        ids=IdFactory(1),
        tokens=TokenCounter(None),
        describe_image=lambda _url: None,  # type: ignore[arg-type,return-value]
    )
    session.start()
    return session


def bench_chunk_path(seconds: float = 2.0) -> float:
    """Mean µs for one 20 ms ``input_audio_buffer.append`` through the parse boundary and a session with
    ``server_vad`` (base64, input buffer, resampling, webrtcvad, turn detection), on speech-like audio;
    the path the server takes (``parse_plain_append`` → ``receive_audio``)."""
    from mockengine.protocol.client_events import parse_plain_append

    session = bare_session()
    voiced = synthetic_voiced_pcm16(1000)
    silence = bytes(len(voiced))
    chunk_bytes = 960
    messages = [
        json.dumps(
            {
                "type": "input_audio_buffer.append",
                "audio": base64.b64encode(pcm[i : i + chunk_bytes]).decode(),
            }
        )
        for pcm in (voiced, silence)
        for i in range(0, len(pcm), chunk_bytes)
    ]
    now_ms = 0.0
    count = 0
    started = time.thread_time()  # CPU time: the cost, whatever else the machine runs
    while time.thread_time() - started < seconds:
        for message in messages:
            plain = parse_plain_append(message)
            assert plain is not None
            session.receive_audio(*plain, now_ms)
            now_ms += 20.0
        count += len(messages)
    return (time.thread_time() - started) * 1e6 / count


def bench_audio(ctx: BenchContext) -> None:
    vad_us = bench_frame_classifier(10.0)
    chunk_us = bench_chunk_path(2.0)
    print(f"audio: webrtcvad frame classification {vad_us:.1f} µs per 20 ms frame")
    print(
        f"audio: one 20 ms append through parse + session (base64, resampling, VAD, turn detection) "
        f"{chunk_us:.1f} µs = {chunk_us * 50 / 10_000:.2f} % of a core per streaming session"
    )
    ctx.results["audio"] = {"vad_frame_us": vad_us, "append_path_us": chunk_us}


SECTION = Section("audio", bench_audio)
