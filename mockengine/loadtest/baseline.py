"""The bare baseline: an aiohttp WebSocket server that parses and discards the same traffic.

It does what any Python WebSocket service must do with a participant's audio stream and nothing more:
receive each frame, parse its JSON, base64-decode the audio, drop it — with the same parsers the engine
uses on its audio path (orjson, pybase64), so the comparison is of everything else. It greets with
``session.created`` and answers an event carrying an ``event_id`` with ``{"type": "ack"}`` so the driver
can time a round trip. ``mockengine bench`` runs it beside the engine, with the same driver, to show
how much of the machine the engine's own work takes.

Run: ``python -m mockengine.loadtest.baseline --port 9000``; ``GET /healthz`` answers 200.
"""

from __future__ import annotations

import argparse
import json

import orjson
from aiohttp import WSMsgType, web

from mockengine.audio.pcm import strict_b64decode


async def _socket(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse(max_msg_size=32 * 1024 * 1024, compress=False)
    await ws.prepare(request)
    await ws.send_str('{"type": "session.created"}')
    async for msg in ws:
        if msg.type != WSMsgType.TEXT:
            continue
        event = orjson.loads(msg.data)
        audio = event.get("audio")
        if isinstance(audio, str):
            strict_b64decode(audio)
        if "event_id" in event:
            await ws.send_str(json.dumps({"type": "ack", "event_id": event["event_id"]}))
    return ws


async def _healthz(_request: web.Request) -> web.Response:
    return web.json_response({"status": "ok", "server": "baseline"})


def create_app() -> web.Application:
    app = web.Application()
    app.router.add_get("/v1/realtime", _socket)
    app.router.add_get("/healthz", _healthz)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    web.run_app(create_app(), host=args.host, port=args.port, print=None)


if __name__ == "__main__":
    main()
