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
    """``   0.412s POST /v1/chat/completions 200  stream 14 chunks  'What is the capital of France?'`` per
    exchange (the newest words the request sent)."""
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
    """The newest words the request sent: a chat request's last message, a Responses request's
    ``input`` (a string, or its last item: a message's text, a function call's output); else ``""``."""
    body = exchange.get("request_body")
    if not isinstance(body, dict):
        return ""
    messages = body.get("messages")
    text: str | None
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        content = messages[-1].get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    else:
        text = _responses_words(body.get("input"))
    if text is None:
        return ""
    return repr(text if len(text) <= 60 else text[:59] + "…")


def _responses_words(given: Any) -> str | None:
    """A Responses ``input``'s newest words: the string itself, or the last item's text (a message's
    string content or its parts' ``text``, a ``function_call_output``'s output); None when it has none
    (a Responses recording's lines gave only ``body``, where a chat request's gave the words)."""
    if isinstance(given, str):
        return given
    if not isinstance(given, list) or not given or not isinstance(given[-1], dict):
        return None
    item = given[-1]
    content = item.get("output") if item.get("type") == "function_call_output" else item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return " ".join(texts) if texts else json.dumps(content, ensure_ascii=False)
    return None


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
