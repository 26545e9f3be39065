"""Found by a new user's longer sessions through real frameworks, only the URL changed.

LiveKit Agents' ``openai.realtime.RealtimeModel`` (the plugin's ``RealtimeSession`` used directly): a chat
context the app edits mid-call (LiveKit sends ``conversation.item.delete`` and re-creates the item with
its id after the item before it), then the user asking what they asked. A model answers from its
context; the participant said "You asked what was my first question. I'm not sure, to be honest.".

The OpenAI Agents SDK's ``RealtimeSession.send_message`` of a text and an ``input_image`` ("What is in
this image?") to an agent with a weather tool: the participant called ``get_weather {"city": "image"}``
("what is in …" reads as a look, and the picture's noun became the city) instead of describing it."""

from __future__ import annotations

import asyncio
import base64
import io

import pytest
from agents.realtime import RealtimeAgent
from livekit.agents import llm
from PIL import Image

from tests.integration.compat.test_livekit import TIMEOUT_S, base_url, http_context, model, record_errors
from tests.integration.compat.test_livekit_realtime_session import _reply
from tests.integration.compat.test_openai_agents import Observed, get_weather, run_agent, turn_ended

pytestmark = pytest.mark.models
__all__ = ["http_context"]  # the fixture, used by name


async def test_the_user_asking_what_they_asked_after_an_edited_context(engine, http_context) -> None:
    url = await base_url(engine)
    async with model(url) as realtime_model:
        session = realtime_model.session()
        errors = record_errors(session)
        deleted: list[str] = []
        session.on(
            "openai_server_event_received",
            lambda event: (
                event.get("type") == "conversation.item.deleted" and deleted.append(event["item_id"])
            ),
        )

        async def ask(words: str) -> str:
            asked = session.chat_ctx.copy()
            asked.add_message(role="user", content=words)
            await session.update_chat_ctx(asked)
            text, _ = await _reply(await asyncio.wait_for(session.generate_reply(), TIMEOUT_S))
            return text

        await ask("What is the capital of France?")
        await ask("What is two plus two?")
        edited = session.chat_ctx.copy()  # the app corrects the first question: a delete, then a create
        at = next(i for i, item in enumerate(edited.items) if item.type == "message" and item.role == "user")
        edited.items[at] = llm.ChatMessage(
            id=edited.items[at].id, role="user", content=["What is the capital of Italy?"]
        )
        await session.update_chat_ctx(edited)
        first_asked = await ask("What was my first question?")
        just_asked = await ask("What did I just ask you?")
        await session.aclose()
    assert first_asked == "Your first question was “What is the capital of Italy?”"
    assert just_asked == "You asked “What was my first question?”"
    assert len(deleted) == 1  # the edit reached the engine as a delete (then a create)
    assert not errors, errors


def _png(colour: tuple[int, int, int]) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (32, 32), colour).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


@pytest.mark.parametrize("words", ["What is in this image?", "What's in the photo?", "What do you see?"])
async def test_a_question_about_an_image_sent_is_no_tool_call(engine, words: str) -> None:
    agent = RealtimeAgent(name="Assistant", instructions="You are a helpful assistant.", tools=[get_weather])
    async with await run_agent(engine, agent, audio_pace=0.0) as session:
        observed = Observed(session)
        await session.send_message(
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": words},
                    {"type": "input_image", "image_url": _png((20, 60, 230))},
                ],
            }
        )
        await observed.until(turn_ended)
        await observed.until(lambda e: bool(observed.assistant_transcripts()))
        observed.close()
    assert not observed.of("tool_start")
    assert observed.assistant_transcripts()[-1] == "I can see a dark image, mostly blue."
    assert not observed.errors()
