"""The real engines: piper (bundled en_US-joe-medium) and faster-whisper (bundled tiny.en)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from mockengine.engines import (
    OUTPUT_RATE_HZ,
    VOICE_NAMES,
    ModelNotFound,
    PiperSynthesizer,
    SpeechSegment,
    TokenCounter,
    VoiceProfile,
    WhisperTranscriber,
    load_voice_catalog,
    normalize_text,
)
from mockengine.engines.cache import ByteLRU
from mockengine.engines.voices import BUNDLED_PIPER_VOICE

pytestmark = pytest.mark.models

SENTENCE = "Could you tell me a story about the sea and the ships that sail on it?"
TWO_SENTENCES = "The weather is lovely today. Shall we go for a walk in the park?"


@pytest.fixture(scope="module")
def synthesizer() -> PiperSynthesizer:
    # No cache: every call below must exercise piper itself.
    piper = PiperSynthesizer(load_voice_catalog(), cache=ByteLRU(0))
    piper.preload()
    return piper


@pytest.fixture(scope="module")
def transcriber() -> Iterator[WhisperTranscriber]:
    yield WhisperTranscriber()


@pytest.fixture(scope="module")
def sentence_audio(synthesizer: PiperSynthesizer) -> dict[str, bytes]:
    """SENTENCE spoken by every voice name, synthesized once for the module."""
    return {voice: _pcm(synthesizer.synthesize(SENTENCE, voice=voice)) for voice in VOICE_NAMES}


def _pcm(segments: list[SpeechSegment]) -> bytes:
    return b"".join(segment.pcm16 for segment in segments)


def _words(text: str) -> list[str]:
    return re.sub(r"[^a-z0-9' ]", " ", text.lower()).split()


def _edit_distance(reference: list[str], hypothesis: list[str]) -> int:
    previous = list(range(len(hypothesis) + 1))
    for i, ref_word in enumerate(reference, start=1):
        current = [i]
        for j, hyp_word in enumerate(hypothesis, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ref_word != hyp_word)))
        previous = current
    return previous[-1]


def _wer(reference: str, hypothesis: str) -> float:
    try:
        import jiwer
    except ImportError:
        return _edit_distance(_words(reference), _words(hypothesis)) / len(_words(reference))
    return float(jiwer.wer(" ".join(_words(reference)), " ".join(_words(hypothesis))))


def _median_f0_hz(pcm16: bytes) -> float:
    """YIN (de Cheveigné & Kawahara 2002) per 30 ms voiced frame; the median over the utterance."""
    audio = np.frombuffer(pcm16, dtype="<i2").astype(np.float64)
    frame = int(0.03 * OUTPUT_RATE_HZ)
    max_lag, min_lag = OUTPUT_RATE_HZ // 60, OUTPUT_RATE_HZ // 400
    estimates = []
    for start in range(0, len(audio) - frame - max_lag, frame // 2):
        chunk = audio[start : start + frame + max_lag]
        if np.sqrt(np.mean(chunk[:frame] ** 2)) < 1_500:
            continue
        lags = range(1, max_lag)
        diff = np.array([np.sum((chunk[:frame] - chunk[lag : lag + frame]) ** 2) for lag in lags])
        normalized = diff * np.arange(1, max_lag) / np.maximum(np.cumsum(diff), 1e-9)
        below = np.nonzero(normalized[min_lag:] < 0.15)[0]
        if below.size:
            lag = below[0] + min_lag
            while lag + 1 < len(normalized) and normalized[lag + 1] < normalized[lag]:
                lag += 1
            estimates.append(OUTPUT_RATE_HZ / (lag + 1))
    return float(np.median(estimates))


def test_same_text_twice_gives_identical_bytes(synthesizer: PiperSynthesizer) -> None:
    first = synthesizer.synthesize(SENTENCE, voice="coral")
    second = synthesizer.synthesize(SENTENCE, voice="coral")
    assert _pcm(first) == _pcm(second)
    assert len(_pcm(first)) > 0


def test_every_voice_name_sounds_different(sentence_audio: dict[str, bytes]) -> None:
    assert len(set(sentence_audio.values())) == len(VOICE_NAMES)


@pytest.mark.parametrize("voice", ["echo", "cedar", "verse", "shimmer"])
def test_pitch_follows_the_catalogue(sentence_audio: dict[str, bytes], voice: str) -> None:
    base_hz = _median_f0_hz(sentence_audio["alloy"])
    assert 60.0 < base_hz < 200.0
    expected_ratio = load_voice_catalog()[voice].pitch_factor
    assert _median_f0_hz(sentence_audio[voice]) / base_hz == pytest.approx(expected_ratio, rel=0.04)


def test_segments_are_sentences_at_24_khz(synthesizer: PiperSynthesizer) -> None:
    segments = synthesizer.synthesize(TWO_SENTENCES, voice="alloy")
    assert " ".join(segment.text for segment in segments) == normalize_text(TWO_SENTENCES)
    assert len(segments) == 2
    for segment in segments:
        words = len(segment.text.split())
        # 24 kHz misread as 22.05 kHz would be 8 % off; plausible speech is 150-600 ms per word.
        assert 150 * words < segment.duration_ms < 600 * words
        assert len(segment.pcm16) % 2 == 0


def test_output_duration_matches_piper_at_its_own_rate(synthesizer: PiperSynthesizer) -> None:
    from piper import PiperVoice, SynthesisConfig

    from mockengine.engines import resolve_piper_voice

    onnx, config = resolve_piper_voice(None)
    voice = PiperVoice.load(onnx, config_path=config)
    raw = voice.synthesize(SENTENCE, SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0))
    raw_ms = sum(len(chunk.audio_float_array) for chunk in raw) * 1000.0 / voice.config.sample_rate
    ours_ms = synthesizer.synthesize(SENTENCE, voice="alloy")[0].duration_ms
    assert ours_ms == pytest.approx(raw_ms, abs=1.0)


def test_pitch_shift_keeps_duration() -> None:
    catalog = {
        f"st{semitones}": VoiceProfile(f"st{semitones}", BUNDLED_PIPER_VOICE, None, 1.0, semitones)
        for semitones in (-3.0, 0.0, 4.0)
    }
    piper = PiperSynthesizer(catalog)
    base_ms = piper.synthesize(SENTENCE, voice="st0.0")[0].duration_ms
    for name in ("st-3.0", "st4.0"):
        assert piper.synthesize(SENTENCE, voice=name)[0].duration_ms == pytest.approx(base_ms, rel=0.05)


def test_speed_changes_duration(synthesizer: PiperSynthesizer) -> None:
    normal_ms = synthesizer.synthesize(SENTENCE, voice="verse")[0].duration_ms
    fast_ms = synthesizer.synthesize(SENTENCE, voice="verse", speed=1.5)[0].duration_ms
    slow_ms = synthesizer.synthesize(SENTENCE, voice="verse", speed=0.5)[0].duration_ms
    assert fast_ms < 0.9 * normal_ms
    assert slow_ms > 1.4 * normal_ms


def test_cache_returns_the_same_audio_as_synthesis(sentence_audio: dict[str, bytes]) -> None:
    cached = PiperSynthesizer(load_voice_catalog(), cache=ByteLRU(4 * 1024 * 1024))
    first = cached.synthesize(SENTENCE, voice="ash")
    assert cached.synthesize(SENTENCE, voice="ash") == first
    assert _pcm(first) == sentence_audio["ash"]


@pytest.mark.parametrize("voice", VOICE_NAMES)
def test_whisper_understands_every_voice(
    sentence_audio: dict[str, bytes], transcriber: WhisperTranscriber, voice: str
) -> None:
    pcm16 = sentence_audio[voice]
    transcript = transcriber.transcribe(pcm16)
    assert _wer(SENTENCE, transcript.text) <= 0.2, transcript.text
    assert transcript.duration_ms == len(pcm16) // 2 * 1000 // OUTPUT_RATE_HZ
    assert transcript.language == "en"


def test_whisper_is_deterministic(sentence_audio: dict[str, bytes], transcriber: WhisperTranscriber) -> None:
    pcm16 = sentence_audio["sage"]
    assert transcriber.transcribe(pcm16) == transcriber.transcribe(pcm16)


def test_whisper_skips_very_short_audio(transcriber: WhisperTranscriber) -> None:
    result = transcriber.transcribe(b"\x01\x00" * (OUTPUT_RATE_HZ // 20))
    assert (result.text, result.duration_ms, result.language) == ("", 50, None)


def test_missing_models_raise_model_not_found(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFound, match="--whisper-model"):
        WhisperTranscriber(str(tmp_path / "no-model"))
    missing = VoiceProfile("alloy", str(tmp_path / "no-voice.onnx"), None, 1.0, 0.0)
    with pytest.raises(ModelNotFound, match="--voice-model"):
        PiperSynthesizer({"alloy": missing}).preload()


def test_real_tokenizer_counts_plausibly(transcriber: WhisperTranscriber) -> None:
    counter = transcriber.token_counter()
    assert counter.uses_tokenizer
    assert 2 <= counter.count("hello world") <= 4
    sentence_tokens = counter.count(SENTENCE)
    assert len(SENTENCE.split()) <= sentence_tokens <= 2 * len(SENTENCE.split())
    assert TokenCounter.from_model_dir(transcriber.model_path).count(SENTENCE) == sentence_tokens


def test_concurrent_synthesis_matches_serial(
    synthesizer: PiperSynthesizer, sentence_audio: dict[str, bytes]
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    voices = ["alloy", "echo", "alloy", "marin"]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda voice: _pcm(synthesizer.synthesize(SENTENCE, voice=voice)), voices))
    assert results == [sentence_audio[voice] for voice in voices]


def test_silence_and_noise_transcribe_as_nothing(transcriber):
    import numpy as np

    noise = np.random.default_rng(1).normal(0, 300, 48_000).astype("<i2").tobytes()
    assert transcriber.transcribe(bytes(48 * 2000)).text == ""
    assert transcriber.transcribe(noise).text == ""


def test_long_audio_uses_the_full_window_and_still_transcribes(transcriber):
    from tests.speech import question

    pcm, label = question()
    long_audio = (pcm + bytes(48 * 1000)) * 6  # ~25 s: beyond the 15 s short window
    text = transcriber.transcribe(long_audio).text.lower()
    assert text.count("capital") >= 5


def test_a_prompt_keeps_the_short_window(transcriber):
    """A turn with a prompt (LiveKit's and Pipecat's STT ``prompt``, keywords) is decoded with the 15 s
    window too, the prompt as the decoder's previous text: the same words, with whisper's word timings
    (the 30 s path gives none), and without the 30 s window's cost (0.84 s against 0.32 s for LiveKit's
    3 s question)."""
    from tests.speech import question

    pcm, label = question()
    plain = transcriber.transcribe(pcm)
    prompted = transcriber.transcribe(pcm, prompt="A geography quiz about European capitals.")
    assert prompted.text == plain.text == label["text"]
    assert [word.word for word in prompted.words] == [word.word for word in plain.words]
    long_prompt = " ".join(["Paris, Berlin, Madrid, Rome, Vienna."] * 60)  # longer than whisper keeps
    assert transcriber.transcribe(pcm, prompt=long_prompt).text == label["text"]


def test_piper_threads_sleep_when_idle_and_the_audio_is_piper_s_own() -> None:
    """The engine's piper session has onnxruntime's spinning off (its idle worker threads took the
    CPU from the event loop under load), and speaks exactly what ``PiperVoice.load`` would."""
    from piper import PiperVoice, SynthesisConfig

    from mockengine.engines.tts import _load_piper, resolve_piper_voice

    ours = _load_piper(BUNDLED_PIPER_VOICE)
    options = ours.session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.get_session_config_entry("session.inter_op.allow_spinning") == "0"
    onnx_path, config_path = resolve_piper_voice(BUNDLED_PIPER_VOICE)
    theirs = PiperVoice.load(onnx_path, config_path=config_path)
    quiet = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)

    def speak(voice: PiperVoice) -> bytes:
        return b"".join(chunk.audio_int16_bytes for chunk in voice.synthesize(SENTENCE, quiet))

    assert speak(ours) == speak(theirs)
    assert ours.config == theirs.config
