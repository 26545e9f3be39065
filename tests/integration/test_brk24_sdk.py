"""Found by a new user (stop brk24) driving LiveKit Agents' and Pipecat's realtime plugins with the app's
own tools and interruptions, only the URL changed.

LiveKit's ``AgentSession.run``: a question answered through the agent's ``get_weather``, then "What did I
just say?". A model quotes the user's newest words from its context; the participant echoed the request
as content ("So you're asking what did I just say. I'm not sure, to be honest.").

Pipecat's ``OpenAIRealtimeLLMService``: a story cut by Pipecat's own interruption (it cancels the response
and truncates the item at what it played), then "What did you just say?". A model still heard the audio it
kept; the participant said "I haven't said anything yet. What can I do for you?" (the cut item kept no
words for it)."""

from __future__ import annotations

import asyncio

import pytest

from tests.integration.compat.conftest import framework_engine, server_events
from tests.integration.compat.test_livekit import (
    TIMEOUT_S,
    Assistant,
    base_url,
    http_context,
    started_session,
)

pytestmark = pytest.mark.models
__all__ = ["framework_engine", "http_context", "server_events"]  # the fixtures, used by name


async def test_livekit_what_did_i_just_say_after_a_tool_answer(framework_engine, http_context) -> None:
    url = await base_url(framework_engine)
    agent = Assistant()
    async with started_session(url, agent) as (session, errors):
        await asyncio.wait_for(session.run(user_input="What is the weather like in Paris?"), TIMEOUT_S)
        result = await asyncio.wait_for(session.run(user_input="What did I just say?"), TIMEOUT_S)
        reply = result.expect.next_event().is_message(role="assistant")
        result.expect.no_more_events()
        said = [(item.role, item.text_content) for item in session.history.items if item.type == "message"]
    assert agent.weather_calls == ["Paris"]
    assert reply.event().item.text_content == "You asked “What is the weather like in Paris?”"
    assert said[0] == ("user", "What is the weather like in Paris?")
    assert said[-2:] == [("user", "What did I just say?"), ("assistant", reply.event().item.text_content)]
    assert not errors
