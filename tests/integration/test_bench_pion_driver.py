"""The WebRTC bench's Go load driver (tools/pion_driver, ``media_plane_bench.py --drivers pion``): a few
talking calls against an engine on the pion plane, onsets reported as the aiortc driver reports them.

Needs the sidecar and the driver built (``make pion pion-driver``): skipped without them, failing under
CI=true (CI builds both, tools/install_test_deps.sh)."""

from __future__ import annotations

import asyncio
import math
import os

import pytest

from mockengine.bench.pion_driver import clip_packets, driver_path, pion_talking_calls
from mockengine.bench.webrtc_talk import question_clip
from mockengine.engines.blas import blas_threads
from mockengine.rtc.media import FRAME_BYTES
from tests.integration.test_webrtc_pion import pion_engine  # noqa: F401  (the fixture)

pytestmark = pytest.mark.models
CALLS = 3


@pytest.fixture
def pion_driver_engine(pion_engine):  # noqa: F811  (pytest's fixture by name)
    try:
        driver_path()
    except FileNotFoundError as missing:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(str(missing))
    return pion_engine


async def test_the_go_driver_talks_on_every_call_and_reports_each_turn(pion_driver_engine, real_resources):
    server = await pion_driver_engine()
    clip = question_clip()
    loop_s = len(clip_packets(clip.pcm)) * FRAME_BYTES / 48_000
    seconds = 2 * loop_s - 0.1  # two loops of the clip on each call
    # The driver's parent blocks on its pipe: off this loop, which serves the engine.
    run = await asyncio.to_thread(pion_talking_calls, None, server.url + "/realtime", CALLS, seconds)
    assert run.opened == CALLS
    assert run.driver_cpu_s > 0 and run.driver_wall_s >= seconds
    # Every loop of every call heard (speech_started) and measured from the clip's onset: 2 per call;
    # a late event on a loaded machine may fall past its loop's end, so at least one per call.
    assert CALLS <= len(run.onsets_ms) <= CALLS * math.ceil(seconds / loop_s)
    assert all(-200 < onset < 5_000 for onset in run.onsets_ms), run.onsets_ms
    # Each onset with when it was measured (its speech_started), within the talking window: the level's
    # minutes (webrtc_capacity.onsets_per_minute) are read from these.
    assert run.onset_at_s is not None and len(run.onset_at_s) == len(run.onsets_ms), run
    assert all(0 < at <= run.driver_wall_s for at in run.onset_at_s), (run.onset_at_s, run.driver_wall_s)
    await server.wait_until_idle()


def test_the_engine_holds_openblas_to_one_thread(real_resources):
    """load_resources holds numpy's OpenBLAS to one thread (engines/blas.py): its idle pool spun."""
    assert blas_threads() == [1]  # numpy's wheel brings OpenBLAS
