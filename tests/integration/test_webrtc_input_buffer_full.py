"""A WebRTC call whose input buffer is full (``turn_detection: null``, nothing committed) while the
microphone keeps coming: the client sent no append event, only a track, so it hears once that the buffer
is full, not once per 20 ms frame (or per quiet-timer tick once its sender stops sending) for as long as
the buffer stays full."""

from __future__ import annotations

import asyncio

from tests.webrtc_client import CallClient


def _full_errors(client: CallClient) -> int:
    return sum(
        1 for e in client.events if e["type"] == "error" and e["error"]["code"] == "input_audio_buffer_full"
    )


async def test_a_full_buffer_is_reported_once_until_it_takes_audio_again(engine):
    server = await engine(max_input_buffer_s=1)
    client = CallClient()  # its microphone sends 20 ms frames of silence in real time
    try:
        await client.connect(server.http_url)
        await client.turn_detection_off()
        await client.wait_for("error", timeout_s=10)
        await asyncio.sleep(1.5)  # ~75 more frames refused
        assert _full_errors(client) == 1, client.kinds()
        # Committed, the buffer takes audio again; full again a second later, it is reported again.
        client.send({"type": "input_audio_buffer.commit"})
        await client.wait_for("input_audio_buffer.committed")
        await asyncio.sleep(2.5)
        assert _full_errors(client) == 2, client.kinds()
    finally:
        await client.close()
