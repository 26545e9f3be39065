"""``conversation.item.retrieve`` on a call, for an item whose audio is larger than the page's data channel
takes (262,144 bytes for Chromium and aiortc): the JS Agents SDK retrieves every user turn once it is
transcribed and every item it truncated, so a turn of ~4 s gave the app an ``event_too_large`` error on
every such turn. On a call the audio went over the tracks: the item comes without it (``audio`` null),
everything else kept; a small item still comes with its audio, as over WebSocket."""

from __future__ import annotations

import asyncio
import base64

from tests.webrtc_client import CallClient


async def _committed_after(client: CallClient, seconds: float) -> str:
    """The id of the user item the microphone's next ``seconds`` of (silent) audio become."""
    await asyncio.sleep(seconds)
    before = client.kinds().count("input_audio_buffer.committed")
    client.send({"type": "input_audio_buffer.commit"})
    while client.kinds().count("input_audio_buffer.committed") == before:
        await asyncio.sleep(0.05)
    return [e for e in client.events if e["type"] == "input_audio_buffer.committed"][-1]["item_id"]


async def _retrieved(client: CallClient, item_id: str) -> dict:
    client.send({"type": "conversation.item.retrieve", "item_id": item_id})
    for _ in range(200):
        for event in client.events:
            if event["type"] == "conversation.item.retrieved" and event["item"]["id"] == item_id:
                return event["item"]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no conversation.item.retrieved for {item_id}: {client.kinds()}")


async def test_a_retrieved_item_too_large_for_the_channel_comes_without_its_audio(engine):
    server = await engine()
    client = CallClient()  # its microphone sends 20 ms frames of silence in real time
    try:
        await client.connect(server.http_url)
        await client.turn_detection_off()
        small = await _retrieved(client, await _committed_after(client, 1.0))
        large = await _retrieved(client, await _committed_after(client, 6.0))
    finally:
        await client.close()
    assert not [e for e in client.events if e["type"] == "error"], client.kinds()
    (small_part,) = small["content"]
    assert small_part["type"] == "input_audio" and len(base64.b64decode(small_part["audio"])) > 24_000
    (large_part,) = large["content"]
    assert large_part["type"] == "input_audio" and large_part["audio"] is None
    assert set(large_part) == set(small_part) and large["status"] == small["status"] == "completed"
