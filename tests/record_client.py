"""One scripted Realtime client for the record/replay tests: a spoken turn, a typed turn with a tool
call, and a barge-in (speech while a long answer plays, then a truncate). It returns every server event it
received; run against the recorder and then against the replay, the two lists must agree."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import aiohttp

from mockengine.brain.hrp import HRP_TOOLS

SEND_CHAT = next(t for t in HRP_TOOLS if t.name == "send_chat")
TOOLS = [{"type": "function", "name": SEND_CHAT.name, "parameters": SEND_CHAT.parameters}]
TOOL_OUTPUT = '{"sent": true}'


class Diverged(Exception):
    """The server answered with an ``error`` event."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.error = error


class ScriptedClient:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.events: list[dict[str, Any]] = []

    async def send(self, **event: Any) -> None:
        await self.ws.send_str(json.dumps(event))

    async def until(
        self, kind: str, where: Callable[[dict[str, Any]], bool] = lambda e: True
    ) -> dict[str, Any]:
        while True:
            msg = await self.ws.receive(timeout=30)
            assert msg.type == aiohttp.WSMsgType.TEXT, f"socket ended: {msg}"
            event = json.loads(msg.data)
            self.events.append(event)
            if event["type"] == "error":
                raise Diverged(event["error"])
            if event["type"] == kind and where(event):
                return event

    async def speak(self, pcm: bytes, silence_ms: int = 1500) -> None:
        audio = pcm + bytes(48 * silence_ms)
        for offset in range(0, len(audio), 48 * 100):
            chunk = base64.b64encode(audio[offset : offset + 48 * 100]).decode()
            await self.send(type="input_audio_buffer.append", audio=chunk)

    async def say(self, text: str) -> None:
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        await self.send(type="conversation.item.create", item=item)
        await self.send(type="response.create")


async def run_script(
    url: str,
    key: str,
    pcm: bytes,
    tool_output: str = TOOL_OUTPUT,
    turn_detection: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The whole script; raises :class:`Diverged` (holding the error) on an ``error`` event.
    ``turn_detection``: sent in the first session.update (else the session's default is kept)."""
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers={"Authorization": f"Bearer {key}"}) as ws,
    ):
        client = ScriptedClient(ws)
        try:
            await _script(client, pcm, tool_output, turn_detection)
        except Diverged as exc:
            exc.events = client.events  # type: ignore[attr-defined]
            raise
        return client.events


async def _script(
    client: ScriptedClient, pcm: bytes, tool_output: str, turn_detection: dict[str, Any] | None
) -> None:
    await client.until("session.created")
    session: dict[str, Any] = {"type": "realtime", "tools": TOOLS}
    if turn_detection is not None:
        session["audio"] = {"input": {"turn_detection": turn_detection}}
    await client.send(type="session.update", session=session)
    await client.until("session.updated")
    await client.speak(pcm)  # 1: a spoken turn (server_vad)
    await client.until("response.done")
    await client.say("Please use the tool to send a chat message saying hello.")  # 2: a tool call
    done = await client.until("response.done")
    call = next(o for o in done["response"]["output"] if o["type"] == "function_call")
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": tool_output}
    await client.send(type="conversation.item.create", item=output)
    await client.send(type="response.create")
    await client.until("response.done")
    await client.say("Please give me a long answer about the weather.")  # 3: a barge-in
    added = await client.until("response.output_item.added")
    await client.until("response.output_audio.delta")
    await client.speak(pcm)
    await client.until("input_audio_buffer.speech_started")
    truncate = {"item_id": added["item"]["id"], "content_index": 0, "audio_end_ms": 100}
    await client.send(type="conversation.item.truncate", **truncate)
    await client.until("response.done")  # the interrupted answer
    await client.until("response.done")  # the answer to the barge-in
