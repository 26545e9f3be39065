"""The whole HRP suite against mockengine itself: real webrtcvad, faster-whisper and piper, packaged clips.

Streams at 4x real time (the engine's turn detection counts audio, not wall time); the engine's own
latencies are still held to the spec's thresholds.
"""

from __future__ import annotations

import io

import pytest

from mockengine.conformance import arun_conformance

pytestmark = pytest.mark.models


async def test_mockengine_passes_the_hrp_suite(mockengine_url: str) -> None:
    out = io.StringIO()
    results, report = await arun_conformance(
        mockengine_url,
        api_key="sk-mockengine",
        realtime_factor=4.0,
        out=out,
    )
    assert [r.label for r in results if not r.passed] == [], out.getvalue()
    assert out.getvalue().splitlines()[-1] == "15 passed, 0 failed"
    assert report["summary"] == {"passed": 15, "failed": 0, "total": 15}
