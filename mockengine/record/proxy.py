"""``mockengine record``: a relaying proxy that writes a recording (``recordings/format.py``).

Clients connect exactly as to the real service; each WebSocket frame and each HTTP request is relayed to
the upstream unchanged, and the answer relayed back unchanged. The recording is written beside the
relay: WebSocket sessions through the journal's background writer (``server/journal.py``), HTTP exchanges
as one JSON file each. The upstream key replaces the client's key on the way out (an ``ek_`` client
secret passes through: the upstream minted it), and no key is ever written.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import WSMsgType, web

from mockengine.recordings.format import (
    HTTP_DIR,
    KEY_SUBPROTOCOL,
    SESSION_FILE,
    Scrubber,
    next_number,
    redact_headers,
    write_manifest,
)
from mockengine.recordings.strip import strip_audio
from mockengine.server.handshake import api_key_from, key_accepted
from mockengine.server.journal import BackgroundWriter, SessionJournal
from mockengine.settings import Settings

GOING_AWAY = 1001  # the recorder stopping closes its sessions as `serve` does (mockengine.server.lifecycle)
GOING_AWAY_REASON = "recorder shutting down"

log = logging.getLogger("mockengine.record")
HOP_HEADERS = {
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "content-encoding",
    "accept-encoding",
}


@dataclass
class Recorder:
    """What the proxy needs: where to relay, where to write, which key to use upstream."""

    upstream: str  # base URL ending in /v1, http(s) or ws(s)
    out: Path
    settings: Settings
    upstream_key: str | None = None
    has_audio: bool = True
    writer: BackgroundWriter = field(default_factory=lambda: BackgroundWriter("mockengine-record"))
    scrub: Scrubber = field(default_factory=Scrubber)
    http: aiohttp.ClientSession | None = None
    relays: set[_Relay] = field(default_factory=set)  # the sessions being relayed now
    _sessions: int = 0
    _exchanges: int = 0

    def __post_init__(self) -> None:
        self.upstream = self.upstream.rstrip("/")
        self.scrub.add(self.upstream_key)
        write_manifest(self.out, self.upstream, self.has_audio)
        self._sessions = next_number(self.out, "realtime-*") - 1
        self._exchanges = next_number(self.out / HTTP_DIR, "*.json") - 1

    def http_url(self, tail: str) -> str:
        base = self.upstream.replace("wss://", "https://", 1).replace("ws://", "http://", 1)
        return base + tail

    def ws_url(self, tail: str) -> str:
        base = self.upstream.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
        return base + tail

    def outgoing_key(self, client_key: str | None) -> str | None:
        """The key sent upstream: the configured one, except that an ``ek_`` secret (minted upstream for
        this client) and, without a configured key, the client's own key pass through."""
        self.scrub.add(client_key)
        if client_key and (client_key.startswith("ek_") or not self.upstream_key):
            return client_key
        return self.upstream_key

    def next_session_name(self) -> str:
        self._sessions += 1
        return f"realtime-{self._sessions:04d}"

    def next_exchange_path(self) -> Path:
        self._exchanges += 1
        return self.out / HTTP_DIR / f"{self._exchanges:04d}.json"

    def write_json(self, path: Path, record: dict[str, Any]) -> None:
        text = json.dumps(record, ensure_ascii=False, indent=1)
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                # A lone surrogate (a body's "\ud800" escape, which json.loads takes) has no UTF-8
                # form: kept as the escape, the exchange is written instead of lost with a traceback.
                text = json.dumps(record, indent=1)
        text = self.scrub(text)

        def job() -> None:  # whole or absent: a reader never sees half a file
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(".partial")
            partial.write_text(text + "\n", encoding="utf-8")
            os.replace(partial, path)

        self.writer.submit(job)


RECORDER = web.AppKey("recorder", Recorder)


def refuse(status: int, message: str, code: str | None) -> web.Response:
    """The OpenAI REST error shape; 5xx (the upstream failed) are ``server_error``s."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return web.json_response(body, status=status)


def _client_key(request: web.Request) -> tuple[str | None, list[str]]:
    protocols = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    return api_key_from(request.headers, protocols), protocols


async def realtime_proxy(request: web.Request) -> web.StreamResponse:
    """``GET /v1/realtime``: relay one WebSocket session both ways and record it."""
    recorder = request.app[RECORDER]
    upstream = await _connect_upstream(request, recorder)
    if isinstance(upstream, web.Response):
        return upstream
    ws = web.WebSocketResponse(
        protocols=(upstream.protocol,) if upstream.protocol else (), max_msg_size=0, compress=False
    )
    await ws.prepare(request)
    name = recorder.next_session_name()
    relay = _Relay(recorder, ws, upstream, SessionJournal(recorder.writer, recorder.out / name))
    info = {
        "name": name,
        "path": request.path,
        "query": dict(request.query),
        "request_headers": redact_headers(request.headers),
        "upstream": recorder.ws_url("/realtime"),
        "protocol": upstream.protocol,
        "started_at": round(time.time(), 3),
    }
    recorder.relays.add(relay)
    try:
        await relay.run()
    finally:
        recorder.relays.discard(relay)
        info["close"] = relay.close_info
        recorder.write_json(recorder.out / name / SESSION_FILE, info)
        relay.journal.close()
    return ws


async def _connect_upstream(
    request: web.Request, recorder: Recorder
) -> aiohttp.ClientWebSocketResponse | web.Response:
    """The upstream socket (same query, ``OpenAI-Beta`` and subprotocols, the upstream key), or the HTTP
    answer for the client: 401 for a key this recorder refuses, the upstream's refusal, 502."""
    key, protocols = _client_key(request)
    if not key_accepted(recorder.settings, key):
        return refuse(401, "Incorrect API key provided to the mockengine recorder.", "invalid_api_key")
    headers = {"Authorization": f"Bearer {recorder.outgoing_key(key)}"}
    if "OpenAI-Beta" in request.headers:
        headers["OpenAI-Beta"] = request.headers["OpenAI-Beta"]
    assert recorder.http is not None
    try:
        return await recorder.http.ws_connect(
            recorder.ws_url("/realtime") + (f"?{request.query_string}" if request.query_string else ""),
            headers=headers,
            protocols=[p for p in protocols if not p.startswith(KEY_SUBPROTOCOL)],
            max_msg_size=0,
            autoping=True,
        )
    except aiohttp.WSServerHandshakeError as exc:
        return refuse(exc.status or 502, f"upstream refused the WebSocket upgrade: {exc.message}", None)
    except aiohttp.ClientError as exc:
        return refuse(502, f"upstream unreachable: {exc}", "upstream_unreachable")


