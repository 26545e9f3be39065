"""brain22: an address object filled from a street and town said in words, "assign it to Maria" and "tag it
auth and frontend" read before the title, a form filled without colons, and a copy ("CC …") a tool with no
``cc`` cannot take left out of the message (each failed on c9ee5fd2, but the guards marked so)."""

from __future__ import annotations

import pytest

from tests.brain_calls import calls, spec, tool
from tests.own_tools import ADD_CONTACT, ASSIGNED_TICKET, SEND_EMAIL, STRING, STRINGS

CONTACT, TICKET, EMAIL = spec(ADD_CONTACT), spec(ASSIGNED_TICKET), spec(SEND_EMAIL)
EMAIL_CC = tool(
    "send_email", "Send an email.", {"to": STRING, "subject": STRING, "body": STRING, "cc": STRINGS}, ["to"]
)


@pytest.mark.parametrize(
    ("said", "address"),
    [
        # was {"street": "Oak", "city": "12"}: "at 12 Oak Street" read as a place
        (
            "Add Bob as a contact, he lives at 12 Oak Street, Springfield",
            {"street": "12 Oak Street", "city": "Springfield"},
        ),
        (
            "Add Bob, he lives at 12 Oak Street in Springfield",
            {"street": "12 Oak Street", "city": "Springfield"},
        ),
        (
            "Add Bob, 12 Oak Street, Springfield, 62704",
            {"street": "12 Oak Street", "city": "Springfield", "postal_code": "62704"},
        ),
    ],
)
def test_an_address_object_takes_the_street_and_town_said(said: str, address: dict[str, str]) -> None:
    assert calls([CONTACT], said) == [("add_contact", {"name": "Bob", "address": address})]


def test_an_address_object_said_after_address_is_filled_not_asked() -> None:
    # was "What's the address?"
    assert calls([CONTACT], "Add a contact named Alice Chen, address 5 Elm Road, Portland") == [
        ("add_contact", {"name": "Alice Chen", "address": {"street": "5 Elm Road", "city": "Portland"}})
    ]


@pytest.mark.parametrize(
    ("said", "arguments"),
    [
        (
            "Create a ticket titled Login page down, assign it to Maria",
            {"title": "Login page down", "assignee": "Maria"},
        ),
        (
            "Create a ticket: printer jammed, assigned to Dev Patel",
            {"title": "printer jammed", "assignee": "Dev Patel"},
        ),
        (
            "Create a ticket titled Checkout button broken, assign it to Maria and tag it payments",
            {"title": "Checkout button broken", "assignee": "Maria", "tags": ["payments"]},
        ),
        # the tags' words were the title's: "checkout button broken and tag it auth and frontend"
        (
            "Create a ticket: checkout button broken, tag it auth and frontend",
            {"title": "checkout button broken", "tags": ["auth", "frontend"]},
        ),
    ],
)
def test_assignee_and_tags_said_after_the_ticket(said: str, arguments: dict[str, object]) -> None:
    assert calls([TICKET], said) == [("create_ticket", arguments)]


def test_assign_it_to_fills_nothing_when_no_parameter_takes_it() -> None:
    # guard (passed before): no assignee declared, no other parameter takes Maria
    no_assignee = tool(
        "create_ticket", "Create a support ticket.", {"title": STRING, "tags": STRINGS}, ["title"]
    )
    result = calls([no_assignee], "Create a ticket titled Login page down, assign it to Maria")
    assert isinstance(result, list) and "Maria" not in str(result[0][1].get("tags"))


@pytest.mark.parametrize(
    "said",
    [
        "Send an email to carol@example.com, subject Report, body The report is attached",
        "Email carol@example.com with subject Report, body The report is attached",
    ],
)
def test_a_form_without_colons_is_read_by_its_labels(said: str) -> None:
    # was body "body The report is attached"
    assert calls([EMAIL], said) == [
        ("send_email", {"to": "carol@example.com", "subject": "Report", "body": "The report is attached"})
    ]


def test_one_bare_label_is_no_form() -> None:
    # guard (passed before): "with subject Lunch and say …" is read as brain21 read it
    assert calls([EMAIL], "Email carol@example.com with subject Lunch and say let's meet at noon") == [
        ("send_email", {"to": "carol@example.com", "subject": "Lunch", "body": "let's meet at noon"})
    ]


def test_a_copy_the_tool_cannot_take_is_left_out_of_the_body() -> None:
    # was body "Bus leaves at 9. CC dave@example.com"
    assert calls(
        [EMAIL], "Email dan@example.com, subject: Offsite, body: Bus leaves at 9. CC dave@example.com"
    ) == [("send_email", {"to": "dan@example.com", "subject": "Offsite", "body": "Bus leaves at 9"})]


def test_a_copy_the_tool_takes_is_still_sent() -> None:
    # guard (passed before): with a ``cc`` parameter the copy is its value
    assert calls(
        [EMAIL_CC], "Email dan@example.com, subject: Offsite, body: Bus leaves at 9. CC dave@example.com"
    ) == [
        (
            "send_email",
            {
                "to": "dan@example.com",
                "subject": "Offsite",
                "body": "Bus leaves at 9",
                "cc": ["dave@example.com"],
            },
        )
    ]


def test_a_tools_own_street_and_city_from_an_address_said_last() -> None:
    # was {"street": "Oak", "city": "12"}
    flat = tool("add_contact", "Add a contact.", {"name": STRING, "street": STRING, "city": STRING})
    assert calls([flat], "Add Bob as a contact, he lives at 12 Oak Street, Springfield") == [
        ("add_contact", {"name": "Bob", "street": "12 Oak Street", "city": "Springfield"})
    ]
