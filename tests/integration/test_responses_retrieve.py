"""``GET /v1/responses/{id}``, ``DELETE /v1/responses/{id}`` and ``GET /v1/responses/{id}/input_items``
through the official ``openai`` SDK against an engine on loopback (fake engines: text only)."""

from __future__ import annotations

import aiohttp
import openai
import pytest
from openai import AsyncOpenAI


@pytest.fixture
def client_for(engine_url):
    async def start(**overrides) -> AsyncOpenAI:
        base = (await engine_url(**overrides)).replace("ws://", "http://")
        return AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0)

    return start


async def test_a_stored_response_is_retrieved_as_it_was_created(client_for):
    client = await client_for()
    created = await client.responses.create(model="gpt-4o-mini", input="Hello, how are you today?")
    retrieved = await client.responses.retrieve(created.id)
    assert retrieved.model_dump() == created.model_dump()
    streamed = await client.responses.create(model="gpt-4o-mini", input="What time is it?", stream=True)
    final = [event async for event in streamed][-1].response
    assert (await client.responses.retrieve(final.id)).output_text == final.output_text


async def test_unknown_unstored_and_deleted_responses_are_not_found(client_for):
    client = await client_for()
    unstored = await client.responses.create(model="gpt-4o-mini", input="Hi", store=False)
    kept = await client.responses.create(model="gpt-4o-mini", input="Hi")
    await client.responses.delete(kept.id)
    for response_id in ("resp_nothing", unstored.id, kept.id):
        with pytest.raises(openai.NotFoundError) as missing:
            await client.responses.retrieve(response_id)
        assert missing.value.body == {
            "message": f"Response with id '{response_id}' not found.",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    with pytest.raises(openai.NotFoundError):
        await client.responses.delete(kept.id)
    with pytest.raises(openai.NotFoundError):
        await client.responses.input_items.list(kept.id)
    with pytest.raises(openai.BadRequestError):  # a deleted response cannot be continued
        await client.responses.create(model="gpt-4o-mini", input="And?", previous_response_id=kept.id)


async def test_delete_answers_with_the_deleted_object(engine):
    running = await engine()
    client = AsyncOpenAI(api_key="sk-test", base_url=running.http_url + "/v1", max_retries=0)
    created = await client.responses.create(model="gpt-4o-mini", input="Hi")
    async with (
        aiohttp.ClientSession() as session,
        session.delete(
            f"{running.http_url}/v1/responses/{created.id}", headers={"Authorization": "Bearer sk-test"}
        ) as answer,
    ):
        assert answer.status == 200
        assert await answer.json() == {"id": created.id, "object": "response", "deleted": True}


async def test_input_items_list_the_conversation_newest_first(client_for):
    client = await client_for(seed=5)
    first = await client.responses.create(
        model="gpt-4o-mini",
        instructions="Be brief.",
        input=[
            {"role": "user", "content": "Hi there"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "How are you?"}]},
        ],
    )
    second = await client.responses.create(
        model="gpt-4o-mini", input="Thank you!", previous_response_id=first.id
    )
    listed = await client.responses.input_items.list(second.id)
    kinds = [(item.type, item.role) for item in listed.data]
    # Newest first: this input, the previous output, the previous input.
    assert kinds == [("message", "user"), ("message", "assistant"), ("message", "user"), ("message", "user")]
    assert listed.data[1].id == first.output[0].id
    assert listed.data[0].content[0].type == "input_text" and listed.data[0].content[0].text == "Thank you!"
    assert all(item.id.startswith("msg_") and item.status == "completed" for item in listed.data)
    assert (listed.first_id, listed.last_id, listed.has_more) == (
        listed.data[0].id,
        listed.data[-1].id,
        False,
    )
    # The earlier input items keep their ids from one listing to the next.
    earlier = await client.responses.input_items.list(first.id, order="asc")
    assert [item.id for item in earlier.data] == [item.id for item in reversed(listed.data[2:])]


async def test_input_items_pages(client_for):
    client = await client_for()
    words = ["one", "two", "three", "four", "five"]
    created = await client.responses.create(
        model="gpt-4o-mini", input=[{"role": "user", "content": w} for w in words]
    )
    page = await client.responses.input_items.list(created.id, order="asc", limit=2)
    assert [item.content[0].text for item in page.data] == ["one", "two"] and page.has_more
    rest = await client.responses.input_items.list(created.id, order="asc", limit=2, after=page.last_id)
    assert [item.content[0].text for item in rest.data] == ["three", "four"]
    everything = [
        item.content[0].text async for item in client.responses.input_items.list(created.id, limit=2)
    ]
    assert everything == list(reversed(words)), "the SDK's auto-pagination follows after= to the end"
    with pytest.raises(openai.BadRequestError) as refused:
        await client.responses.input_items.list(created.id, limit=101)
    assert refused.value.body["code"] == "integer_above_max_value" and refused.value.body["param"] == "limit"
