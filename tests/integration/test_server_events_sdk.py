"""Every event of real sessions over a socket, checked against the ``openai`` SDK's models strictly and
against the keys of the live service's captured frames (see tests/server_event_check.py): spoken turns
with transcription (and its logprobs) and a barge-in; text replies, a function call and its output, an
image, truncate / retrieve / delete, max_output_tokens, an out-of-band response, errors (one naming its
client event); an injected mid-response error; a transcription session. Fake engines (no models)."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import aiohttp
from PIL import Image

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol.server_events import BUILDERS
from mockengine.protocol.session_config import TRANSCRIPTION_LOGPROBS
from tests.server_event_check import live_key_deviations, sdk_deviations

WEBRTC_ONLY = {"output_audio_buffer.started", "output_audio_buffer.stopped", "output_audio_buffer.cleared"}
# Need an MCP server: tests/integration/test_mcp_tools_sdk.py checks each against the SDK on a real one.
HOSTED_MCP = {kind for kind in BUILDERS if kind.startswith(("mcp_list_tools.", "response.mcp_call"))}
REALTIME = "model=gpt-realtime"
TOOL = {
    "type": "function",
    "name": "send_chat",
    "description": "Send a chat message.",
    "parameters": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
}


class Client:
    """One session's socket, keeping every server event it received."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.events: list[dict[str, Any]] = []

    async def send(self, **event: Any) -> None:
        await self.ws.send_str(json.dumps(event))

    async def until(self, kind: str, count: int = 1) -> dict[str, Any]:
        """Receive until the ``count``-th ``kind`` since the call; returns it."""
        seen = 0
        while True:
            event = json.loads((await self.ws.receive(timeout=20)).data)
            self.events.append(event)
            if event["type"] == kind:
                seen += 1
                if seen == count:
                    return event

    async def append(self, pcm: bytes) -> None:
        for offset in range(0, len(pcm), 4800):
            await self.send(
                type="input_audio_buffer.append", audio=base64.b64encode(pcm[offset : offset + 4800]).decode()
            )

    async def ask(self, text: str, **response: Any) -> dict[str, Any]:
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        await self.send(type="conversation.item.create", item=item)
        await self.send(type="response.create", response=response)
        return await self.until("response.created")


async def _spoken(client: Client) -> None:
    audio_input = {
        "transcription": {"model": "whisper-1", "language": "en"},
        "noise_reduction": {"type": "near_field"},
        "turn_detection": {"type": "server_vad"},
    }
    session = {"type": "realtime", "audio": {"input": audio_input}, "include": [TRANSCRIPTION_LOGPROBS]}
    await client.send(type="session.update", session=session)
    await client.append(synthetic_voiced_pcm16(900) + bytes(48 * 600))
    await client.until("response.done")
    await client.append(synthetic_voiced_pcm16(900) + bytes(48 * 600))
    await client.until("response.output_audio.delta")
    await client.append(synthetic_voiced_pcm16(600))  # barge in: the reply is cancelled
    await client.until("response.done")
    await client.send(type="input_audio_buffer.clear")
    await client.send(type="input_audio_buffer.commit")  # empty now: an error
    await client.until("error")
    await client.send(type="conversation.item.retrieve", item_id="item_nope", event_id="event_mine")
    await client.until("error")  # error.event_id names the client's event


async def _transcription(client: Client) -> None:
    transcription = {"model": "gpt-4o-mini-transcribe"}
    session = {
        "type": "transcription",
        "audio": {"input": {"transcription": transcription}},
        "include": [TRANSCRIPTION_LOGPROBS],
    }
    await client.send(type="session.update", session=session)
    await client.until("session.updated")
    await client.append(synthetic_voiced_pcm16(900) + bytes(48 * 600))
    await client.until("conversation.item.input_audio_transcription.completed")


