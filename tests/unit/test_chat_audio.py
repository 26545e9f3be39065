"""The audio pieces of Chat Completions (``mockengine/chat/audio.py``): codecs, streamed pieces, the audio
id store, and which models speak."""

from __future__ import annotations

import base64
import io
import wave

import numpy as np
import pytest

from mockengine.chat.audio import (
    STREAM_PIECE_BYTES,
    AudioStore,
    ChoiceAudio,
    audio_support,
    decode_input_audio,
    encode_audio,
    stream_pieces,
)


def tone(seconds: float, rate_hz: int = 24_000) -> bytes:
    t = np.arange(int(seconds * rate_hz)) / rate_hz
    return (np.sin(2 * np.pi * 330 * t) * 8000).astype("<i2").tobytes()


def spoken(
    sentences: list[tuple[str, bytes]], audio_id: str = "audio_x", expires_at: int = 100
) -> ChoiceAudio:
    ends, total = [], 0
    for _, pcm16 in sentences:
        total += len(pcm16)
        ends.append(total)
    pcm16 = b"".join(p for _, p in sentences)
    transcript = " ".join(t for t, _ in sentences)
    pairs = tuple(zip((t for t, _ in sentences), ends, strict=True))
    return ChoiceAudio(audio_id, expires_at, transcript, pcm16, pcm16, pairs)


@pytest.mark.parametrize("fmt", ["wav", "mp3", "flac", "opus", "aac", "pcm16"])
def test_encoding_is_deterministic(fmt):
    pcm16 = tone(0.7)
    assert encode_audio(pcm16, fmt) == encode_audio(pcm16, fmt)


@pytest.mark.parametrize("fmt", ["wav", "mp3"])
def test_input_formats_decode_back_to_24k_pcm16(fmt):
    pcm16 = tone(1.0)
    decoded = decode_input_audio(base64.b64encode(encode_audio(pcm16, fmt)).decode(), fmt)
    # mp3 adds encoder delay and padding: about a frame.
    assert abs(len(decoded) - len(pcm16)) <= (0 if fmt == "wav" else 2 * 1152 * 2)


def test_a_16k_stereo_wav_is_resampled_and_mixed_down():
    out = io.BytesIO()
    with wave.open(out, "wb") as handle:
        handle.setnchannels(2)
        handle.setsampwidth(2)
        handle.setframerate(16_000)
        mono = np.frombuffer(tone(0.5, 16_000), "<i2")
        handle.writeframes(np.repeat(mono, 2).astype("<i2").tobytes())
    decoded = decode_input_audio(base64.b64encode(out.getvalue()).decode(), "wav")
    assert abs(len(decoded) / 2 - 12_000) <= 64  # 0.5 s at 24 kHz


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        ("not base64!", "wav"),
        ("", "wav"),
        (base64.b64encode(b"RIFF0000WAVEjunk").decode(), "wav"),
        ("AAAA", "mp3"),
    ],
)
def test_undecodable_input_is_a_value_error(data, fmt):
    with pytest.raises(ValueError):
        decode_input_audio(data, fmt)


def test_stream_pieces_follow_the_sentences_and_add_up():
    first, second = tone(0.55), tone(0.3)
    audio = spoken([("Hello there.", first), ("How are you?", second)])
    pieces = stream_pieces(audio)
    words = [p for kind, p in pieces if kind == "transcript"]
    data = [p for kind, p in pieces if kind == "data"]
    assert "".join(words) == audio.transcript and words[:2] == ["Hello", " there."]
    assert b"".join(data) == audio.pcm16
    assert all(len(p) == STREAM_PIECE_BYTES for p in data[:-1])
    # The second sentence's words come after the audio pieces that end within the first sentence.
    second_word = [kind for kind, _ in pieces].index("transcript", 2)
    sent_before = sum(len(p) for kind, p in pieces[:second_word] if kind == "data")
    assert sent_before == (len(first) // STREAM_PIECE_BYTES) * STREAM_PIECE_BYTES
    # Every piece but the last is whole base64 quanta, so the base64 strings join into the whole's.
    joined = "".join(base64.b64encode(p).decode() for p in data)
    assert base64.b64decode(joined) == audio.pcm16


def test_the_store_forgets_expired_and_old_ids():
    store = AudioStore(capacity=2)
    for number in range(3):
        store.put(spoken([("Hi.", tone(0.1))], audio_id=f"audio_{number}", expires_at=100))
    assert store.get("audio_0", now=50) is None, "pushed out by newer ones"
    kept = store.get("audio_2", now=50)
    assert kept is not None and kept.transcript == "Hi." and kept.duration_ms == pytest.approx(100, abs=1)
    assert store.get("audio_2", now=100) is None, "expired"


@pytest.mark.parametrize(
    ("model", "support"),
    [
        ("gpt-4o-audio-preview", "required"),
        ("gpt-4o-audio-preview-2025-06-03", "required"),
        ("gpt-4o-mini-audio-preview", "required"),
        ("gpt-audio", "required"),
        ("gpt-audio-mini-2025-12-15", "required"),
        ("mockengine-default", "optional"),
        ("gpt-4o-mini", "none"),
        ("gpt-realtime", "none"),
    ],
)
def test_which_models_speak(model, support):
    assert audio_support(model) == support
