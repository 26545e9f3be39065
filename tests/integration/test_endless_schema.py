"""A tool whose required property refers back to its own object (``{"a": {"$ref": "#"}}``, ``a``
required) has no finite value. The metaschema accepts it, so the session and the request take it; a
forced call to it cannot be built. The failure says so in the schema's terms (it said Python's "maximum
recursion depth exceeded in comparison"), and the session and the engine go on."""

from __future__ import annotations

import openai
import pytest
from openai import AsyncOpenAI

from tests.speech import sdk_connection

ENDLESS = {
    "name": "make_tree",
    "description": "Make a tree.",
    "parameters": {"type": "object", "properties": {"a": {"$ref": "#"}}, "required": ["a"]},
}
ASKED = "Make a tree."


async def test_realtime_response_fails_in_the_schemas_terms_and_the_session_goes_on(engine) -> None:
    eng = await engine()
    async with sdk_connection(eng.url, api_key="sk-1") as conn:
        await conn.session.update(
            session={
                "type": "realtime",
                "output_modalities": ["text"],
                "tools": [{"type": "function", **ENDLESS}],
                "tool_choice": "required",
            }
        )
        await conn.conversation.item.create(
            item={"type": "message", "role": "user", "content": [{"type": "input_text", "text": ASKED}]}
        )
        await conn.response.create()
        async for event in conn:
            assert event.type != "error", event
            if event.type == "response.done":
                details = event.response.status_details
                assert event.response.status == "failed" and details is not None and details.error
                assert details.error.code == "reply_failed"
                assert "no finite value satisfies the schema" in str(details.error.message)
                assert "recursion" not in str(details.error.message)
                break
        await conn.response.create(response={"tool_choice": "none"})
        async for event in conn:
            if event.type == "response.done":
                assert event.response.status == "completed"
                break


async def test_chat_refusal_says_why_in_the_schemas_terms(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-1", base_url=f"{eng.http_url}/v1", max_retries=0)
    with pytest.raises(openai.InternalServerError) as raised:
        await client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": ASKED}],
            tools=[{"type": "function", "function": ENDLESS}],
            tool_choice="required",
        )
    message = str(raised.value.body["message"])  # type: ignore[index]
    assert "no finite value satisfies the schema" in message and "recursion" not in message
    after = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "What is the capital of France?"}]
    )
    assert "Paris" in str(after.choices[0].message.content)
