"""One response: its parameters, lifecycle and wire shape (reference §6). ``streaming`` emits its events.

Lifecycle (``status``)::

    in_progress ──all output sent──▶ completed
         │ response.cancel            ▶ cancelled (client_cancelled)
         │ speech_started + interrupt ▶ cancelled (turn_detected)
         │ max_output_tokens reached  ▶ incomplete (max_output_tokens)
         └ engine failure             ▶ failed
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mockengine.protocol.session_config import SessionConfig
from mockengine.realtime.conversation import Item


@dataclass(frozen=True)
class ResponseParams:
    """The effective parameters of one response (session defaults overlaid by ``response.create``)."""

    output_modalities: tuple[str, ...]
    voice: str | dict[str, Any]  # a built-in name, or a custom voice {"id": "voice_…"} as the client set it
    speed: float
    output_format: dict[str, Any]
    instructions: str
    tools: tuple[dict[str, Any], ...]
    tool_choice: Any
    max_output_tokens: Any
    metadata: dict[str, Any] | None
    conversation: str  # "auto" | "none"
    input_items: tuple[Item, ...] | None = None  # response.input replaces the context
    parallel_tool_calls: bool = True
    own_instructions: str = ""  # what response.create's instructions add to the session's
    own_tools: bool = False  # response.create set the tools (a session.update later changes none)

    @property
    def is_audio(self) -> bool:
        return "audio" in self.output_modalities

    @property
    def spoken_voice(self) -> str:
        """The voice the reply is spoken with: a custom voice (not emulated) is spoken by the default."""
        return self.voice if isinstance(self.voice, str) else str(SessionConfig.voice)


@dataclass(frozen=True)
class Pacing:
    pace: float = 3.0  # × real time; 0 = unpaced
    first_delta_delay_ms: int = 300
    delta_ms: int = 200
    text_tokens_per_s: float = 50.0  # a written reply's deltas; 0 = all at once


@dataclass
class Usage:
    input_text_tokens: int = 0
    input_audio_tokens: int = 0
    input_image_tokens: int = 0
    output_text_tokens: int = 0
    output_audio_tokens: int = 0

    def wire(self) -> dict[str, Any]:
        inputs = self.input_text_tokens + self.input_audio_tokens + self.input_image_tokens
        outputs = self.output_text_tokens + self.output_audio_tokens
        return {
            "total_tokens": inputs + outputs,
            "input_tokens": inputs,
            "output_tokens": outputs,
            "input_token_details": {
                "text_tokens": self.input_text_tokens,
                "audio_tokens": self.input_audio_tokens,
                "image_tokens": self.input_image_tokens,
                "cached_tokens": 0,
                "cached_tokens_details": {"text_tokens": 0, "audio_tokens": 0, "image_tokens": 0},
            },
            "output_token_details": {
                "text_tokens": self.output_text_tokens,
                "audio_tokens": self.output_audio_tokens,
            },
        }


@dataclass
class Response:
    id: str
    params: ResponseParams
    conversation_id: str | None
    created_ms: float
    pacing: Pacing
    status: str = "in_progress"
    status_details: dict[str, Any] | None = None
    output: list[Item] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    @property
    def is_active(self) -> bool:
        return self.status == "in_progress"

    def wire(self) -> dict[str, Any]:
        done = self.status != "in_progress"
        return {
            "object": "realtime.response",
            "id": self.id,
            "status": self.status,
            "status_details": self.status_details,
            "output": [item.wire() for item in self.output],
            "conversation_id": self.conversation_id,
            "output_modalities": list(self.params.output_modalities),
            "max_output_tokens": self.params.max_output_tokens,
            "audio": {"output": {"format": self.params.output_format, "voice": self.params.voice}},
            "usage": self.usage.wire() if done else None,
            "metadata": self.params.metadata,
        }
