"""tools/turn_nuclei.py: round 11's count of syllables after whisper's last word (docs/turn-detection.md,
"Round 11")."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

TOOLS = Path(__file__).resolve().parents[2] / "tools"
sys.path.insert(0, str(TOOLS))  # it imports turn_tune as the tools do
spec = importlib.util.spec_from_file_location("turn_nuclei", TOOLS / "turn_nuclei.py")
assert spec is not None and spec.loader is not None
nuclei = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nuclei)


def test_syllables_counts_vowel_groups_without_a_silent_e() -> None:
    assert [nuclei.syllables(w) for w in ("the", "about.", "hairdresser,", "stage", "table", "63")] == [
        1,
        2,
        3,
        1,
        2,
        2,
    ]


def test_nuclei_finds_one_peak_per_tone_burst() -> None:
    rate = 24_000
    t = np.arange(int(0.15 * rate)) / rate
    burst = (8000 * np.sin(2 * np.pi * 150 * t) * np.hanning(t.size)).astype(np.int16)
    gap = np.zeros(int(0.1 * rate), dtype=np.int16)
    samples = np.concatenate([gap, burst, gap, burst, gap, burst, gap])
    end_ms = (samples.size - gap.size) * 1000 // rate
    peaks = nuclei.nuclei_ms(samples, end_ms)
    assert len(peaks) == 3
    assert all(abs(peak - centre) <= 40 for peak, centre in zip(peaks, (175, 425, 675), strict=True))
