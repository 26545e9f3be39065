"""``serve --media-plane pion`` with a sidecar built before its source last changed (a ``git pull`` that
brought a new ``sidecar.go``, no ``make pion`` since): the engine starts it but says to rebuild, since
the frames across the socket may have changed with the source."""

from __future__ import annotations

import logging
import os
import shutil

import aiohttp
import pytest

from mockengine.rtc.pion.plane import BINARY_ENV, BUILD_NEEDS, is_built, sidecar_binary


@pytest.fixture
def built_sidecar() -> None:
    if not is_built():
        if os.environ.get("CI") == "true":
            pytest.fail(f"the pion sidecar is not built (make pion; {BUILD_NEEDS})")
        pytest.skip(f"the pion sidecar is not built (make pion; {BUILD_NEEDS})")


def _copy(tmp_path, mtime_s: float):
    binary = tmp_path / "mockengine-pion"
    shutil.copy2(sidecar_binary(), binary)
    os.utime(binary, (mtime_s, mtime_s))
    return binary


async def test_a_sidecar_older_than_its_source_is_named(built_sidecar, engine, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv(BINARY_ENV, str(_copy(tmp_path, 1_000_000_000)))  # 2001: older than any source
    with caplog.at_level(logging.WARNING, logger="mockengine.webrtc"):
        server = await engine(media_plane="pion")
        async with aiohttp.ClientSession() as http, http.get(f"{server.http_url}/healthz") as answer:
            assert answer.status == 200  # it serves, with the sidecar it has
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("older than" in w and "make pion" in w for w in warnings), warnings


async def test_a_sidecar_built_after_its_source_is_not(built_sidecar, engine, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv(BINARY_ENV, str(_copy(tmp_path, 4_000_000_000)))  # 2096
    with caplog.at_level(logging.WARNING, logger="mockengine.webrtc"):
        await engine(media_plane="pion")
    assert not [r for r in caplog.records if "older than" in r.getMessage()]
