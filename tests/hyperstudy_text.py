"""A HyperStudy text agent's side of a study, as HRP 0.2.0 ``modelEndpoint`` describes it: the tools it
offers (``send_chat``, ``wait``, ``submit_response`` with the on-screen question's value schema) and the
``[context]`` lines it sends as user messages."""

from __future__ import annotations

import json
from typing import Any

SYSTEM_PROMPT = (
    "You are Sam, a participant in an online study. You chat with the other participant by calling "
    "send_chat, call wait when nothing is required of you, and answer on-screen questions with "
    "submit_response."
)

SEND_CHAT = {
    "type": "function",
    "function": {
        "name": "send_chat",
        "description": "Send a chat message to the other participant(s) in the experiment.",
        "parameters": {
            "type": "object",
            "properties": {"message": {"type": "string", "description": "The message text to send."}},
            "required": ["message"],
            "additionalProperties": False,
        },
    },
}
WAIT = {
    "type": "function",
    "function": {
        "name": "wait",
        "description": "Take no action this turn. Use when nothing is required of you right now.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
}


def submit_response(component: str, value_schema: dict[str, Any]) -> dict[str, Any]:
    """The ``submit_response`` tool for the question on screen, with that question's value schema."""
    return {
        "type": "function",
        "function": {
            "name": "submit_response",
            "description": f'Submit your response to the current "{component}" component.',
            "parameters": {
                "type": "object",
                "properties": {"value": value_schema},
                "required": ["value"],
                "additionalProperties": False,
            },
        },
    }


VAS_SCHEMA = {"type": "number", "minimum": 0, "maximum": 100, "description": "Rating between 0 and 100."}
LIKERT_SCHEMA = {
    "type": "integer",
    "minimum": 1,
    "maximum": 7,
    "description": "Selected scale point, 1 to 7.",
}
CHOICE_SCHEMA = {"type": "string", "description": "The exact text of the selected choice."}


def context(event: str, **fields: Any) -> dict[str, str]:
    """A ``[context]`` user message, as HyperStudy sends them."""
    return {"role": "user", "content": "[context] " + json.dumps({"event": event, **fields})}


def tool_result(call_id: str, result: dict[str, Any] | None = None) -> dict[str, str]:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result or {"accepted": True})}


def question_text(config: dict[str, Any]) -> str:
    """An HRP ``answers[].exampleConfig`` worded as HyperStudy puts a question: the prompt, then what the
    answer may be (choices, items, scale, range, dimensions)."""
    lines = [f"Question: {config.get('question') or config.get('prompt')}"]
    if "choices" in config:
        lines.append("Choices: " + ", ".join(config["choices"]))
    if "options" in config:
        lines.append("Items: " + ", ".join(config["options"]))
    if "scale" in config:
        lines.append(f"Respond with a number from 1 to {config['scale']}.")
    if "minValue" in config:
        lines.append(f"Respond with a number between {config['minValue']} and {config['maxValue']}.")
    if "dimensions" in config:
        lines.append("Rate each from 0 to 100: " + ", ".join(d["label"] for d in config["dimensions"]))
    return "\n".join(lines)
