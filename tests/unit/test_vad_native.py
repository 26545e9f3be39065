"""The VAD's C frame path (``mockengine.audio._fastpath``) gives exactly what its numpy path gives.

The same frames go through ``FrameClassifier(native=True)`` and ``FrameClassifier(native=False)``: real
recorded speech, silence, noise at many levels, frames scaled to sit just either side of the energy
gate, every threshold band (each webrtcvad mode), every frame length, chunkings that split frames and
samples; then whole sessions (seeded: events, ids and bytes), PCM16 and G.711. Skipped where the module
is not built (``pip install -e .`` builds it; ``setup.py build_ext --inplace`` in a checkout).
"""

from __future__ import annotations

import os
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mockengine.audio import vad
from mockengine.audio.g711 import from_pcm16_24k
from mockengine.audio.pcm import float32_to_pcm16, ms_to_samples
from mockengine.audio.resample import resample_pcm16
from mockengine.audio.vad import FrameClassifier, VadFrame, to_vad_rate
from mockengine.protocol import client_events as ce
from tests.unit.test_audio_fast_path import PAUSE, VOICED, _session

# Skipped only on a checkout where nobody built it; where CI runs (`make test` installs with
# `pip install -e .`, which compiles it) a missing module fails below instead of hiding here.
pytestmark = pytest.mark.skipif(
    not vad.NATIVE_AVAILABLE and not os.environ.get("CI"), reason="mockengine.audio._fastpath is not built"
)

UTTERANCES = Path(__file__).resolve().parents[1] / "data" / "utterances"
THRESHOLDS = [0.0, 0.1, 0.29, 0.3, 0.45, 0.49, 0.5, 0.6, 0.69, 0.7, 0.85, 1.0]


def _speech() -> bytes:
    """Five recorded utterances at 24 kHz, back to back."""
    clips = []
    for path in sorted(UTTERANCES.glob("*.wav"))[:5]:
        with wave.open(str(path)) as clip:
            clips.append(resample_pcm16(clip.readframes(clip.getnframes()), clip.getframerate(), 24_000))
    return b"".join(clips)


SPEECH = _speech()


def _noise(ms: int, dbfs: float, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    return float32_to_pcm16(rng.standard_normal(ms_to_samples(ms)) * 10 ** (dbfs / 20))


def _sum_square_16k(frame: bytes) -> int:
    samples = to_vad_rate(np.frombuffer(frame, dtype="<i2")).astype(np.int64)
    return int(samples.dot(samples))


def _at_gate(frame: bytes, threshold: float, frame_ms: int, above: bool) -> bytes:
    """``frame`` scaled so its 16 kHz energy is the smallest at or over the gate (``above``) or the largest
    under it: the frames where the numpy path's quick bound and its exact test must agree with C's."""
    gate = FrameClassifier(threshold, frame_ms, native=False)._min_sum_square
    source = np.frombuffer(frame, dtype="<i2").astype(np.float64)

    def scaled(gain: float) -> bytes:
        return np.clip(np.round(source * gain), -32768, 32767).astype("<i2").tobytes()

    low, high = 0.0, 64.0
    for _ in range(80):
        middle = (low + high) / 2
        if _sum_square_16k(scaled(middle)) >= gate:
            high = middle
        else:
            low = middle
    picked = scaled(high if above else low)
    assert (_sum_square_16k(picked) >= gate) is above
    return picked


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))


def _both(audio: bytes, chunk_bytes: int, threshold: float, frame_ms: int = 20) -> list[VadFrame]:
    results = []
    for native in (True, False):
        classifier = FrameClassifier(threshold, frame_ms, native=native)
        results.append([frame for chunk in _chunks(audio, chunk_bytes) for frame in classifier.push(chunk)])
    assert results[0] == results[1]
    return results[0]


def test_vad_input_is_to_vad_rate_and_the_gate_for_every_sample_pattern() -> None:
    rng = np.random.default_rng(7)
    frames = [rng.integers(-32768, 32768, 480, dtype=np.int64).astype("<i2").tobytes() for _ in range(200)]
    # Longer than the C code's stack buffer (480 sample triples): its heap buffer.
    frames += [
        rng.integers(-32768, 32768, n, dtype=np.int64).astype("<i2").tobytes()
        for n in (1437, 1440, 1443, 4800)
    ]
    # The extremes and odd negative sums, whose halves floor away from zero.
    frames += [np.full(480, v, dtype="<i2").tobytes() for v in (-32768, 32767, -1, 1, 0)]
    frames.append(np.tile(np.array([-32768, -32768, -32767], dtype="<i2"), 160).tobytes())
    frames.append(np.tile(np.array([5, -3, 0], dtype="<i2"), 160).tobytes())
    for frame in frames:
        expected = to_vad_rate(np.frombuffer(frame, dtype="<i2")).tobytes()
        energy = _sum_square_16k(frame)
        assert vad._native_vad_input is not None
        assert vad._native_vad_input(frame, 0.0) == expected
        assert vad._native_vad_input(memoryview(frame)[:], float(energy)) == expected
        assert vad._native_vad_input(frame, float(energy) + 1.0) is None


