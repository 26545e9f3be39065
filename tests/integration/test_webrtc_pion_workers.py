"""``serve --workers 2 --media-plane pion``: each worker starts a sidecar of its own (its own UDP port,
picked free: one ``--media-udp-port`` for several workers is refused at start, tests/unit/
test_media_plane_option.py), and a hang-up or sideband the kernel hands to the other worker is forwarded
as on the aiortc plane (test_webrtc_workers.py's cases, run on this plane)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import pytest

from mockengine.rtc.pion.plane import BUILD_NEEDS, is_built, sidecar_binary
from tests.integration import test_webrtc_workers as workers
from tests.integration.conftest import serving_workers
from tests.webrtc_client import CallClient

pytestmark = pytest.mark.models


@pytest.fixture(scope="module")
def two_pion_workers() -> Iterator[str]:
    if not is_built():
        if os.environ.get("CI") != "true":
            pytest.skip(f"the pion sidecar is not built (make pion; {BUILD_NEEDS})")
        sidecar_binary()
    with serving_workers("--media-plane", "pion") as port:
        yield f"http://127.0.0.1:{port}"


def _candidate_ports(sdp: str) -> set[str]:
    return {line.split()[5] for line in sdp.splitlines() if line.startswith("a=candidate:")}


async def test_each_worker_answers_from_a_sidecar_of_its_own(two_pion_workers):
    ports: dict[str, set[str]] = {}
    clients = []
    try:
        for _ in range(workers.TRIES):
            client = CallClient()
            clients.append(client)
            await client.connect(two_pion_workers)
            await client.wait_for("session.created")
            assert client.call_id is not None
            ports.setdefault(client.call_id[-1], set()).update(_candidate_ports(client.answer_sdp))
            if len(ports) == 2:
                break
    finally:
        await asyncio.gather(*[c.close() for c in clients])
    assert set(ports) == {"0", "1"}
    assert len(ports["0"]) == len(ports["1"]) == 1 and ports["0"] != ports["1"], ports


async def test_a_sideband_reaches_the_call_from_either_worker(two_pion_workers):
    await workers.test_a_sideband_reaches_the_call_from_either_worker(two_pion_workers)


async def test_hangup_reaches_the_call_from_either_worker(two_pion_workers):
    await workers.test_hangup_reaches_the_call_from_either_worker(two_pion_workers)
