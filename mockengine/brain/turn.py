"""One request to the participant with everything derived from it, shared by the decision steps
(``participant``) and the scenario-rule conditions (``rules``)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from mockengine.brain.model import Persona, ReplyRequest, ToolSpec
from mockengine.brain.situation import Situation


@dataclass(frozen=True)
class Turn:
    """One request with everything derived from it."""

    request: ReplyRequest
    situation: Situation
    tools: dict[str, ToolSpec]
    rng: random.Random
    persona: Persona
    role: str | None

    @property
    def number(self) -> int:
        """The participant's turn number, 1 for its first response."""
        return self.request.response_index + 1

    @property
    def may_call(self) -> bool:
        return self.request.tool_choice != "none" and bool(self.tools)
