"""The soak reports' PNGs (``mockengine bench --plot``'s optional matplotlib): the WebSocket soak's and
the WebRTC soak's figures are drawn headless and written where asked, through the shared
``loadtest.plot`` helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

from mockengine.bench.rtc_soak import RtcSample, RtcSoakRun, Wave, plot_rtc_soak
from mockengine.loadtest.plot import agg_pyplot
from mockengine.loadtest.soak_report import plot_soak

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

pytestmark = pytest.mark.skipif(agg_pyplot() is None, reason="matplotlib is not installed (the bench extra)")


def test_the_pyplot_given_draws_headless() -> None:
    plt = agg_pyplot()
    assert plt is not None and plt.get_backend().lower() == "agg"


def test_the_websocket_soak_plot_is_written(tmp_path: Path) -> None:
    rows = [
        {
            "minute": minute,
            "rss_mib": 300.0 + minute,
            "engine_cpu_ms_per_session_s": 12.0,
            "onset_p95_ms": 80.0,
            "response_p95_ms": 400.0,
            "healthz_ms": 3.0,
        }
        for minute in (1, 2, 3)
    ]
    summary = {"rows": rows, "idle_rss_mib": 250.0, "sessions": 10, "minutes": 3.0}
    path = tmp_path / "soak.png"
    assert plot_soak(summary, path) == path
    assert path.read_bytes().startswith(PNG_MAGIC)


def test_the_webrtc_soak_plot_is_written(tmp_path: Path) -> None:
    run = RtcSoakRun(
        idle_rss_bytes=200 * 2**20,
        waves=[Wave(number=1, calls=4, minutes=1.0)],
        samples=[
            RtcSample(at_s=s, wave=1, calls=4, sessions_active=4, rss_bytes=250 * 2**20) for s in (0, 30, 60)
        ],
    )
    path = tmp_path / "rtc_soak.png"
    assert plot_rtc_soak(run, path) == path
    assert path.read_bytes().startswith(PNG_MAGIC)