class _Relay:
    """The two pumps of one proxied session; whichever side closes first closes the other."""

    def __init__(
        self,
        recorder: Recorder,
        client: web.WebSocketResponse,
        upstream: aiohttp.ClientWebSocketResponse,
        journal: SessionJournal,
    ) -> None:
        self.recorder = recorder
        self.client = client
        self.upstream = upstream
        self.journal = journal
        self.input_format = "audio/pcm"
        self.output_format = "audio/pcm"
        self.close_info: dict[str, Any] = {}

    def _record_client(self, text: str) -> None:
        text = self.recorder.scrub(text)
        if not self.recorder.has_audio:
            text = strip_audio(text)
        self.journal.client_text(text, self.input_format, self.output_format)

    def _record_server(self, text: str) -> None:
        if '"session.created"' in text or '"session.updated"' in text:
            self._note_formats(text)
        if '"ek_' in text:
            for secret in _ek_values(text):
                self.recorder.scrub.add(secret)
        text = self.recorder.scrub(text)
        if not self.recorder.has_audio:
            text = strip_audio(text)
        self.journal.server(text, self.output_format, self.input_format)

    def _note_formats(self, text: str) -> None:
        try:
            audio = json.loads(text)["session"]["audio"]
            self.input_format = audio["input"]["format"]["type"]
            self.output_format = audio["output"]["format"]["type"]
        except (ValueError, KeyError, TypeError):
            pass

    async def _client_to_upstream(self) -> None:
        async for msg in self.client:
            if msg.type == WSMsgType.TEXT:
                self._record_client(msg.data)
                await self.upstream.send_str(msg.data)
            elif msg.type == WSMsgType.BINARY:
                self.journal.client_binary(len(msg.data))
                await self.upstream.send_bytes(msg.data)
        self.close_info.setdefault("by", "client")
        self.close_info.setdefault("code", self.client.close_code)
        await self.upstream.close(code=self.client.close_code or 1000)

    async def _upstream_to_client(self) -> None:
        while True:
            msg = await self.upstream.receive()
            if msg.type == WSMsgType.TEXT:
                self._record_server(msg.data)
                await self.client.send_str(msg.data)
            elif msg.type == WSMsgType.BINARY:
                await self.client.send_bytes(msg.data)
            elif msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                break
        # The close code and reason go to the client as the upstream gave them (3000/4000 refusals).
        reason = msg.extra if msg.type == WSMsgType.CLOSE and isinstance(msg.extra, str) else ""
        code = self.upstream.close_code or 1000
        self.close_info.setdefault("by", "upstream")
        self.close_info.setdefault("code", code)
        self.close_info.setdefault("reason", reason)
        await self.client.close(code=code, message=reason.encode()[:120])

    async def stop(self) -> None:
        """The recorder is stopping (SIGINT / SIGTERM): both sides are closed 1001 ("going away", as
        ``serve`` closes its sessions), so the session ends and its ``session.json`` is written now
        rather than when the client gives up."""
        self.close_info.update(by="recorder", code=GOING_AWAY, reason=GOING_AWAY_REASON)
        await self.client.close(code=GOING_AWAY, message=GOING_AWAY_REASON.encode())
        await self.upstream.close(code=GOING_AWAY)

    async def run(self) -> None:
        tasks = [
            asyncio.create_task(self._client_to_upstream()),
            asyncio.create_task(self._upstream_to_client()),
        ]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            await asyncio.wait(tasks, timeout=2.0)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if not self.upstream.closed:
                await self.upstream.close()


def _ek_values(text: str) -> list[str]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    found: list[str] = []
    _collect_ek(data, found)
    return found


def _collect_ek(value: Any, found: list[str]) -> None:
    if isinstance(value, str) and value.startswith("ek_"):
        found.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _collect_ek(item, found)
    elif isinstance(value, list):
        for item in value:
            _collect_ek(item, found)
