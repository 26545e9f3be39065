"""``mockengine journal DIR`` on a recording: one line per recorded HTTP exchange (``http/NNNN.json``),
after the WebSocket sessions' timelines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from mockengine.recordings.format import HTTP_DIR


def exchanges_dir(directory: Path) -> Path:
    """Where a recording's HTTP exchanges are: ``DIR/http``, or ``directory`` itself when it is that
    ``http`` directory."""
    if directory.name == HTTP_DIR and not (directory / HTTP_DIR).is_dir():
        return directory
    return directory / HTTP_DIR


def exchange_files(directory: Path) -> list[Path]:
    return sorted(exchanges_dir(directory).glob("*.json"))


def read_exchange(path: Path) -> dict[str, Any] | None:
    """One ``http/NNNN.json`` of a recording, or None when ``path`` is not one (not JSON, no method and
    path)."""
    try:
        exchange = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(exchange, dict) or not {"method", "path"} <= exchange.keys():
        return None
    return exchange


def http_lines(directory: Path) -> list[str]:
    """``   0.412s POST /v1/chat/completions 200  stream 14 chunks  'Paris is the capital…'`` per exchange."""
    return [line for path in exchange_files(directory) if (line := http_line(path)) is not None]


def http_line(path: Path) -> str | None:
    """The line of one recorded exchange, or None when ``path`` is not one."""
    exchange = read_exchange(path)
    if exchange is None:
        return None
    what = f"stream {len(exchange.get('chunks') or [])} chunks" if exchange.get("stream") else "body"
    seconds = float(exchange.get("ms", 0.0)) / 1000.0
    request = f"{exchange.get('method')} {exchange.get('path')} {exchange.get('status')}"
    head = f"{path.stem} {seconds:7.3f}s {request}"
    return f"{head}  {what}  {_gist(exchange)}".rstrip()


def _gist(exchange: dict[str, Any]) -> str:
    """The last user words asked, if it was a chat request."""
    body = exchange.get("request_body")
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return ""
    content = messages[-1].get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return repr(text if len(text) <= 60 else text[:59] + "…")


def print_http(directory: Path, out: TextIO, separate: bool) -> bool:
    """Print the exchanges of the recording at ``directory``; False when it holds none."""
    lines = http_lines(directory)
    if not lines:
        return False
    if separate:
        print(file=out)
    print(f"== http exchanges ({exchanges_dir(directory)})", file=out)
    for line in lines:
        print(line, file=out)
    return True
