"""Debian's chromium, headless, with a fake microphone fed from a WAV file, driven by playwright's Python
package (its own browser download is not used: it fails offline). On CI (``CI=true``) a missing chromium
fails the test instead of skipping it; ``.ci/run`` installs it."""

from __future__ import annotations

import os
import shutil
import wave
from pathlib import Path

import numpy as np
import pytest

from tests.speech import question

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REPORTS = Path(__file__).resolve().parents[3] / "reports"


def chromium_args(wav: Path) -> list[str]:
    return [
        "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-audio-capture={wav}",
        "--autoplay-policy=no-user-gesture-required",
        "--allow-loopback-in-peer-connection",  # see server/webrtc/ice.py
        "--no-sandbox",  # CI runs as root
    ]


@pytest.fixture
def chromium_path() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed (.ci/run installs it with apt-get)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return CHROMIUM


@pytest.fixture
def fake_mic_wav(tmp_path: Path) -> Path:
    """The test question, then 6 s of silence (chromium loops the file), as 24 kHz mono PCM16."""
    pcm, _ = question()
    silence = np.zeros(24_000 * 6, dtype="<i2").tobytes()
    path = tmp_path / "mic.wav"
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(24_000)
        handle.writeframes(bytes(24_000) + pcm + silence)
    return path


@pytest.fixture
def reports_dir() -> Path:
    REPORTS.mkdir(exist_ok=True)
    return REPORTS
