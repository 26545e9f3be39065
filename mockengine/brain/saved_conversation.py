"""Pipecat's "previously saved conversation": the history a Pipecat app starts its realtime session with,
packed into one user message, read back as the conversation it is.

Pipecat 1.14's ``OpenAIRealtimeLLMAdapter`` (``_from_universal_context_messages``) sends a context of more
than one message as a single ``input_text`` item: an introduction ("This is a previously saved
conversation. …"), the messages as a JSON array (``{"role", "content"}``, tool calls and results as Chat
Completions writes them) and a closing line ("This is the end of the previously saved conversation.
Please continue the conversation from here. If the last message is a user instruction or question, act on
that instruction or answer the question. If the last message is an assistant response, simple say that
you are ready to continue the conversation."). A model reads the messages as the conversation; the
participant does too, instead of echoing the JSON."""

from __future__ import annotations

import json
import re
from typing import Any

from mockengine.brain.model import TurnView

_ENVELOPE = re.compile(
    r"^\s*This is a previously saved conversation\..*?(?P<messages>\[.*\])\s*"
    r"This is the end of the previously saved conversation\.",
    re.DOTALL,
)
# What the closing line asks for when the last message is the assistant's.
READY = "I'm ready to continue the conversation."


def is_envelope(text: str) -> bool:
    """``text`` is a saved conversation (Pipecat's packed history) that :func:`unpacked` reads back."""
    return _ENVELOPE.match(text) is not None


def unpacked(history: tuple[TurnView, ...]) -> tuple[TurnView, ...]:
    """``history`` with each user item that is a saved conversation replaced by its messages (user and
    system messages, the assistant's words, tool calls and their outputs), in order; every other item as
    it was."""
    if not any(item.kind == "user_text" and _ENVELOPE.match(item.text) for item in history):
        return history
    views: list[TurnView] = []
    for item in history:
        messages = _messages(item) if item.kind == "user_text" else None
        views.extend([item] if messages is None else messages)
    return tuple(views)


def _messages(item: TurnView) -> list[TurnView] | None:
    match = _ENVELOPE.match(item.text)
    if match is None:
        return None
    try:
        messages = json.loads(match.group("messages"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(messages, list):
        return None
    views: list[TurnView] = []
    for index, message in enumerate(messages):
        if isinstance(message, dict):
            views.extend(_views(message, f"{item.item_id}.{index}"))
    return views


def _views(message: dict[str, Any], item_id: str) -> list[TurnView]:
    role, text = message.get("role"), _text(message.get("content"))
    views: list[TurnView] = []
    if role == "user" and text:
        views.append(TurnView(item_id, "user_text", text))
    elif role in ("system", "developer") and text:
        views.append(TurnView(item_id, "system", text))
    elif role == "assistant":
        if text:
            views.append(TurnView(item_id, "assistant", text))
        for n, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                arguments = function.get("arguments")
                views.append(
                    TurnView(
                        f"{item_id}.call{n}",
                        "function_call",
                        arguments if isinstance(arguments, str) else json.dumps(arguments),
                        name=str(function.get("name") or ""),
                        call_id=str(call.get("id") or ""),
                    )
                )
    elif role == "tool":
        views.append(
            TurnView(item_id, "function_call_output", text, call_id=str(message.get("tool_call_id") or ""))
        )
    return views


def _text(content: Any) -> str:
    """A message's text: a string, or the ``text`` parts of a list of content parts."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = (part.get("text") for part in content if isinstance(part, dict))
        return " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    return ""


def ends_with_a_reply(history: tuple[TurnView, ...]) -> bool:
    """The newest item is a saved conversation whose last message is the assistant's: the closing line
    asks only to say that the assistant is ready to continue (``READY``)."""
    if not history or history[-1].kind != "user_text":
        return False
    messages = _messages(history[-1])
    return bool(messages) and messages is not None and messages[-1].kind in ("assistant", "function_call")
