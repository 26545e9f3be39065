"""``session_config.check_tool_schemas``: a repeated function name is refused at its first repeat, and
finding it costs one look per tool, not one per pair (60,000 tools were 1.8 billion comparisons on the
event loop: minutes in which no session of the engine was served)."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import check_tool_schemas


def _tools(names: list[str]) -> list[dict[str, Any]]:
    return [{"type": "function", "name": name, "parameters": {"type": "object"}} for name in names]


@pytest.mark.parametrize(
    ("names", "index", "name"),
    [(["a", "a"], 1, "a"), (["a", "b", "c", "b", "a"], 3, "b"), (["x", "y", "z", "z"], 3, "z")],
)
def test_the_first_repeated_name_is_refused(names: list[str], index: int, name: str) -> None:
    with pytest.raises(ProtocolError) as raised:
        check_tool_schemas(_tools(names), "session.tools")
    param = f"session.tools[{index}].name"
    assert (raised.value.code, raised.value.param) == ("invalid_value", param)
    assert raised.value.message == f"Invalid '{param}': duplicate function name '{name}'."


def test_mcp_tools_are_not_counted() -> None:
    tools = [*_tools(["a"]), {"type": "mcp", "server_label": "a"}, {"type": "mcp", "server_label": "a"}]
    check_tool_schemas(tools, "session.tools")


class _CountedName(str):
    """A name that counts how often it is compared."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _CountedName.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_finding_a_repeat_costs_one_look_per_tool() -> None:
    _CountedName.compared = 0
    check_tool_schemas(_tools([_CountedName(f"tool_{n}") for n in range(2_000)]), "session.tools")
    assert _CountedName.compared < 2_000  # each against all before it: ~2,000,000
