"""Building blocks for the brain's tests on made-up apps: a declared function tool from its name,
description, properties and required names, as a client's ``session.update`` would declare it."""

from __future__ import annotations

from datetime import date
from typing import Any

from mockengine.brain.model import ToolSpec

TODAY = date(2026, 3, 2)  # a Monday
STRING = {"type": "string"}


def tool(name: str, description: str, properties: dict[str, Any], required: tuple[str, ...] = ()) -> ToolSpec:
    """A ``ToolSpec`` whose parameters are an object schema of ``properties`` with ``required``."""
    return ToolSpec(
        name, description, {"type": "object", "properties": properties, "required": list(required)}
    )
