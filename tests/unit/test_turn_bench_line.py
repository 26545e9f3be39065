"""The turns bench's telephone line (``MOCKENGINE_BENCH_TURN_LINE``): a clip reaches the engine as a
phone bridge's G.711 frames do, band-limited to 4 kHz and as long as it was, the same every run."""

from __future__ import annotations

import numpy as np
import pytest

from mockengine.bench.turn_corpus import over_line
from mockengine.engines.stt import is_narrowband, pcm16_24k_to_float_16k


def _wideband_noise(ms: int = 600) -> bytes:
    rng = np.random.default_rng(7)
    return (rng.standard_normal(24 * ms) * 3000).astype("<i2").tobytes()


def test_a_wideband_clip_comes_off_a_pcmu_line_narrowband_same_length_and_deterministic():
    pcm = _wideband_noise()
    assert not is_narrowband(pcm16_24k_to_float_16k(pcm))
    line = over_line(pcm, "audio/pcmu")
    assert len(line) == len(pcm)  # 20 ms frames decoded as the session does: 3 samples per G.711 byte
    assert is_narrowband(pcm16_24k_to_float_16k(line))  # so whisper decodes it with the narrowband beams
    assert over_line(pcm, "audio/pcmu") == line
    assert over_line(pcm, "audio/pcma") != line


def test_wideband_passes_unchanged_and_an_unknown_line_is_refused():
    pcm = _wideband_noise(100)
    assert over_line(pcm, "audio/pcm") == pcm
    with pytest.raises(ValueError, match="audio/opus"):
        over_line(pcm, "audio/opus")
