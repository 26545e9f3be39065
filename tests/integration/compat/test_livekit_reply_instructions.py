"""LiveKit's ``generate_reply(instructions=…)`` with the orders apps give it mid-call (LiveKit sends the
session's instructions, a newline, then these): what the assistant is told to tell of itself is said as
"I", a question asked with how/what is asked, an apology is made and a thanks with a manner ends the
call. Each was said back wrong ("You are looking that up now.") or was the last answer again. Only the
URL differs from the real service."""

from __future__ import annotations

import asyncio

import pytest
from livekit.agents.llm import ChatContext

from tests.integration.compat.test_livekit import TIMEOUT_S, base_url, http_context, model, record_errors
from tests.integration.compat.test_livekit_realtime_session import _reply

__all__ = ["http_context"]  # the fixture, used by name

ORDERS = (
    ("Tell the user you are looking that up now.", "I'm looking that up now."),
    ("Let the user know that you'll transfer them to your colleague.", "I'll transfer you to my colleague."),
    ("Ask the user how their day is going.", "Could you tell me how your day is going?"),
    ("Apologize to the user for the delay.", "Sorry for the delay."),
)


@pytest.mark.parametrize(("instructions", "said"), ORDERS)
async def test_an_order_after_an_answered_turn_is_followed(
    framework_engine, http_context, instructions: str, said: str
) -> None:
    url = await base_url(framework_engine)
    async with model(url) as realtime_model:
        session = realtime_model.session()
        errors = record_errors(session)
        await session.update_instructions("You are a helpful assistant.")
        asked = ChatContext.empty()
        asked.add_message(role="user", content="What is the capital of France?")
        await session.update_chat_ctx(asked)
        answer, _ = await _reply(await asyncio.wait_for(session.generate_reply(), TIMEOUT_S))
        text, _ = await _reply(
            await asyncio.wait_for(session.generate_reply(instructions=instructions), TIMEOUT_S)
        )
        await session.aclose()
    assert "Paris" in answer, answer
    assert text.strip() == said, text
    assert not errors, errors


async def test_a_thanks_with_a_manner_ends_the_call(framework_engine, http_context) -> None:
    url = await base_url(framework_engine)
    async with model(url) as realtime_model:
        session = realtime_model.session()
        asked = ChatContext.empty()
        asked.add_message(role="user", content="What is the capital of France?")
        await session.update_chat_ctx(asked)
        await _reply(await asyncio.wait_for(session.generate_reply(), TIMEOUT_S))
        text, _ = await _reply(
            await asyncio.wait_for(
                session.generate_reply(instructions="Briefly thank the user for calling and end the call."),
                TIMEOUT_S,
            )
        )
        await session.aclose()
    assert "Paris" not in text and text.strip().endswith("oodbye!"), text
