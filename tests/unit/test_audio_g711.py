import numpy as np
import pytest

from mockengine.audio.g711 import (
    alaw_to_pcm16,
    encoded_slice,
    from_pcm16_24k,
    pcm16_to_alaw,
    pcm16_to_ulaw,
    to_pcm16_24k,
    ulaw_to_pcm16,
)
from mockengine.audio.synthetic import synthetic_voiced_pcm16

ALL_CODES = bytes(range(256))
ALL_PCM16 = np.arange(-32768, 32768, dtype="<i2").tobytes()


def _samples(pcm: bytes) -> list[int]:
    return np.frombuffer(pcm, dtype="<i2").tolist()


@pytest.mark.parametrize(
    ("code", "value"),
    [(0xFF, 0), (0x7F, 0), (0x00, -32124), (0x80, 32124), (0xFE, 8), (0x7E, -8), (0xEF, 132), (0xF0, 120)],
)
def test_ulaw_decode_reference_values(code: int, value: int) -> None:
    assert _samples(ulaw_to_pcm16(bytes([code]))) == [value]


@pytest.mark.parametrize(
    ("code", "value"),
    [(0xD5, 8), (0x55, -8), (0xAA, 32256), (0x2A, -32256), (0xD4, 24), (0xC5, 264)],
)
def test_alaw_decode_reference_values(code: int, value: int) -> None:
    assert _samples(alaw_to_pcm16(bytes([code]))) == [value]


@pytest.mark.parametrize(
    ("value", "ulaw", "alaw"),
    [
        (0, 0xFF, 0xD5),
        (-1, 0x7E, 0x55),
        (-8, 0x7E, 0x55),
        (8, 0xFE, 0xD5),
        (32767, 0x80, 0xAA),
        (-32768, 0x00, 0x2A),
    ],
)
def test_encode_reference_values(value: int, ulaw: int, alaw: int) -> None:
    pcm = np.array([value], dtype="<i2").tobytes()
    assert pcm16_to_ulaw(pcm) == bytes([ulaw])
    assert pcm16_to_alaw(pcm) == bytes([alaw])


def test_codes_survive_decode_then_encode() -> None:
    # µ-law has two zeros (0x7F and 0xFF); both decode to 0, which encodes as 0xFF.
    ulaw_back = pcm16_to_ulaw(ulaw_to_pcm16(ALL_CODES))
    assert ulaw_back == ALL_CODES.replace(b"\x7f", b"\xff")
    assert pcm16_to_alaw(alaw_to_pcm16(ALL_CODES)) == ALL_CODES


def test_encoding_error_stays_within_the_quantisation_step() -> None:
    original = np.frombuffer(ALL_PCM16, dtype="<i2").astype(np.int64)
    for encode, decode in ((pcm16_to_ulaw, ulaw_to_pcm16), (pcm16_to_alaw, alaw_to_pcm16)):
        back = np.frombuffer(decode(encode(ALL_PCM16)), dtype="<i2").astype(np.int64)
        relative = np.abs(back - original) / np.maximum(np.abs(original), 256)
        assert relative.max() < 0.07


def test_matches_audioop_oracle_on_every_value() -> None:
    audioop = pytest.importorskip("audioop")
    assert ulaw_to_pcm16(ALL_CODES) == audioop.ulaw2lin(ALL_CODES, 2)
    assert alaw_to_pcm16(ALL_CODES) == audioop.alaw2lin(ALL_CODES, 2)
    assert pcm16_to_ulaw(ALL_PCM16) == audioop.lin2ulaw(ALL_PCM16, 2)
    assert pcm16_to_alaw(ALL_PCM16) == audioop.lin2alaw(ALL_PCM16, 2)


@pytest.mark.parametrize("format_type", ["audio/pcmu", "audio/pcma"])
def test_g711_formats_convert_between_8k_and_24k(format_type: str) -> None:
    pcm_24k = synthetic_voiced_pcm16(500, amplitude=0.5)
    encoded = from_pcm16_24k(pcm_24k, format_type)
    assert len(encoded) == 4000
    back = to_pcm16_24k(encoded, format_type)
    assert len(back) == len(pcm_24k)
    original = np.frombuffer(pcm_24k, dtype="<i2").astype(np.float64)
    decoded = np.frombuffer(back, dtype="<i2").astype(np.float64)
    # The voiced signal's energy is below 3 kHz, so telephone band plus G.711 keeps it closely.
    snr_db = 10 * np.log10(np.sum(original**2) / np.sum((original - decoded) ** 2))
    assert snr_db > 20


def test_pcm_format_passes_through() -> None:
    assert to_pcm16_24k(b"\x01\x02", "audio/pcm") == b"\x01\x02"
    assert from_pcm16_24k(b"\x01\x02", "audio/pcm") == b"\x01\x02"


def test_unknown_format_is_rejected() -> None:
    with pytest.raises(ValueError, match="audio/wav"):
        to_pcm16_24k(b"", "audio/wav")
    with pytest.raises(ValueError, match="audio/wav"):
        from_pcm16_24k(b"", "audio/wav")


@pytest.mark.parametrize("format_type", ["audio/pcmu", "audio/pcma", "audio/pcm"])
def test_slices_of_one_encoding_join_into_it(format_type: str) -> None:
    pcm = synthetic_voiced_pcm16(1_370)  # not a whole number of 200 ms deltas
    whole = from_pcm16_24k(pcm, format_type)
    delta_bytes = 200 * 48
    pieces = [
        encoded_slice(whole, start, min(start + delta_bytes, len(pcm)), len(pcm))
        for start in range(0, len(pcm), delta_bytes)
    ]
    assert b"".join(pieces) == whole
    assert len(pieces) == 7 and all(pieces)


def test_offsets_are_proportional_and_clamped() -> None:
    encoded = bytes(range(100))  # say 600 PCM bytes: 6 PCM bytes an encoded byte (G.711 from 24 kHz)
    assert encoded_slice(encoded, 60, 120, 600) == bytes(range(10, 20))
    assert encoded_slice(encoded, 0, 600, 600) == encoded
    assert encoded_slice(encoded, 63, 65, 600) == b""  # inside one encoded byte: nothing yet
    assert encoded_slice(encoded, -6, 12, 600) == bytes(range(2))
    assert encoded_slice(encoded, 594, 10_000, 600) == bytes([99])
    assert encoded_slice(encoded, 700, 800, 600) == b""
    assert encoded_slice(encoded, 0, 6, 0) == b""  # an empty clip (a recorded WAV with no frames)
    # A clip encoded a byte short of the ratio: the proportion spreads it, the slices still join.
    short = bytes(99)
    assert sum(len(encoded_slice(short, s, s + 60, 600)) for s in range(0, 600, 60)) == 99