@pytest.mark.parametrize("length", [1, 2, 4, 961])
def test_vad_input_refuses_a_frame_that_is_not_whole_sample_triples(length: int) -> None:
    assert vad._native_vad_input is not None
    with pytest.raises(ValueError, match="groups of 3"):
        vad._native_vad_input(bytes(length), 0.0)


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_both_paths_classify_speech_silence_and_noise_alike(threshold: float) -> None:
    audio = b"".join(
        [SPEECH, bytes(48 * 500), *(_noise(400, dbfs, seed) for seed, dbfs in enumerate(range(-80, -10, 5)))]
    )
    frames = _both(audio, 960, threshold)
    assert any(f.is_speech for f in frames) and not all(f.is_speech for f in frames)


@pytest.mark.parametrize("frame_ms", [10, 20, 30])
@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_both_paths_agree_just_either_side_of_the_energy_gate(threshold: float, frame_ms: int) -> None:
    frame_bytes = 48 * frame_ms
    sources = [SPEECH[i : i + frame_bytes] for i in range(0, 48 * 6000, 48 * 300)]
    sources = [source for source in sources if _sum_square_16k(source) > 10_000]
    assert len(sources) >= 10
    sources.append(_noise(frame_ms, -30, seed=1))
    audio = b"".join(
        _at_gate(source, threshold, frame_ms, above) for source in sources for above in (False, True)
    )
    frames = _both(audio, frame_bytes, threshold, frame_ms)
    assert not any(frame.is_speech for frame in frames[0::2])  # under the gate: never speech


@pytest.mark.parametrize("chunk_bytes", [1, 7, 333, 960, 961, 1920, 4800, 48 * 37])
def test_both_paths_agree_however_the_audio_is_chunked(chunk_bytes: int) -> None:
    audio = SPEECH[: 48 * 3000] + _noise(500, -45, seed=3)
    assert _both(audio, chunk_bytes, 0.5) == _both(audio, 960, 0.5)


def test_a_threshold_change_moves_both_paths_alike() -> None:
    results = []
    for native in (True, False):
        classifier = FrameClassifier(0.5, native=native)
        frames = []
        for n, chunk in enumerate(_chunks(SPEECH[: 48 * 4000], 960)):
            if n % 25 == 0:
                classifier.set_threshold(THRESHOLDS[(n // 25) % len(THRESHOLDS)])
            frames.extend(classifier.push(chunk))
        results.append(frames)
    assert results[0] == results[1]


def _events(native: bool, chunk_bytes: int, input_format: str, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    monkeypatch.setattr(vad, "NATIVE_AVAILABLE", native)
    session = _session()
    session.start()
    pcm = (PAUSE + VOICED + PAUSE + SPEECH[: 48 * 2500] + PAUSE) * 2
    audio = pcm if input_format == "audio/pcm" else from_pcm16_24k(pcm, input_format)
    if input_format != "audio/pcm":
        update = {"type": "realtime", "audio": {"input": {"format": {"type": input_format}}}}
        session.receive(ce.SessionUpdate(update), 0.0)
    per_ms = len(audio) / (len(pcm) / 48)
    out = []
    for offset in range(0, len(audio), chunk_bytes):
        step = session.receive_audio(audio[offset : offset + chunk_bytes], None, offset / per_ms)
        out.append((step.events, step.effects))
    return out


@pytest.mark.parametrize(
    ("input_format", "chunk_bytes"),
    [("audio/pcm", 960), ("audio/pcm", 1441), ("audio/pcmu", 160), ("audio/pcma", 333)],
)
def test_a_seeded_session_gives_the_same_events_and_bytes_on_both_paths(
    input_format: str, chunk_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    native = _events(True, chunk_bytes, input_format, monkeypatch)
    assert native == _events(False, chunk_bytes, input_format, monkeypatch)
    kinds = {event["type"] for events, _ in native for event in events}
    assert {"input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped"} <= kinds


def test_the_native_module_is_built_where_ci_runs() -> None:
    """CI installs the package as the README says (``make test`` → ``pip install -e .``), which compiles
    ``_fastpath``; the engine there must run the C path the figures in docs/cpu.md are for."""
    assert vad.NATIVE_AVAILABLE or not os.environ.get("CI"), "pip install -e . did not build _fastpath"