async def _diarized(client: Client) -> None:
    """gpt-4o-transcribe-diarize: the turn's segments too."""
    session = {
        "type": "transcription",
        "audio": {"input": {"transcription": {"model": "gpt-4o-transcribe-diarize"}}},
    }
    await client.send(type="session.update", session=session)
    await client.until("session.updated")
    await client.append(synthetic_voiced_pcm16(900) + bytes(48 * 600))
    await client.until("conversation.item.input_audio_transcription.completed")


async def _items_and_tools(client: Client) -> None:
    session = {"type": "realtime", "output_modalities": ["text"], "tools": [TOOL], "tool_choice": "auto"}
    await client.send(type="session.update", session=session)
    await client.ask("Please send a chat message saying hello to Alex.", tool_choice="required")
    call = await client.until("response.function_call_arguments.done")
    await client.until("response.done")
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": '{"ok": true}'}
    await client.send(type="conversation.item.create", item=output)
    png = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(png, format="PNG")
    url = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode()
    image = {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": url}]}
    await client.send(type="conversation.item.create", item=image)
    await client.send(type="response.create", response={"max_output_tokens": 3, "metadata": {"turn": "2"}})
    await client.until("response.done")
    await client.send(type="session.update", session={"type": "realtime", "output_modalities": ["audio"]})
    await client.ask("Tell me a long story about the sea.")
    added = await client.until("response.output_audio.delta")
    await client.send(
        type="conversation.item.truncate", item_id=added["item_id"], content_index=0, audio_end_ms=50
    )
    await client.send(type="response.cancel")
    await client.until("response.done")
    await client.send(type="conversation.item.retrieve", item_id=added["item_id"])
    await client.until("conversation.item.retrieved")
    await client.send(type="conversation.item.delete", item_id=added["item_id"])
    await client.send(type="conversation.item.delete", item_id="item_gone")
    await client.until("error")
    await client.send(
        type="response.create", response={"conversation": "none", "output_modalities": ["text"]}
    )
    await client.until("response.done")


async def _fault(client: Client) -> None:
    await client.ask("Hello there.")
    await client.until("error")
    await client.until("response.done")


async def _run(base: str, query: str, script: Any) -> list[dict[str, Any]]:
    url = f"{base}/realtime?{query}"
    headers = {"Authorization": "Bearer sk-test"}
    async with aiohttp.ClientSession() as http, http.ws_connect(url, headers=headers) as ws:
        client = Client(ws)
        await client.until("session.created")
        await script(client)
        return client.events


async def test_every_event_of_real_sessions_matches_the_sdk(engine_url) -> None:
    base = await engine_url(audio_pace=0.0)
    events = await _run(base, REALTIME, _spoken)
    events += await _run(base, REALTIME, _items_and_tools)
    events += await _run(base, f"{REALTIME}&fault=error_mid_response:2", _fault)
    events += await _run(base, "intent=transcription", _transcription)
    diarized = await _run(base, "intent=transcription", _diarized)
    events += diarized
    assert sorted({d for event in events for d in sdk_deviations(event)}) == []
    assert sorted({d for event in events for d in live_key_deviations(event)}) == []
    sent = {event["type"] for event in events}
    # What the client asked for is there: logprobs on every input transcript, its event id on an error,
    # the transcription echoed with the live nulls (reference §4).
    transcripts = [
        e
        for e in events
        if e["type"].startswith("conversation.item.input_audio_transcription") and e not in diarized
    ]
    assert transcripts and all(isinstance(e["logprobs"], list) and e["logprobs"] for e in transcripts)
    assert any(e["type"] == "error" and e["error"]["event_id"] == "event_mine" for e in events)
    updated = [
        e["session"]["audio"]["input"]["transcription"] for e in events if e["type"] == "session.updated"
    ]
    assert {"model": "gpt-4o-mini-transcribe", "language": None, "prompt": None} in updated
    # A failing engine, and server_vad's idle timeout (5 s at least): tests/unit/test_server_events.py.
    unit_only = {"conversation.item.input_audio_transcription.failed", "input_audio_buffer.timeout_triggered"}
    assert set(BUILDERS) - WEBRTC_ONLY - HOSTED_MCP - sent == unit_only
