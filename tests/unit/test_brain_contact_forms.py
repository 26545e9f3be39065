"""A contact saved in the forms people type beside round 13's: the number after a colon, the name after
"for". "Save Ana Silva's number: 555-123-4567" took the phone as the name after the colon and asked
"Which name do you mean?"; "Save the number 555-123-4567 for Ana Silva" named the contact "Save"."""

from __future__ import annotations

import pytest

from tests.brain_calls import calls
from tests.unit.test_brain_own_tools_r13 import contact_tool


@pytest.mark.parametrize("tool", ["add_contact", "save_contact"])
@pytest.mark.parametrize(
    "text",
    [
        "Save Ana Silva's number: 555-123-4567",
        "Save Ana Silva's mobile: 555-123-4567",
        "Save the number 555-123-4567 for Ana Silva",
    ],
)
def test_the_contact_is_named_and_numbered(tool: str, text: str) -> None:
    assert calls(contact_tool(tool, "phone_number"), text) == [
        (tool, {"name": "Ana Silva", "phone_number": "555-123-4567"})
    ]
