"""Over the wire, with the ``openai`` SDK (Chat Completions and Realtime) on a real engine on loopback:
brain22's cases, each failed on its base (c9ee5fd2): an address object filled from a street and town said
in words, "assign it to Maria" and "tag it auth and frontend" after the ticket, a form without colons, and a
copy the tool cannot take left out of the body."""

from __future__ import annotations

from tests.own_tools import ADD_CONTACT, ASSIGNED_TICKET, SEND_EMAIL, Chat, chat_client, realtime_turn


async def test_an_address_said_in_words_fills_the_address_object(engine) -> None:
    server = await engine()
    said = "Add Bob as a contact, he lives at 12 Oak Street, Springfield"
    wanted = [("add_contact", {"name": "Bob", "address": {"street": "12 Oak Street", "city": "Springfield"}})]
    calls, _ = await Chat(chat_client(server), [ADD_CONTACT]).say(said)
    assert calls == wanted
    made, _ = await realtime_turn(server, [ADD_CONTACT], said)
    assert made == wanted


async def test_assign_it_to_maria_fills_the_optional_assignee(engine) -> None:
    server = await engine()
    calls, _ = await Chat(chat_client(server), [ASSIGNED_TICKET]).say(
        "Create a ticket titled Login page down, assign it to Maria"
    )
    assert calls == [("create_ticket", {"title": "Login page down", "assignee": "Maria"})]
    made, _ = await realtime_turn(
        server,
        [ASSIGNED_TICKET],
        "Create a ticket titled Checkout button broken, assign it to Maria and tag it payments",
    )
    assert made == [
        ("create_ticket", {"title": "Checkout button broken", "assignee": "Maria", "tags": ["payments"]})
    ]


async def test_tag_it_fills_the_tags_and_leaves_the_title(engine) -> None:
    server = await engine()
    said = "Create a ticket: checkout button broken, tag it auth and frontend"
    wanted = [("create_ticket", {"title": "checkout button broken", "tags": ["auth", "frontend"]})]
    calls, _ = await Chat(chat_client(server), [ASSIGNED_TICKET]).say(said)
    assert calls == wanted
    made, _ = await realtime_turn(server, [ASSIGNED_TICKET], said)
    assert made == wanted


async def test_a_form_without_colons_and_a_copy_the_tool_cannot_take(engine) -> None:
    server = await engine()
    chat = Chat(chat_client(server), [SEND_EMAIL])
    calls, _ = await chat.say(
        "Send an email to carol@example.com, subject Report, body The report is attached"
    )
    assert calls == [
        ("send_email", {"to": "carol@example.com", "subject": "Report", "body": "The report is attached"})
    ]
    made, _ = await realtime_turn(
        server,
        [SEND_EMAIL],
        "Email dan@example.com, subject: Offsite, body: Bus leaves at 9. CC dave@example.com",
    )
    assert made == [
        ("send_email", {"to": "dan@example.com", "subject": "Offsite", "body": "Bus leaves at 9"})
    ]
