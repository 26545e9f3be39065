"""What broke in brain4's changes under inputs their tests did not send: a "then …" cut out of words
asked for as they are, or asked of someone else; ``tool_choice: "required"`` picking a destructive tool
or passing over ``respond``; a ticket filed about a screen going to an order lookup; a card's expiry
in two fields; a price of a service sent to a menu lookup. Each test failed on the code before it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from tests.brain_calls import TODAY, calls, spoken, tool

STRING = {"type": "string"}


@pytest.mark.parametrize(
    ("own", "said"),
    [
        # asked for as they are: the "then …" is part of the words
        (
            "Say exactly: welcome to Acme, then ask for their name",
            "welcome to Acme, then ask for their name",
        ),
        ("Say: 'Welcome to Acme, then ask for their name'", "Welcome to Acme, then ask for their name"),
        # asked of someone else: words the user is told
        (
            "Say: sign here, then ask the front desk for a key.",
            "sign here, then ask the front desk for a key.",
        ),
        ("Say: call us, then ask for Bob.", "call us, then ask for Bob."),
        # a further instruction it cannot word: the line is said whole, not cut to "Hi."
        ("Say: Hi. Then ask how their day was.", "Hi. Then ask how their day was."),
        ("Say: welcome, then offer a discount.", "welcome, then offer a discount."),
    ],
)
def test_a_then_that_is_no_question_to_the_user_is_said_with_the_line(own: str, said: str) -> None:
    """brain4 cut these: "Say exactly: …" lost its words after "then", "ask the front desk for a key" and
    "ask for Bob" became "Sign here." and "Call us. Could you tell me Bob?", and "Hi. Then ask how their
    day was." became "Hi."."""
    assert spoken(own) == said


def required(tools: list[ToolSpec], text: str) -> list[tuple[str, Any]]:
    items = (TurnView("u", "user_text", text),)
    reply = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(
        ReplyRequest("", tuple(tools), "required", ("text",), items, 0)
    )
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls]


DELETE = tool("delete_account", "Delete the user's account", {"user_id": STRING})
REFUND = tool("issue_refund", "Issue a refund", {"order_id": STRING, "amount": {"type": "number"}})
EMAIL = tool("send_email", "Send an email", {"to": STRING, "body": STRING})
DROP = tool("drop_table", "Drop a table", {"table": STRING})
QUERY = tool("run_query", "Run a SQL query", {"sql": STRING})
EXECUTE = tool("execute_command", "Execute a shell command", {"command": STRING})
READ = tool("read_file", "Read a file", {"path": STRING})
END = tool("end_call", "End the call", {})
TRANSFER = tool("transfer_call", "Transfer the caller to a human agent", {})


@pytest.mark.parametrize(
    ("tools", "called"),
    [
        ([DELETE, REFUND, EMAIL], "send_email"),
        ([DROP, QUERY], "run_query"),
        ([EXECUTE, READ], "read_file"),
        ([END, TRANSFER], "transfer_call"),
    ],
)
def test_required_with_nothing_asked_never_destroys_when_something_milder_is_declared(
    tools: list[ToolSpec], called: str
) -> None:
    """A greeting under ``required`` dropped a table, refunded an order, ran a shell command and hung up
    (``is_lookup`` took ``drop_table``, ``issue_refund`` and ``execute_command`` for reads)."""
    assert [name for name, _ in required(tools, "Hello!")] == [called]


@pytest.mark.parametrize("order", ["respond first", "respond last"])
def test_required_with_a_respond_tool_says_the_reply_in_it(order: str) -> None:
    """``respond {message}`` (a HyperStudy name) beside ``delete_account``: a greeting deleted an account
    with a made-up user id; ``reply_to_user {message}`` echoed the user's own "Hi there"."""
    respond = tool("respond", "Respond to the user", {"message": STRING})
    tools = [respond, DELETE] if order == "respond first" else [DELETE, respond]
    assert required(tools, "Hi there") == [("respond", {"message": "Hi, I'm Sam. Nice to meet you."})]
    reply_to_user = tool("reply_to_user", "Reply to the user", {"message": STRING})
    assert required([reply_to_user, DELETE], "Hi there") == [
        ("reply_to_user", {"message": "Hi, I'm Sam. Nice to meet you."})
    ]


ORDER = tool("lookup_order", "Look up an order", {"order_id": STRING})
TICKET = tool("submit_ticket", "Submit a support ticket", {"description": STRING})


def test_a_ticket_about_a_screen_is_filed_not_looked_up_as_an_order() -> None:
    """ "Look up an order" and "my screen" shared a concept (what is on screen), and "screen" after "my"
    counted as a further action: lookup_order got the sentence as its order id."""
    said = "Please file a ticket: my screen is broken"
    assert calls([ORDER, TICKET], said) == [("submit_ticket", {"description": "my screen is broken"})]
    assert calls([ORDER], said) == "You said please file a ticket: my screen is broken. Tell me more."
    assert calls([ORDER, TICKET], "Where is my order 12345?") == [("lookup_order", {"order_id": "12345"})]
    assert calls([ORDER, TICKET], "Look up my order 12345") == [("lookup_order", {"order_id": "12345"})]
