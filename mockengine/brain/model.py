"""The types the session core and the brain exchange.

The core turns its conversation into a ``ReplyRequest`` (oldest item first) each time a response starts
and turns the brain's ``Reply`` into output items: a message (spoken or written) and/or function calls.
Names follow the Realtime wire: ``tool_choice``, ``output_modalities``, ``call_id``, ``arguments``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

ItemKind = Literal[
    "user_text", "user_audio", "context", "system", "assistant", "function_call", "function_call_output"
]

COLOUR_NAMES: tuple[str, ...] = (
    "red",
    "green",
    "blue",
    "yellow",
    "orange",
    "purple",
    "pink",
    "brown",
    "black",
    "white",
    "grey",
    "cyan",
)


@dataclass(frozen=True)
class ImageFacts:
    """What the brain can "see" in an ``input_image``.

    ``width``/``height`` in pixels of the decoded image; ``dominant_colour`` is one of ``COLOUR_NAMES``;
    ``dominant_share`` is the 0..1 share of pixels classed as that colour; ``brightness`` the 0..1 mean luma.
    """

    width: int
    height: int
    dominant_colour: str
    dominant_share: float
    brightness: float


@dataclass(frozen=True)
class TurnView:
    """One conversation item as the brain sees it.

    ``text`` holds the input_text, the audio transcript, the assistant transcript, the function call's
    arguments JSON or the function output, depending on ``kind``.
    """

    item_id: str
    kind: ItemKind
    text: str
    images: tuple[ImageFacts, ...] = ()
    name: str | None = None
    call_id: str | None = None


@dataclass(frozen=True)
class ToolSpec:
    """A declared function tool (Realtime flat shape); ``parameters`` is its JSON Schema."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ForcedTool:
    """``tool_choice: {"type": "function", "name": ...}``."""

    name: str


ToolChoice = Literal["auto", "none", "required"] | ForcedTool


Style = Literal["brief", "chatty", "formal"]
Channel = Literal["realtime", "chat"]


@dataclass(frozen=True)
class Persona:
    """Who the participant is: its ``name`` (greetings, chat lines), the ``voice`` it speaks with (one of the
    Realtime voice names; None keeps the session's), its speaking ``style`` and its rating tendency.

    ``rating_tendency`` (0..1) is where in a scale's range its ratings centre (0.5 = the middle, 0.8 =
    generous); ``rating_spread`` (0..0.5) how far they wander either side, so answers vary across
    questions but repeat for the same seed.
    """

    name: str = "Sam"
    voice: str | None = None
    style: Style = "brief"
    rating_tendency: float = 0.6
    rating_spread: float = 0.25


@dataclass(frozen=True)
class ReplyRequest:
    """Everything the brain may use to decide one response.

    ``output_modalities`` is ``("audio",)`` or ``("text",)``; ``response_index`` counts the responses of
    the session from 0 and seeds the choice among phrasings. ``channel`` says which API asked: a Realtime
    session, or a Chat Completions request (HyperStudy's text agent, which acts only through its tools).
    ``parallel_tool_calls``: False makes one call a response; the next one the words asked for follows
    the app's output. ``response_instructions``: what this response's own instructions
    (``response.create``'s ``instructions``) add to the session's, "" when none: LiveKit's
    ``generate_reply(instructions="Greet the user.")`` sends the session's instructions, a newline and
    its own.
    """

    instructions: str
    tools: tuple[ToolSpec, ...]
    tool_choice: ToolChoice
    output_modalities: tuple[str, ...]
    history: tuple[TurnView, ...]
    response_index: int
    channel: Channel = "realtime"
    parallel_tool_calls: bool = True
    response_instructions: str = ""


@dataclass(frozen=True)
class ToolCall:
    """One function call; ``arguments`` is JSON text."""

    name: str
    arguments: str


@dataclass(frozen=True)
class Reply:
    """The brain's decision: ``text`` to say (None = no message), tool calls, the rule that chose them, and
    ``why`` (for the trace: which tool was picked, its score and the words that filled each argument)."""

    text: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    rule: str = ""
    why: str = ""


class Brain(Protocol):
    """Decides every response; must be deterministic for a given request and seed."""

    def reply(self, request: ReplyRequest) -> Reply: ...
