"""A keeping or adding verb in an idiom asks nothing of an add_/save_ tool: since "save" reaches add_
tools (round 13), "Save me some time and tell me the weather in Paris" asked add_contact's phone number;
"That adds up to twenty dollars, right?" did before."""

from __future__ import annotations

import pytest

from mockengine.brain import ToolSpec
from tests.brain_calls import calls

CONTACT = ToolSpec(
    "add_contact",
    "Add a contact",
    {
        "type": "object",
        "properties": {"name": {"type": "string"}, "phone": {"type": "string"}},
        "required": ["name", "phone"],
    },
)
WEATHER = ToolSpec(
    "get_weather",
    "Get the weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.mark.parametrize(
    "text",
    [
        "Save me some time and tell me the weather in Paris",
        "Save us the trouble: what's the weather in Paris?",
    ],
)
def test_the_idiom_leaves_the_request(text: str) -> None:
    assert calls([CONTACT, WEATHER], text) == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize("text", ["That adds up to twenty dollars, right?", "It all adds up now."])
def test_adding_up_adds_no_contact(text: str) -> None:
    reply = calls([CONTACT], text)
    assert isinstance(reply, str) and "phone" not in reply  # no call, and add_contact's number not asked
