"""Over the wire, with the official ``openai`` SDK (Chat Completions on a real engine on loopback):
brain13's misreadings of an utterance into a tool call, each failed on main before its fix."""

from __future__ import annotations

from typing import Any

import pytest

from tests.own_tools import (
    CREATE_TASK,
    INTEGER,
    ORDER_DRINK,
    STRING,
    UPDATE_SHIPPING,
    WEATHER_WITH_UNIT,
    Chat,
    chat_client,
    chat_tool,
)

ALARM = chat_tool("set_alarm", "Set an alarm", {"time": STRING})
INVENTORY = chat_tool(
    "update_inventory",
    "Update stock counts",
    {"counts": {"type": "object", "additionalProperties": INTEGER}},
)
TIMER = chat_tool("set_timer", "Set a timer", {"minutes": INTEGER})
SEND_MESSAGE = chat_tool("send_message", "Send a message", {"recipient": STRING, "text": STRING})
TRACK_ORDER = chat_tool("track_order", "Track an order", {"order_id": STRING})
PROFILE = chat_tool("update_profile", "Update the user's profile", {"city": STRING, "country": STRING})
PROFILE["function"]["parameters"]["required"] = []  # (chat_tool reads an empty list as every one)
ADDRESS = chat_tool("update_address", "Update the user's address", {"street": STRING})


async def test_the_thing_set_picks_the_tool_not_the_bare_verb(engine) -> None:
    # was set_alarm's question ("What time would you like?"): "set" alone scored the alarm higher
    calls, _ = await Chat(chat_client(await engine()), [ALARM, INVENTORY]).say(
        "Set the stock of apples to 12 and pears to 5"
    )
    assert calls == [("update_inventory", {"counts": {"apples": 12, "pears": 5}})]


async def test_a_spoken_number_taken_back_takes_the_other(engine) -> None:
    # was 10 minutes: only digits were read in a self-repair
    calls, _ = await Chat(chat_client(await engine()), [TIMER]).say(
        "Set a timer for ten minutes, no, fifteen"
    )
    assert calls == [("set_timer", {"minutes": 15})]


async def test_a_task_asked_for_without_its_words_is_asked_for(engine) -> None:
    # was create_task(task="Add")
    calls, text = await Chat(chat_client(await engine()), [CREATE_TASK]).say("Add a task, please")
    assert calls == []
    assert text is not None and text.endswith("?")


async def test_a_town_and_its_state_without_a_comma(engine) -> None:
    # was location "Paris Texas" in celsius
    calls, _ = await Chat(chat_client(await engine()), [WEATHER_WITH_UNIT]).say(
        "What's the weather in Paris Texas"
    )
    assert calls == [("get_weather", {"location": "Paris, TX", "unit": "fahrenheit"})]


@pytest.mark.parametrize(
    ("said", "arguments"),
    [
        # both were no call ("You said tell Sarah: …"): only "text" read as a message verb
        ("Tell Sarah: I'm running late", {"recipient": "Sarah", "text": "I'm running late"}),
        ("Email Bob: the meeting moved to 3", {"recipient": "Bob", "text": "the meeting moved to 3"}),
    ],
)
async def test_a_message_dictated_after_tell_or_email_and_a_colon(engine, said: str, arguments: Any) -> None:
    calls, _ = await Chat(chat_client(await engine()), [SEND_MESSAGE]).say(said)
    assert calls == [("send_message", arguments)]


async def test_shipping_an_order_to_a_town_is_no_tracking(engine) -> None:
    # was track_order(12345): "ship" shares the concept of "track"
    calls, text = await Chat(chat_client(await engine()), [TRACK_ORDER, UPDATE_SHIPPING]).say(
        "Ship order 12345 to Leeds"
    )
    assert calls == []
    assert text is not None and "street" in text.lower()


async def test_the_detail_named_takes_the_value(engine) -> None:
    # was update_profile(city="country")
    calls, _ = await Chat(chat_client(await engine()), [PROFILE]).say("Update my country to France")
    assert calls == [("update_profile", {"country": "France"})]


async def test_a_direction_after_the_street_is_kept(engine) -> None:
    # was street "42 Oak Ave": the direction after the street's kind was cut as plain words
    chat = Chat(chat_client(await engine()), [ADDRESS])
    await chat.say("I need to change my address")
    calls, _ = await chat.say("My address is 42 Oak Ave north")
    assert calls == [("update_address", {"street": "42 Oak Ave north"})]


async def test_a_thing_no_tool_takes_leaves_the_rest_ordered(engine) -> None:
    # was no call at all (all or none): the tea is ordered, and the muffin said to be out of reach
    calls, text = await Chat(chat_client(await engine()), [ORDER_DRINK]).say(
        "Can I get a coffee, no, a tea, and a muffin"
    )
    assert calls == [("order_drink", {"drink": "tea"})]
    assert text == "I can't order the muffin here, though."


REFUND = chat_tool(
    "request_refund", "Request a refund for an order", {"order_id": STRING, "reason": STRING}, ["order_id"]
)
ORDER_STATUS = chat_tool("get_order_status", "Get the status of an order", {"order_id": STRING})
RESET = chat_tool("reset_password", "Send a password reset email", {"email": STRING})
AGENT = chat_tool("transfer_to_agent", "Transfer the caller to a human agent", {})
AGENT["function"]["parameters"]["required"] = []


@pytest.mark.parametrize(
    ("said", "call"),
    [
        # was get_order_status(A12345); the reason told fills the optional reason (brain20)
        (
            "My order A12345 arrived broken, I want my money back",
            ("request_refund", {"order_id": "A12345", "reason": "arrived broken"}),
        ),
        # was no call
        (
            "I forgot my password, my email is ana@example.com",
            ("reset_password", {"email": "ana@example.com"}),
        ),
        ("Can I speak to someone?", ("transfer_to_agent", {})),
    ],
)
async def test_a_support_desk_s_everyday_requests(engine, said: str, call: Any) -> None:
    calls, _ = await Chat(chat_client(await engine()), [RESET, REFUND, ORDER_STATUS, AGENT]).say(said)
    assert calls == [call]
