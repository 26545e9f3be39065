"""The deterministic participant: scenario rules, HyperStudy context, image facts and tool arguments.

Sits beneath the sans-IO session core: no asyncio, no sockets, no model libraries.
"""

from mockengine.brain.hrp import HRP_TOOLS
from mockengine.brain.image import ImageError, describe_image
from mockengine.brain.model import (
    Brain,
    ForcedTool,
    ImageFacts,
    ItemKind,
    Reply,
    ReplyRequest,
    ToolCall,
    ToolChoice,
    ToolSpec,
    TurnView,
)
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario, ScenarioError, load_scenario, parse_scenario

__all__ = [
    "Brain",
    "ForcedTool",
    "HRP_TOOLS",
    "ImageError",
    "ImageFacts",
    "ItemKind",
    "Reply",
    "ReplyRequest",
    "Scenario",
    "ScenarioError",
    "ScriptedBrain",
    "ToolCall",
    "ToolChoice",
    "ToolSpec",
    "TurnView",
    "describe_image",
    "load_scenario",
    "parse_scenario",
]
