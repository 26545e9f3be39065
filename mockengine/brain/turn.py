"""One request to the participant with everything derived from it, shared by the decision steps
(``participant``) and the scenario-rule conditions (``rules``)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property

from mockengine.brain import declared
from mockengine.brain.intent import HYPERSTUDY_TOOLS
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

    @cached_property
    def study_tool_names(self) -> frozenset[str]:
        """The declared tools that are HyperStudy's own (``declared.study_tools``, as the matcher
        decides): a meeting app's ``send_chat {message, to}`` alone is the app's, not HyperStudy's."""
        study = declared.study_tools(list(self.tools.values()), HYPERSTUDY_TOOLS)
        return frozenset(tool.name for tool in study)

    def is_study_tool(self, name: str | None) -> bool:
        """Whether a call of ``name`` is one of HyperStudy's (its study behaviour applies); a name no
        longer declared is judged by its name alone."""
        if name is None:
            return False
        return name in self.study_tool_names if name in self.tools else name in HYPERSTUDY_TOOLS
