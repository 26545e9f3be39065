"""Found by a new user (stop brk23) driving real frameworks mid-call, only the URL changed.

The OpenAI Agents JS SDK's ``RealtimeSession`` (tests/js/brk23_interrupt_history.mjs): a long reply cut by
``interrupt()``, the history edited by ``updateHistory``, a booking through the app's own tool, then "What
did I just ask you?". A model answers from its context, "You asked me to book a table for four at 7 pm.";
the participant quoted the question before the booking ("You asked “What's my name?”"), counting only
questions as asked. The same over Chat Completions with the official ``openai`` SDK."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai import AsyncOpenAI

from tests.integration.compat.conftest import framework_engine, server_events
from tests.integration.compat.test_js_agents import _install, _run, _tools
from tests.own_tools import STRING, Chat, chat_client, chat_tool, response_done, said

__all__ = ["framework_engine", "server_events"]  # the fixtures, used by name

BOOK_TABLE = chat_tool(
    "book_table", "Book a table at the restaurant.", {"party_size": {"type": "integer"}, "time": STRING}
)


@pytest.mark.models
async def test_js_sdk_interrupt_edit_history_then_ask_what_was_asked(framework_engine) -> None:
    node, npm = _tools()
    await _install(npm)
    eng = await framework_engine()
    code, out, err = await _run(node, "brk23_interrupt_history.mjs", eng.realtime)
    assert code == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert not report["errors"], report["errors"]
    assert report["cancelled"] == "cancelled"
    assert [(item["role"], item["text"]) for item in report["edited"]] == [("user", "My name is Ada.")]
    assert report["name"] == "Your name is Ada."
    assert report["calls"] == [{"party_size": 4, "time": "19:00"}]
    assert report["recalled"] == "You asked me to book a table for four at 7 pm."


async def test_what_was_just_asked_is_the_newest_request_over_chat(engine) -> None:
    chat = Chat(chat_client(await engine()), [BOOK_TABLE])
    await chat.say("What is the capital of France?")
    calls, _ = await chat.say("Please book a table for four at 7 pm.")
    assert calls == [("book_table", {"party_size": 4, "time": "19:00"})]
    _, recalled = await chat.say("What did I just ask you?")
    assert recalled == "You asked me to book a table for four at 7 pm."
    _, first = await chat.say("What was my first question?")  # a question: the booking is no question
    assert first == "Your first question was “What is the capital of France?”"
    _, told = await chat.say("Tell me a joke.")
    _, recalled = await chat.say("What did I ask you just now?")
    assert recalled == "You asked me to tell you a joke.", told


async def test_the_reference_out_of_band_summary_of_a_referenced_item(engine) -> None:
    # The API reference's out-of-band example: its own instructions "Provide a concise answer.", its input
    # an item_reference and "Summarize the above message in one sentence.". The participant read the
    # request as a topic to explain ("In short, the above message in one sentence comes down to three
    # things: …"); a classification asked the same way was echoed.
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})
        content = [{"type": "input_text", "text": "I'd like to book a table for two tomorrow at 7pm."}]
        await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
        user_id = ""
        async for event in conn:
            if event.type == "conversation.item.done":
                user_id = event.item.id
                break
        await conn.response.create()
        await response_done(conn)

        async def out_of_band(instructions: str, request: str) -> Any:
            asked = [{"type": "input_text", "text": request}]
            await conn.response.create(
                response={
                    "conversation": "none",
                    "instructions": instructions,
                    "metadata": {"response_purpose": "summarization"},
                    "output_modalities": ["text"],
                    "input": [
                        {"type": "item_reference", "id": user_id},
                        {"type": "message", "role": "user", "content": asked},
                    ],
                }
            )
            return await response_done(conn)

        summary = await out_of_band(
            "Provide a concise answer.", "Summarize the above message in one sentence."
        )
        assert said(summary) == "The user said: “I'd like to book a table for two tomorrow at 7pm.”"
        assert summary.conversation_id is None
        assert summary.metadata == {"response_purpose": "summarization"}
        label = await out_of_band("Provide a concise answer.", "Classify the above as booking or question.")
        assert said(label) == "booking"
        # A task the instructions set leaves out a request that repeats it: only the referenced words.
        again = await out_of_band("Summarize in one sentence.", "Summarize the above in one sentence.")
        assert said(again) == said(summary)


async def test_an_out_of_band_mood_classification_without_labels(engine) -> None:
    # "Classify the user's mood in one word." over an out-of-band input: a model names the mood; the
    # participant answered "Sure. What else can I help you with?" (no labels named, no task read).
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})

        async def classify(instructions: str, words: str) -> str:
            content = [{"type": "input_text", "text": words}]
            await conn.response.create(
                response={
                    "conversation": "none",
                    "instructions": instructions,
                    "metadata": {"response_purpose": "mood"},
                    "output_modalities": ["text"],
                    "input": [{"type": "message", "role": "user", "content": content}],
                }
            )
            return said(await response_done(conn))

        assert await classify("Classify the user's mood in one word.", "I am so happy today!") == "Happy"
        sentiment = "Detect the sentiment of the message."
        assert await classify(sentiment, "The app keeps crashing, this is terrible.") == "Negative"
        assert await classify(sentiment, "What time is it?") == "Neutral"
