"""The HyperStudy Realtime Profile tools, as HyperStudy declares them to a voice engine.

Source: HRP spec 0.2.0, ``voiceEngine.tools`` (copied verbatim). ``arguments`` gives these names answers
drawn from the question context; tests and the conformance client use the declarations themselves.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from mockengine.brain.model import ToolSpec

HRP_SPEC_VERSION = "0.2.0"


@functools.cache
def hrp_spec() -> dict[str, Any]:
    """The HRP spec document (``hrp-spec-0.2.0.json``, shipped in the package; read once)."""
    text = (
        resources.files("mockengine.brain").joinpath(f"hrp-spec-{HRP_SPEC_VERSION}.json").read_text("utf-8")
    )
    spec: dict[str, Any] = json.loads(text)
    return spec


def chat_tools() -> list[dict[str, Any]]:
    """The tools HyperStudy offers a text agent (``modelEndpoint.tools``, Chat Completions shape), a copy."""
    tools: list[dict[str, Any]] = json.loads(json.dumps(hrp_spec()["modelEndpoint"]["tools"]))
    return tools


def _single(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {name: schema}, "required": [name], "additionalProperties": False}


_STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}

HRP_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="send_chat",
        description="Type a message in the text chat that the other participant can see.",
        parameters=_single("message", {"type": "string", "description": "The message to type."}),
    ),
    ToolSpec(
        name="answer_choice",
        description="Answer the on-screen multiple-choice question with one choice, using its exact text.",
        parameters=_single("choice", {"type": "string"}),
    ),
    ToolSpec(
        name="answer_choices",
        description=(
            "Answer the on-screen multiple-choice question that allows several choices, "
            "using their exact texts."
        ),
        parameters=_single("choices", _STRINGS),
    ),
    ToolSpec(
        name="answer_scale",
        description="Answer the on-screen rating scale with a number in its range.",
        parameters=_single("value", {"type": "number"}),
    ),
    ToolSpec(
        name="answer_ranking",
        description="Answer the on-screen ranking with every item text, in your order.",
        parameters=_single("order", _STRINGS),
    ),
    ToolSpec(
        name="answer_text",
        description="Answer the on-screen question that asks for text (or for words you would say aloud).",
        parameters=_single("text", {"type": "string"}),
    ),
    ToolSpec(
        name="answer_dimensions",
        description=(
            "Answer the on-screen multi-dimension rating with a score for every dimension, "
            "keyed by its label."
        ),
        parameters=_single("scores", {"type": "object", "additionalProperties": {"type": "number"}}),
    ),
)
