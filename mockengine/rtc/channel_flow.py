"""Bounded sending on a WebRTC data channel (``oai-events``).

aiortc's ``RTCDataChannel.send`` never waits: each message joins the SCTP association's send queue (an
unbounded deque) and the channel's ``bufferedAmount`` counts the bytes not yet handed to SCTP's
congestion window. A peer that stops acknowledging (or a slow path) would let that queue grow without
end. :class:`ChannelSender` waits instead, as a WebSocket send waits for the socket to drain: past
``high_water_bytes`` buffered, ``send`` returns only once the amount fell to ``low_water_bytes`` (the
channel's ``bufferedamountlow`` event, W3C WebRTC §6.2) or the call ended. The session's writer awaits it,
so its outbox backlog grows instead and the session's own flow control holds output there
(``SessionLoop``: the clock stands still past the audio high-water mark), as for a WebSocket client that
does not read.
"""

from __future__ import annotations

import asyncio
from typing import Any

HIGH_WATER_BYTES = 1 << 20  # 1 MiB buffered: wait
LOW_WATER_BYTES = 256 << 10  # until 256 KiB are left


class ChannelSender:
    """Sends text on ``channel`` (an ``RTCDataChannel``), waiting while too much is buffered; ``ended`` is
    set when the call is over (a wait then ends at once)."""

    def __init__(
        self,
        channel: Any,
        ended: asyncio.Event,
        high_water_bytes: int = HIGH_WATER_BYTES,
        low_water_bytes: int = LOW_WATER_BYTES,
    ) -> None:
        self.channel = channel
        self.ended = ended
        self.high_water_bytes = high_water_bytes
        self.waits = 0  # how many sends had to wait for the buffer to drain (a figure for tests and logs)
        self._drained = asyncio.Event()
        channel.bufferedAmountLowThreshold = low_water_bytes
        channel.on("bufferedamountlow", self._drained.set)

    async def send(self, text: str) -> bool:
        """Send ``text``; False when the channel is not open. Returns once the buffer is below the high
        water mark again (or the call ended)."""
        if self.channel.readyState != "open":
            return False
        self.channel.send(text)
        if self.channel.bufferedAmount > self.high_water_bytes and not self.ended.is_set():
            self.waits += 1
            self._drained.clear()
            drained = asyncio.ensure_future(self._drained.wait())
            ending = asyncio.ensure_future(self.ended.wait())
            try:
                await asyncio.wait([drained, ending], return_when=asyncio.FIRST_COMPLETED)
            finally:
                drained.cancel()
                ending.cancel()
        return True
