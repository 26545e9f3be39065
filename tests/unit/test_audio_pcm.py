import base64

import numpy as np
import pytest

from mockengine.audio.pcm import (
    INPUT_RATE_HZ,
    InvalidAudio,
    decode_base64_audio,
    encode_base64_audio,
    float32_to_pcm16,
    is_whole_pcm16,
    ms_to_samples,
    pcm16_duration_ms,
    pcm16_to_float32,
    samples_to_ms,
)


def test_base64_round_trip() -> None:
    pcm = bytes(range(256)) * 3
    encoded = encode_base64_audio(pcm)
    assert encoded == base64.b64encode(pcm).decode()
    assert decode_base64_audio(encoded) == pcm


def test_decode_empty_string_is_empty_audio() -> None:
    assert decode_base64_audio("") == b""


@pytest.mark.parametrize("bad", ["AAA", "AA=A", "AA!A", "AAAA\nAAAA", "ÄÄÄÄ", "A"])
def test_decode_rejects_invalid_base64(bad: str) -> None:
    with pytest.raises(InvalidAudio, match="base64"):
        decode_base64_audio(bad)


def test_invalid_audio_is_a_value_error() -> None:
    assert issubclass(InvalidAudio, ValueError)


def test_is_whole_pcm16() -> None:
    assert is_whole_pcm16(b"")
    assert is_whole_pcm16(b"\x00\x01")
    assert not is_whole_pcm16(b"\x00\x01\x02")


def test_pcm16_to_float32_scale_and_endianness() -> None:
    pcm = np.array([0, 16384, -32768, 32767, -1], dtype="<i2").tobytes()
    floats = pcm16_to_float32(pcm)
    assert floats.dtype == np.float32
    assert floats.tolist() == [0.0, 0.5, -1.0, pytest.approx(32767 / 32768), -1 / 32768]
    assert pcm16_to_float32(b"\x00\x40").tolist() == [0.5]


def test_pcm16_to_float32_ignores_trailing_odd_byte() -> None:
    assert pcm16_to_float32(b"\x00\x40\x7f").tolist() == [0.5]


def test_float32_pcm16_round_trip_is_exact_for_every_sample_value() -> None:
    pcm = np.arange(-32768, 32768, dtype="<i2").tobytes()
    assert float32_to_pcm16(pcm16_to_float32(pcm)) == pcm


def test_float32_to_pcm16_clips_and_rounds_half_to_even() -> None:
    values = np.array([2.0, -2.0, 0.5 / 32768, 1.5 / 32768, -0.5 / 32768], dtype=np.float64)
    out = np.frombuffer(float32_to_pcm16(values), dtype="<i2").tolist()
    assert out == [32767, -32768, 0, 2, 0]


def test_sample_and_ms_arithmetic() -> None:
    assert INPUT_RATE_HZ == 24_000
    assert samples_to_ms(24_000) == 1000
    assert samples_to_ms(23) == 0
    assert samples_to_ms(479) == 19
    assert samples_to_ms(160, rate_hz=16_000) == 10
    assert ms_to_samples(20) == 480
    assert ms_to_samples(0.1 * 3000) == 7200
    assert ms_to_samples(10, rate_hz=8000) == 80
    assert pcm16_duration_ms(48_000) == 1000.0
    assert pcm16_duration_ms(3) == pytest.approx(1 / 24)
    assert pcm16_duration_ms(320, rate_hz=16_000) == 10.0
