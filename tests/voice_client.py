"""A tiny client after the voice-client spec §3.1 (seeds/voice-client-spec.md), over WebSocket instead of
WebRTC: MINTING (POST client_secrets with a timeout) → CONNECTING (socket + ``session.updated`` echoing
our config within a hard timeout) → LIVE; a failed mint or connect → DEGRADED, loudly (the reason is
kept); a socket closing while LIVE → RECONNECTING, then up to two fresh sessions (backoff) before
DEGRADED. The tests drive it against mockengine with faults to prove each error path runs.

Timeouts are parameters: the spec's 5 s / 8 s, scaled down in tests so they run quickly.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import openai
from openai import AsyncOpenAI

SESSION = {"type": "realtime", "instructions": "Be brief.", "audio": {"output": {"voice": "coral"}}}


@dataclass
class VoiceClient:
    base: str  # ws://host:port/v1
    mint_timeout_s: float = 5.0
    connect_timeout_s: float = 8.0
    backoff_s: tuple[float, ...] = (0.05, 0.15)  # the spec's 1 s, 3 s, scaled
    mint_headers: dict[str, str] = field(default_factory=dict)
    connect_query: str = ""
    states: list[str] = field(default_factory=list)
    reason: str | None = None
    session_id: str | None = None
    http: aiohttp.ClientSession | None = None
    ws: aiohttp.ClientWebSocketResponse | None = None

    def _enter(self, state: str, reason: str | None = None) -> None:
        self.states.append(state)
        if reason is not None:
            self.reason = reason

    @property
    def state(self) -> str:
        return self.states[-1] if self.states else "IDLE"

    async def mint(self) -> str | None:
        self._enter("MINTING")
        client = AsyncOpenAI(
            api_key="sk-server-side",
            base_url=self.base.replace("ws://", "http://"),
            timeout=self.mint_timeout_s,
            max_retries=0,
            default_headers=self.mint_headers,
        )
        try:
            async with client:
                secret = await client.realtime.client_secrets.create(session=SESSION)  # type: ignore[arg-type]
        except openai.APIError as exc:
            self._enter("DEGRADED", f"mint failed: {type(exc).__name__}")
            return None
        return secret.value

    async def connect(self, secret: str) -> bool:
        self._enter("CONNECTING")
        self.http = self.http or aiohttp.ClientSession()
        try:
            async with asyncio.timeout(self.connect_timeout_s):
                self.ws = await self.http.ws_connect(
                    f"{self.base}/realtime{self.connect_query}",
                    protocols=("realtime", f"openai-insecure-api-key.{secret}"),
                )
                created = await self._next("session.created")
                self.session_id = created["session"]["id"]
                await self.ws.send_str(json.dumps({"type": "session.update", "session": SESSION}))
                updated = await self._next("session.updated")
                assert updated["session"]["audio"]["output"]["voice"] == "coral"
        except TimeoutError:
            self._enter("DEGRADED", "connect timed out")
            return False
        except (aiohttp.ClientError, ConnectionError) as exc:
            self._enter("DEGRADED", f"connect failed: {exc}")
            return False
        self._enter("LIVE")
        return True

    async def _next(self, kind: str) -> dict[str, Any]:
        assert self.ws is not None
        while True:
            msg = await self.ws.receive()
            if msg.type != aiohttp.WSMsgType.TEXT:
                raise ConnectionError(f"socket closed ({msg.type.name}, {self.ws.close_code})")
            event = json.loads(msg.data)
            if event["type"] == kind:
                return event

    async def start(self) -> bool:
        secret = await self.mint()
        return secret is not None and await self.connect(secret)

    async def say(self, text: str) -> list[dict[str, Any]]:
        """Ask for a reply; returns the events up to ``response.done``, or up to the socket's end (then the
        client goes RECONNECTING and tries fresh sessions, as the spec says)."""
        assert self.ws is not None
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        await self.ws.send_str(json.dumps({"type": "conversation.item.create", "item": item}))
        await self.ws.send_str(json.dumps({"type": "response.create"}))
        events: list[dict[str, Any]] = []
        while True:
            msg = await self.ws.receive(timeout=30)
            if msg.type != aiohttp.WSMsgType.TEXT:
                await self.reconnect()
                return events
            events.append(json.loads(msg.data))
            if events[-1]["type"] == "response.done":
                return events

    async def reconnect(self) -> None:
        self._enter("RECONNECTING", f"socket closed (code {self.ws.close_code if self.ws else None})")
        for delay in self.backoff_s:
            await asyncio.sleep(delay)
            secret = await self.mint()
            if secret is not None and await self.connect(secret):
                return
        self._enter("DEGRADED", "reconnects failed")

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.http is not None:
            await self.http.close()
