"""``output_audio_buffer.clear`` and barge-in on a call whose next reply is already being made behind the
one that plays (a voice app answering a tool call, or a second ``response.create``, while the first reply
is still being heard). The clear "will trigger the server to stop generating audio" (the SDK's
docstring): the reply queued behind went on streaming, its audio played right after the
``output_audio_buffer.cleared`` (``output_audio_buffer.started`` for it, then a whole ``response.done``
"completed"), so the app that asked for silence got the next reply instead. Fake engines: a reply is a
tone 60 ms a character, a story tens of seconds."""

from __future__ import annotations

import asyncio

from tests.webrtc_client import CallClient

NO_TURNS = {
    "type": "session.update",
    "session": {"type": "realtime", "audio": {"input": {"turn_detection": None}}},
}


def ask(client: CallClient, text: str) -> None:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    client.send({"type": "conversation.item.create", "item": item})
    client.send({"type": "response.create"})


async def _second_reply_streaming(client: CallClient) -> tuple[str, str]:
    """A story made whole and playing, a second one being made behind it: (first, second) response ids."""
    client.send(NO_TURNS)
    await client.wait_for("session.updated")
    ask(client, "Tell me a story.")
    first = (await client.wait_for("response.done"))["response"]["id"]
    mark = len(client.events)
    ask(client, "Tell me another story.")
    second = (await client.wait_for("response.created", after=mark))["response"]["id"]
    await client.wait_for("response.output_audio_transcript.delta", after=mark)  # its audio is queued too
    return first, second


async def test_clear_stops_the_reply_queued_behind_the_one_playing(engine):
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        first, second = await _second_reply_streaming(client)
        assert "output_audio_buffer.stopped" not in client.kinds()  # the first still plays
        mark = len(client.events)
        client.send({"type": "output_audio_buffer.clear"})
        cleared = await client.wait_for("output_audio_buffer.cleared", after=mark)
        truncated = await client.wait_for("conversation.item.truncated", after=mark)
        done = await client.wait_for("response.done", after=mark)
        await asyncio.sleep(0.5)  # long enough for a queued reply's first frame to have gone out
    finally:
        await client.close()
    assert cleared["response_id"] == first
    first_item = next(e for e in client.events if e["type"] == "response.done")["response"]["output"][0]
    assert truncated["item_id"] == first_item["id"]
    # The reply behind it stopped being made: cancelled as the clear alone cancels the one playing.
    assert done["response"]["id"] == second and done["response"]["status"] == "cancelled", done["response"]
    after = client.events[mark:]
    assert not [e for e in after if e["type"] == "output_audio_buffer.started"], [e["type"] for e in after]
    assert not [e for e in client.events if e["type"] == "error"], client.events


async def test_clear_before_a_reply_has_started_playing_stops_it(engine):
    """A clear that comes while the reply's audio is still on its way to the track (nothing had played
    yet): the reply is not made on, nor played after the clear."""
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        client.send(NO_TURNS)
        await client.wait_for("session.updated")
        mark = len(client.events)
        ask(client, "Tell me a story.")
        client.send({"type": "output_audio_buffer.clear"})
        done = await client.wait_for("response.done", after=mark)
        await asyncio.sleep(0.5)
    finally:
        await client.close()
    assert done["response"]["status"] == "cancelled", done["response"]
    after = client.events[mark:]
    assert "output_audio_buffer.started" not in [e["type"] for e in after], [e["type"] for e in after]
    assert not [e for e in client.events if e["type"] == "error"], client.events
