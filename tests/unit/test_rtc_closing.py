"""mockengine.rtc.closing: a peer connection's close, bounded and never cancelled half-way."""

from __future__ import annotations

import asyncio
import re
import types

from mockengine.rtc import closing
from mockengine.rtc.closing import close_peer, start_close


class HangingPeer:
    """aiortc's close rule (a second close waits for the first's end) with a close that waits for
    ``release``."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = 0
        self.finished = False
        self._first: asyncio.Future[None] | None = None

    def getTransceivers(self) -> list[object]:  # noqa: N802 (aiortc's name)
        return []

    async def close(self) -> None:
        if self._first is not None:
            await self._first
            return
        self._first = asyncio.get_running_loop().create_future()
        self.started += 1
        await self.release.wait()
        self.finished = True
        self._first.set_result(None)


async def test_a_close_that_hangs_is_waited_for_at_most_the_timeout_and_goes_on(caplog) -> None:
    peer = HangingPeer()
    before = set(closing._CLOSING)  # (another test's close may still be held)
    assert not await close_peer(peer, 0.05)  # type: ignore[arg-type]
    assert peer.started == 1 and not peer.finished
    # the warning names the step it hangs in, down the chain of awaits
    (hung,) = closing._CLOSING - before
    assert closing.waiting_in(hung).startswith("HangingPeer.close (test_rtc_closing.py:")
    assert re.search(r" → Event\.wait \(locks\.py:\d+\)$", closing.waiting_in(hung))
    assert "took over 0 s to close; its close goes on by itself (waiting in HangingPeer.close" in caplog.text
    assert len(closing._CLOSING - before) == 1  # held until it ends, not collected
    peer.release.set()
    assert await close_peer(peer, 1.0)  # type: ignore[arg-type]  # a second close waits for the first's end
    assert peer.finished and peer.started == 1
    await asyncio.sleep(0)
    assert not closing._CLOSING - before


async def test_cancelling_the_waiter_leaves_the_close_running() -> None:
    """A close cancelled half-way would make every later close wait forever (aiortc's rule)."""
    peer = HangingPeer()
    waiter = asyncio.ensure_future(close_peer(peer, 10.0))  # type: ignore[arg-type]
    await asyncio.sleep(0.01)
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    peer.release.set()
    assert await close_peer(peer, 1.0)  # type: ignore[arg-type]
    assert peer.finished


async def test_a_hung_close_names_aiortcs_own_close_and_a_media_task_that_died() -> None:
    """aiortc's ``stop()`` of a sender or receiver waits for an event only its media task's normal end
    sets: a task ended by an exception hangs every close, and the warning says which task and why."""

    async def died() -> None:
        raise AttributeError("'NoneType' object has no attribute 'call_exception_handler'")

    async def idle() -> None:
        await asyncio.sleep(0)

    report_task, rtp_task = asyncio.ensure_future(died()), asyncio.ensure_future(idle())
    await asyncio.gather(report_task, rtp_task, return_exceptions=True)
    receiver, sender = types.SimpleNamespace(), types.SimpleNamespace()
    receiver._RTCRtpReceiver__rtcp_task = report_task
    sender._RTCRtpSender__rtp_task = rtp_task  # ended normally: not named
    transceiver = types.SimpleNamespace(kind="audio", sender=sender, receiver=receiver)
    peer = HangingPeer()
    own = asyncio.ensure_future(peer.close())  # aiortc's own close, started when DTLS closed
    peer._RTCPeerConnection__closeTask = own  # type: ignore[attr-defined]
    peer.getTransceivers = lambda: [transceiver]  # type: ignore[method-assign]
    ours = asyncio.ensure_future(peer.close())
    await asyncio.sleep(0.01)
    report = closing.where_closing_waits(peer, ours)  # type: ignore[arg-type]
    assert report.startswith("waiting in HangingPeer.close (test_rtc_closing.py:")
    assert "; aiortc's own close waits in HangingPeer.close (test_rtc_closing.py:" in report
    assert report.endswith(
        "; the audio receiver's rtcp_task ended with "
        "AttributeError(\"'NoneType' object has no attribute 'call_exception_handler'\")"
    )
    peer.release.set()
    await asyncio.gather(own, ours)


def test_where_a_plain_future_waits_is_not_known() -> None:
    future: asyncio.Future[None] = asyncio.new_event_loop().create_future()
    assert closing.waiting_in(future) == "?"


async def test_a_failing_close_is_logged_not_raised(caplog) -> None:
    class Failing:
        async def close(self) -> None:
            raise RuntimeError("transport gone")

    assert await close_peer(Failing(), 1.0)  # type: ignore[arg-type]
    assert "failed to close" in caplog.text
    assert start_close(Failing()) is not None  # type: ignore[arg-type]
    await asyncio.sleep(0.01)
