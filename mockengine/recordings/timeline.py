"""``mockengine journal DIR`` on a recording: one line per recorded HTTP exchange (``http/NNNN.json``),
after the WebSocket sessions' timelines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from mockengine.recordings.format import HTTP_DIR


def http_lines(directory: Path) -> list[str]:
    """``   0.412s POST /v1/chat/completions 200  stream 14 chunks  'Paris is the capital…'`` per exchange."""
    lines = []
    for path in sorted((directory / HTTP_DIR).glob("*.json")):
        try:
            exchange = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        what = f"stream {len(exchange.get('chunks') or [])} chunks" if exchange.get("stream") else "body"
        seconds = float(exchange.get("ms", 0.0)) / 1000.0
        request = f"{exchange.get('method')} {exchange.get('path')} {exchange.get('status')}"
        head = f"{path.stem} {seconds:7.3f}s {request}"
        lines.append(f"{head}  {what}  {_gist(exchange)}".rstrip())
    return lines


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
    print(f"== http exchanges ({directory / HTTP_DIR})", file=out)
    for line in lines:
        print(line, file=out)
    return True
