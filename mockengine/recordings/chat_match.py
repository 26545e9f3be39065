"""Chat Completions answered from a recording, by request matching (served by ``server/replay.py``).

A request matches a recorded one when their *normalised* ``messages`` and ``tools`` are equal and both
stream or both do not. Normalisation (docs/record-replay.md): per message the role, the text with runs
of whitespace made one space and the ends trimmed (content parts: text parts in order, an image as a
hash of its URL), the ``name``, and each tool call's function name and its arguments as canonical JSON;
``tool_call_id`` s and call ids are left out. Tools count by name and canonical JSON parameters, in any
order. Model, sampling parameters, seed and ``stream_options`` are ignored. The n-th request with a given
key gets the n-th recorded answer to it (the last one again after that). A request that matches nothing
is a divergence: traced, counted, then answered by the scripted participant — or, with
``--replay-strict``, refused with HTTP 400 ``replay_divergence``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

CHAT_PATH = "/v1/chat/completions"


def request_key(body: Any) -> str:
    """The normalised form of a chat request that replay matches on."""
    if not isinstance(body, dict):
        return json.dumps(body, sort_keys=True)
    messages = [_message(m) for m in body.get("messages") or [] if isinstance(m, dict)]
    tools = sorted(_canonical(_tool(t)) for t in body.get("tools") or [] if isinstance(t, dict))
    return _canonical({"messages": messages, "tools": tools, "stream": bool(body.get("stream"))})


def _message(message: dict[str, Any]) -> dict[str, Any]:
    calls = [
        [str((c.get("function") or {}).get("name")), _arguments((c.get("function") or {}).get("arguments"))]
        for c in message.get("tool_calls") or []
        if isinstance(c, dict)
    ]
    return {
        "role": message.get("role"),
        "text": _text(message.get("content")),
        "name": message.get("name"),
        "calls": calls,
    }


def _text(content: Any) -> str:
    if isinstance(content, str):
        return " ".join(content.split())
    parts = []
    for part in content or []:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append(" ".join(str(part.get("text", "")).split()))
        elif isinstance(part, dict) and part.get("type") == "image_url":
            url = str((part.get("image_url") or {}).get("url", ""))
            parts.append("[image " + hashlib.sha256(url.encode()).hexdigest()[:16] + "]")
    return " ".join(parts)


def _arguments(arguments: Any) -> Any:
    try:
        return json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return " ".join(str(arguments).split())


def _tool(tool: dict[str, Any]) -> Any:
    function = tool.get("function") or {}
    return [function.get("name"), function.get("parameters")]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ChatReplay:
    """The recorded chat exchanges by request key, and how many of each were served."""

    def __init__(self, exchanges: list[dict[str, Any]], speed: float, strict: bool) -> None:
        self.speed = speed
        self.is_strict = strict
        self.by_key: dict[str, list[dict[str, Any]]] = {}
        for exchange in exchanges:
            if exchange.get("path") == CHAT_PATH and exchange.get("method") == "POST":
                self.by_key.setdefault(request_key(exchange.get("request_body")), []).append(exchange)
        self._served: dict[str, int] = {}

    def match(self, body: Any) -> dict[str, Any] | None:
        key = request_key(body)
        answers = self.by_key.get(key)
        if not answers:
            return None
        n = self._served.get(key, 0)
        self._served[key] = n + 1
        return answers[min(n, len(answers) - 1)]
