import numpy as np

from mockengine.audio.pcm import float32_to_pcm16
from mockengine.audio.resample import StreamResampler, resample_pcm16
from mockengine.audio.synthetic import synthetic_voiced_pcm16


def _tone(freq_hz: float, rate_hz: int, n_samples: int, amplitude: float = 0.5) -> bytes:
    t = np.arange(n_samples) / rate_hz
    return float32_to_pcm16(amplitude * np.sin(2 * np.pi * freq_hz * t))


def _samples(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm, dtype="<i2").astype(np.float64)


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def test_one_shot_length_and_determinism() -> None:
    pcm = synthetic_voiced_pcm16(1000)
    out = resample_pcm16(pcm, 24_000, 16_000)
    assert len(out) == 2 * 16_000
    assert resample_pcm16(pcm, 24_000, 16_000) == out


def test_one_shot_keeps_a_tone_at_its_frequency_and_level() -> None:
    out = _samples(resample_pcm16(_tone(440, 8000, 8000), 8000, 24_000))
    assert len(out) == 24_000
    spectrum = np.abs(np.fft.rfft(out[2400:-2400] * np.hanning(19_200)))
    peak_hz = np.argmax(spectrum) * 24_000 / 19_200
    assert abs(peak_hz - 440) <= 2
    rms = np.sqrt(np.mean(out[2400:-2400] ** 2)) / 32768
    assert abs(rms - 0.5 / np.sqrt(2)) < 0.01


def test_one_shot_same_rate_and_empty() -> None:
    assert resample_pcm16(b"\x01\x02\x03", 24_000, 24_000) == b"\x01\x02"
    assert resample_pcm16(b"", 24_000, 16_000) == b""


def test_stream_matches_one_shot_and_is_chunking_independent() -> None:
    pcm = synthetic_voiced_pcm16(1500)
    expected = resample_pcm16(pcm, 24_000, 16_000)
    for size in (960, 37, 4801, len(pcm)):
        stream = StreamResampler(24_000, 16_000)
        out = b"".join(stream.push(c) for c in _chunks(pcm, size)) + stream.flush()
        assert out == expected, size


def test_stream_output_is_time_aligned() -> None:
    impulse = np.zeros(24_000, dtype="<i2")
    impulse[4800] = 20_000
    stream = StreamResampler(24_000, 16_000)
    out = _samples(b"".join(stream.push(c) for c in _chunks(impulse.tobytes(), 960)) + stream.flush())
    assert int(np.argmax(out)) == 3200


def test_stream_flush_starts_a_fresh_stream() -> None:
    pcm = synthetic_voiced_pcm16(300)
    stream = StreamResampler(24_000, 8000)
    first = stream.push(pcm) + stream.flush()
    second = stream.push(pcm) + stream.flush()
    assert first == second
    assert len(first) == 2 * 2400


def test_stream_same_rate_passes_through_whole_samples() -> None:
    stream = StreamResampler(24_000, 24_000)
    assert stream.push(b"\x01\x02\x03") == b"\x01\x02"
    assert stream.push(b"\x04") == b"\x03\x04"
    assert stream.flush() == b""
