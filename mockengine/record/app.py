"""The recorder's aiohttp application (``mockengine record``); it loads no models."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import sys
import urllib.parse
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
from aiohttp import web

from mockengine.record.proxy import RECORDER, Recorder, realtime_proxy
from mockengine.record.proxy_http import http_proxy
from mockengine.recordings.format import RecordingError
from mockengine.settings import Settings, SettingsError, from_env

UPSTREAM_KEY_ENV = ("MOCKENGINE_UPSTREAM_KEY", "OPENAI_API_KEY")


def upstream_base(url: str) -> str:
    """``--upstream`` as the base URL the recorder relays under. A URL with no path is taken as ``/v1``,
    as the SDKs' base URLs and `conformance --url` do: `--upstream https://api.openai.com` relayed
    `/v1/chat/completions` to `https://api.openai.com/chat/completions`, a 404 for every request.
    Raises ValueError (the message says what is expected) for another scheme or no host."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        raise ValueError(
            f"--upstream {url}: expected the service's base URL, http(s):// or ws(s):// with a host, "
            "e.g. https://api.openai.com/v1"
        )
    if parts.path in ("", "/"):
        return urllib.parse.urlunsplit(parts._replace(path="/v1"))
    return url


async def _healthz(request: web.Request) -> web.Response:
    recorder = request.app[RECORDER]
    return web.json_response({"status": "ok", "mode": "record", "upstream": recorder.upstream})


def create_record_app(recorder: Recorder) -> web.Application:
    """Routes: ``GET /v1/realtime`` (WebSocket relay), any other ``/v1/...`` (HTTP relay), ``/healthz``."""
    app = web.Application(client_max_size=64 * 1024 * 1024)
    app[RECORDER] = recorder
    app.router.add_get("/v1/realtime", realtime_proxy)
    app.router.add_route("*", "/v1/{tail:.*}", http_proxy)
    app.router.add_get("/healthz", _healthz)

    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        recorder.http = aiohttp.ClientSession(auto_decompress=True)
        yield
        await recorder.http.close()
        recorder.writer.drain()
        recorder.writer.close()

    app.cleanup_ctx.append(lifetime)

    async def close_sessions(app: web.Application) -> None:
        # Ctrl-C with a session open waited for its client to leave (aiohttp waits for handlers)
        await asyncio.gather(*(relay.stop() for relay in list(recorder.relays)), return_exceptions=True)

    app.on_shutdown.append(close_sessions)
    return app


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = Settings()
    parser.add_argument(
        "--upstream", required=True, help="base URL of the service, e.g. https://api.openai.com/v1"
    )
    parser.add_argument("--out", required=True, help="recording directory (created; sessions are added)")
    parser.add_argument(
        "--upstream-key",
        help="key sent to the upstream (default: $MOCKENGINE_UPSTREAM_KEY or $OPENAI_API_KEY; "
        "without one the client's key is passed on). Never written to the recording",
    )
    parser.add_argument("--no-audio", action="store_true", help="record events only, no WAV files")
    parser.add_argument(
        "--host", help=f"address to listen on (default $MOCKENGINE_HOST, else {defaults.host})"
    )
    parser.add_argument("--port", type=int, help=f"port (default $MOCKENGINE_PORT, else {defaults.port})")
    parser.add_argument(
        "--api-key",
        action="append",
        dest="api_keys",
        metavar="KEY",
        help="accept this client key (repeat for several; default: $MOCKENGINE_API_KEYS, comma-separated, "
        "else any non-empty key)",
    )
    parser.add_argument(
        "--api-keys-file",
        help="accept the client keys in this file, one a line (default $MOCKENGINE_API_KEYS_FILE)",
    )


def run(args: argparse.Namespace) -> int:
    from mockengine.server.handshake import configured_keys
    from mockengine.server.lifecycle import CannotListen, bind
    from mockengine.server.settings_checks import source_label

    try:
        settings = from_env()
    except SettingsError as exc:
        print(f"mockengine record: {exc}", file=sys.stderr)
        return 2
    changes = {k: getattr(args, k) for k in ("host", "port", "api_keys_file") if getattr(args, k) is not None}
    if args.api_keys:
        changes["api_keys"] = tuple(args.api_keys)
    settings = dataclasses.replace(settings, **changes)
    # The options `serve` has too read the same variables (flag > variable > default) and are named as
    # `serve` names them: `MOCKENGINE_PORT (--port)` when the value came from the environment.
    label = source_label(changes)
    key = args.upstream_key or next((os.environ[n] for n in UPSTREAM_KEY_ENV if os.environ.get(n)), None)
    try:
        upstream = upstream_base(args.upstream)
    except ValueError as exc:
        print(f"mockengine record: {exc}", file=sys.stderr)
        return 2
    # As `serve` checks them: a port out of range was wrapped by the socket layer (99999 listened on
    # 34463), and a keys file that is not there started a recorder that refused every client's key.
    if not 0 <= settings.port <= 65535:
        print(
            f"mockengine record: {label('port')} must be between 0 and 65535, not {settings.port}",
            file=sys.stderr,
        )
        return 2
    try:
        configured_keys(settings)
    except (OSError, UnicodeDecodeError) as exc:  # a file that is not UTF-8 was a traceback
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(
            f"mockengine record: {label('api_keys_file')} {settings.api_keys_file}: {reason}", file=sys.stderr
        )
        return 2
    try:  # a taken port is one line, as for `serve`, not aiohttp's traceback
        sock = bind(settings.host, settings.port, port_label=label("port"), host_label=label("host"))
    except CannotListen as exc:
        print(f"mockengine record: {exc}", file=sys.stderr)
        return 2
    try:
        recorder = Recorder(upstream, Path(args.out), settings, key, has_audio=not args.no_audio)
    except (RecordingError, OSError) as exc:
        print(f"mockengine record: {exc}", file=sys.stderr)
        sock.close()
        return 2
    port = sock.getsockname()[1]
    print(
        f"mockengine recording {upstream} into {args.out}: "
        f"connect to ws://{settings.host}:{port}/v1/realtime?model=gpt-realtime "
        f"(upstream key: {'set' if key else 'the client’s own'})",
        flush=True,
    )
    web.run_app(create_record_app(recorder), sock=sock, print=None)
    return 0
