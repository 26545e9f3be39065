"""Interrupting a reply over WebSocket as frameworks do it, in both orders (the Agents SDK: truncate then
cancel; LiveKit: cancel then truncate): no error, the item cut where the client stopped playing, its
transcript dropped from the context, and the next turn works."""

from __future__ import annotations

import base64
import json

import aiohttp
import pytest

from tests.speech import validate_server_event

pytestmark = pytest.mark.models
STORY = {
    "type": "message",
    "role": "user",
    "content": [{"type": "input_text", "text": "Tell me a long story about a lighthouse keeper."}],
}


async def receive(ws, kind: str, seen: list[dict]) -> dict:
    while True:
        event = json.loads((await ws.receive(timeout=30)).data)
        validate_server_event(event)
        seen.append(event)
        assert event["type"] != "error", event
        if event["type"] == kind:
            return event


@pytest.mark.parametrize("order", [("truncate", "cancel"), ("cancel", "truncate")])
async def test_interrupting_a_reply_in_either_order(engine, order) -> None:
    eng = await engine(audio_pace=1.0)
    seen: list[dict] = []
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-1"}) as ws,
    ):
        await receive(ws, "session.created", seen)
        await ws.send_str(json.dumps({"type": "conversation.item.create", "item": STORY}))
        await ws.send_str(json.dumps({"type": "response.create"}))
        played = 0
        for _ in range(3):
            played += len(base64.b64decode((await receive(ws, "response.output_audio.delta", seen))["delta"]))
        item_id = seen[-1]["item_id"]
        heard_ms = played // 48 // 2
        frames = {
            "truncate": {
                "type": "conversation.item.truncate",
                "item_id": item_id,
                "content_index": 0,
                "audio_end_ms": heard_ms,
            },
            "cancel": {"type": "response.cancel"},
        }
        for step in order:
            await ws.send_str(json.dumps(frames[step]))
        truncated = await receive(ws, "conversation.item.truncated", seen)
        assert truncated["audio_end_ms"] == heard_ms
        done = next((e for e in seen if e["type"] == "response.done"), None) or await receive(
            ws, "response.done", seen
        )
        assert done["response"]["status"] == "cancelled"
        assert done["response"]["status_details"] == {"type": "cancelled", "reason": "client_cancelled"}
        assert done["response"]["output"][0]["status"] == "incomplete"

        # Audio streamed after the cut (truncate first: until the cancel) is added after it.
        after_cut = seen[seen.index(truncated) :]
        streamed = sum(
            len(base64.b64decode(e["delta"])) for e in after_cut if e["type"] == "response.output_audio.delta"
        )
        await ws.send_str(json.dumps({"type": "conversation.item.retrieve", "item_id": item_id}))
        item = (await receive(ws, "conversation.item.retrieved", seen))["item"]
        assert item["content"][0]["transcript"] is None
        assert len(base64.b64decode(item["content"][0]["audio"])) == heard_ms * 48 + streamed

        await ws.send_str(
            json.dumps(
                {
                    "type": "conversation.item.create",
                    "item": {**STORY, "content": [{"type": "input_text", "text": "Thanks, that is enough."}]},
                }
            )
        )
        await ws.send_str(
            json.dumps({"type": "response.create", "response": {"output_modalities": ["text"]}})
        )
        assert (await receive(ws, "response.done", seen))["response"]["status"] == "completed"
