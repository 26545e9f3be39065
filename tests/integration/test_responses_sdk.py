"""The Responses API (``POST /v1/responses``) through the official ``openai`` SDK against a real engine on
loopback: every object and event parsed by the SDK's own types."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import jsonschema
import openai
import pytest
from openai import AsyncOpenAI
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import BaseModel, TypeAdapter

from tests import hyperstudy_text
from tests.eventually import eventually

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city."}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}


def flat(tool: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions function tool (``{"type": "function", "function": {...}}``) as the Responses API
    takes it: its ``function`` fields beside ``type``."""
    return {"type": "function", **tool["function"]}


SEND_CHAT = flat(hyperstudy_text.SEND_CHAT)
WAIT = flat(hyperstudy_text.WAIT)
ASK_WEATHER = "What is the weather in Paris?"
ASK_FOR_CHAT = "Please send a chat saying hello to Alex"
TIMES = {"created_at", "completed_at"}


def unparsed(value):
    """``value`` without the ``parsed`` / ``parsed_arguments`` fields the SDK's helpers add."""
    if isinstance(value, dict):
        return {k: unparsed(v) for k, v in value.items() if k not in ("parsed", "parsed_arguments")}
    if isinstance(value, list):
        return [unparsed(v) for v in value]
    return value


@pytest.fixture
def client_for(engine_url):
    """A factory: ``await client_for(api_key=..., **settings) -> AsyncOpenAI`` for a fresh engine."""

    async def start(api_key: str = "sk-test", **overrides) -> AsyncOpenAI:
        base = (await engine_url(**overrides)).replace("ws://", "http://")
        return AsyncOpenAI(api_key=api_key, base_url=base, max_retries=0)

    return start


async def test_plain_text_response(client_for):
    client = await client_for()
    response = await client.responses.create(model="gpt-4o-mini", input="Hello, how are you today?")
    assert response.object == "response" and response.id.startswith("resp_")
    assert response.status == "completed" and response.error is None
    assert response.model == "gpt-4o-mini-2024-07-18"  # the snapshot the alias names, as live
    [message] = response.output
    assert message.type == "message" and message.role == "assistant" and message.id.startswith("msg_")
    assert message.status == "completed" and message.content[0].type == "output_text"
    assert response.output_text.strip()
    usage = response.usage
    assert usage is not None and usage.input_tokens > 0 and usage.output_tokens > 0
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens


async def test_instructions_and_message_items(client_for):
    client = await client_for()
    response = await client.responses.create(
        model="gpt-4o-mini",
        instructions="You are a helpful assistant.",
        input=[
            {"role": "user", "content": "Hi there"},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hello! How can I help?"}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "What is 2 + 2?"}],
            },
        ],
        temperature=0.2,
        top_p=0.9,
        metadata={"run": "1"},
        store=False,
    )
    assert response.status == "completed" and response.output_text
    assert response.instructions == "You are a helpful assistant."
    assert response.metadata == {"run": "1"} and response.store is False and response.temperature == 0.2


async def test_function_call_round_trip(client_for):
    """call → ``function_call_output`` → a text answer that rests on the output."""
    client = await client_for()
    first = await client.responses.create(model="gpt-4o-mini", input=ASK_WEATHER, tools=[WEATHER])
    [call] = first.output
    assert call.type == "function_call" and call.name == "get_weather"
    assert call.id.startswith("fc_") and call.call_id.startswith("call_") and call.status == "completed"
    arguments = json.loads(call.arguments)
    jsonschema.validate(arguments, WEATHER["parameters"])
    assert arguments["city"] == "Paris"
    history = [
        {"role": "user", "content": ASK_WEATHER},
        *[item.model_dump(exclude_none=True) for item in first.output],
        {"type": "function_call_output", "call_id": call.call_id, "output": "Sunny, 24 degrees"},
    ]
    second = await client.responses.create(model="gpt-4o-mini", input=history, tools=[WEATHER])
    assert [item.type for item in second.output] == ["message"]
    assert "24" in second.output_text or "unny" in second.output_text, second.output_text


async def test_streamed_response_matches_the_plain_one(client_for):
    """Same seed, same request: the SDK's stream helper accumulates every event into the plain body."""
    client = await client_for(seed=11)
    kwargs = {"model": "gpt-4o-mini", "input": ASK_FOR_CHAT, "tools": [SEND_CHAT, WAIT]}
    plain = await client.responses.create(**kwargs)
    async with client.responses.stream(**kwargs) as stream:
        events = [event async for event in stream]
        final = await stream.get_final_response()
    assert unparsed(final.model_dump(exclude=TIMES)) == plain.model_dump(exclude=TIMES)
    kinds = [e.type for e in events]
    assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert kinds[-1] == "response.completed"
    assert (
        "response.function_call_arguments.delta" in kinds and "response.function_call_arguments.done" in kinds
    )
    assert [e.sequence_number for e in events] == list(range(len(events)))


async def test_streamed_text_events(client_for):
    client = await client_for()
    stream = await client.responses.create(model="gpt-4o-mini", input="Tell me about your day.", stream=True)
    events = [event async for event in stream]
    kinds = [e.type for e in events]
    assert kinds[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert kinds[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = [e for e in events if e.type == "response.output_text.delta"]
    assert deltas and all(e.item_id == events[2].item.id and e.output_index == 0 for e in deltas)
    done = next(e for e in events if e.type == "response.output_text.done")
    assert "".join(e.delta for e in deltas) == done.text == events[-1].response.output_text
    assert events[0].response.status == "in_progress" and events[0].response.output == []


@pytest.mark.parametrize(
    ("tool_choice", "expected"),
    [("required", None), ({"type": "function", "name": "wait"}, "wait"), ("none", "")],
)
async def test_tool_choice_is_obeyed(client_for, tool_choice, expected):
    client = await client_for()
    response = await client.responses.create(
        model="gpt-4o-mini", input="Good morning!", tools=[SEND_CHAT, WAIT], tool_choice=tool_choice
    )
    calls = [item for item in response.output if item.type == "function_call"]
    if expected == "":
        assert not calls and response.output_text
    else:
        assert calls
        if expected is not None:
            assert [c.name for c in calls] == [expected]
    assert response.tool_choice == (
        tool_choice
        if isinstance(tool_choice, str)
        else openai.types.responses.ToolChoiceFunction(**tool_choice)
    )


async def test_allowed_tools_choice(client_for):
    client = await client_for()
    response = await client.responses.create(
        model="gpt-4o-mini",
        input=ASK_WEATHER,
        tools=[SEND_CHAT, WEATHER],
        tool_choice={
            "type": "allowed_tools",
            "mode": "required",
            "tools": [{"type": "function", "name": "send_chat"}],
        },
    )
    assert [item.name for item in response.output if item.type == "function_call"] == ["send_chat"]


async def test_parallel_tool_calls(client_for):
    client = await client_for()
    words = "What is the weather in Paris and in London?"
    both = await client.responses.create(model="gpt-4o-mini", input=words, tools=[WEATHER])
    cities = [json.loads(item.arguments)["city"] for item in both.output if item.type == "function_call"]
    assert cities == ["Paris", "London"]
    one = await client.responses.create(
        model="gpt-4o-mini", input=words, tools=[WEATHER], parallel_tool_calls=False
    )
    assert [item.type for item in one.output] == ["function_call"] and one.parallel_tool_calls is False


class CityWeather(BaseModel):
    city: str
    temperature_c: int
    summary: str


async def test_parse_with_a_pydantic_text_format(client_for):
    client = await client_for()
    response = await client.responses.parse(
        model="gpt-4o-mini", input="It is 21 degrees and sunny in Paris.", text_format=CityWeather
    )
    parsed = response.output_parsed
    assert isinstance(parsed, CityWeather) and parsed.city == "Paris" and parsed.temperature_c == 21
    assert response.text.format.type == "json_schema"


async def test_json_object_format(client_for):
    client = await client_for()
    response = await client.responses.create(
        model="gpt-4o-mini", input="Answer in JSON: how are you?", text={"format": {"type": "json_object"}}
    )
    assert isinstance(json.loads(response.output_text), dict)


async def test_max_output_tokens_makes_the_response_incomplete(client_for):
    client = await client_for()
    words = "Tell me a long story about a dragon who learns to bake bread in a small village by the sea."
    response = await client.responses.create(model="gpt-4o-mini", input=words, max_output_tokens=16)
    assert response.status == "incomplete" and response.incomplete_details is not None
    assert response.incomplete_details.reason == "max_output_tokens"
    assert response.usage is not None and response.usage.output_tokens <= 16
    assert response.output[-1].status == "incomplete"
    stream = await client.responses.create(
        model="gpt-4o-mini", input=words, max_output_tokens=16, stream=True
    )
    events = [event async for event in stream]
    assert (
        events[-1].type == "response.incomplete" and events[-1].response.output_text == response.output_text
    )


async def test_seeded_engine_repeats_bodies(client_for):
    """Same seed + same request → the same body (but the times); another request → other ids."""
    client = await client_for(seed=9)
    kwargs = {"model": "gpt-4o-mini", "input": ASK_FOR_CHAT, "tools": [SEND_CHAT, WAIT]}
    times = TIMES
    first = (await client.responses.create(**kwargs)).model_dump(exclude=times)
    second = (await client.responses.create(**kwargs)).model_dump(exclude=times)
    assert first == second
    other = await client.responses.create(**{**kwargs, "metadata": {"other": "yes"}})
    assert other.id != first["id"]
    streams = []
    for _ in range(2):
        stream = await client.responses.create(**kwargs, stream=True)
        streams.append([event.model_dump(exclude={"response": times}) async for event in stream])
    assert streams[0] == streams[1]


async def _bad(client: AsyncOpenAI, **kwargs) -> openai.BadRequestError:
    with pytest.raises(openai.BadRequestError) as caught:
        await client.responses.create(**{"model": "gpt-4o-mini", **kwargs})
    return caught.value


async def test_bad_requests_are_refused_with_their_param(client_for):
    client = await client_for()
    bad_schema = {**WEATHER, "parameters": {"type": "object", "properties": {"city": {"type": "strin"}}}}
    cases = [
        ({"input": None}, "input"),
        ({"input": "hi", "tools": [bad_schema]}, "tools[0].parameters"),
        ({"input": "hi", "tools": [{"type": "web_search"}]}, "tools[0].type"),
        ({"input": "hi", "max_output_tokens": 5}, "max_output_tokens"),
        (
            {"input": "hi", "tools": [WEATHER], "tool_choice": {"type": "function", "name": "nope"}},
            "tool_choice",
        ),
        ({"input": "hi", "previous_response_id": "resp_123"}, "previous_response_id"),
        ({"input": "hi", "background": True}, "background"),
        ({"input": "hi", "temperature": 3}, "temperature"),
        (
            {"input": [{"type": "function_call", "call_id": "call_1", "name": "wait", "arguments": "{}"}]},
            "input",
        ),
        # A hosted tool's call item is not read (an item_reference is: see test_item_references_…).
        ({"input": [{"type": "web_search_call", "id": "ws_1", "status": "completed"}]}, "input[0].type"),
        ({"input": "hi", "text": {"format": {"type": "json_object"}}}, "input"),
        (
            {
                "input": "hi",
                "text": {"format": {"type": "json_schema", "name": "x", "schema": {"type": "array"}}},
            },
            "text.format.schema",
        ),
    ]
    for kwargs, param in cases:
        error = await _bad(client, **kwargs)
        assert error.status_code == 400
        assert error.body["type"] == "invalid_request_error" and error.body["param"] == param, (
            kwargs,
            error.body,
        )


async def test_malformed_json_and_missing_model(client_for, engine_url):
    client = await client_for()
    with pytest.raises(openai.BadRequestError) as caught:
        await client.post("/responses", body={"input": "hi"}, cast_to=dict)
    assert caught.value.body["param"] == "model"
    with pytest.raises(openai.BadRequestError) as caught:
        await client.post(
            "/responses",
            body="{not json",
            cast_to=dict,
            options={"headers": {"Content-Type": "application/json"}},
        )
    assert "could not parse the JSON body" in caught.value.body["message"]


async def test_the_key_policy_applies(client_for):
    client = await client_for(api_key="sk-wrong", api_keys=("sk-right",))
    with pytest.raises(openai.AuthenticationError):
        await client.responses.create(model="gpt-4o-mini", input="hi")


async def test_a_fault_header_fails_the_request(client_for):
    client = await client_for()
    with pytest.raises(openai.InternalServerError):
        await client.responses.create(
            model="gpt-4o-mini", input="hi", extra_headers={"X-Mockengine-Fault": "http_status:status=500"}
        )


async def test_trace_has_one_line_per_request(client_for, tmp_path):
    client = await client_for(trace_dir=str(tmp_path))
    await client.responses.create(model="gpt-4o-mini", input=ASK_FOR_CHAT, tools=[SEND_CHAT, WAIT])
    await _bad(client, input="hi", max_output_tokens=1)
    trace = tmp_path / "responses.jsonl"
    # A background thread writes the trace (never the event loop).
    await eventually(lambda: trace.exists() and len(trace.read_text().splitlines()) >= 2, timeout_s=5)
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["response", "response.error"]
    assert lines[0]["data"]["rules"] and lines[0]["data"]["response"]["output"]
    assert lines[1]["data"]["error"]["param"] == "max_output_tokens"


async def test_wire_bodies_and_events_validate_strictly(engine_url):
    """The SDK parses leniently; here every body and event must validate against its type as is."""
    base = (await engine_url()).replace("ws://", "http://")
    events_type: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    request = {"model": "gpt-4o-mini", "input": ASK_FOR_CHAT, "tools": [SEND_CHAT, WAIT]}
    headers = {"Authorization": "Bearer sk-test"}
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{base}/responses", json=request, headers=headers) as reply:
            assert reply.status == 200 and reply.headers["x-request-id"].startswith("req_")
            Response.model_validate(await reply.json(), strict=False)
        async with http.post(f"{base}/responses", json={**request, "stream": True}, headers=headers) as reply:
            assert reply.headers["Content-Type"].startswith("text/event-stream")
            frames = (await reply.text()).strip().split("\n\n")
    for frame in frames:
        event_line, data_line = frame.split("\n")
        event = events_type.validate_python(json.loads(data_line.removeprefix("data: ")))
        assert event_line == f"event: {event.type}"
    assert event.type == "response.completed"


async def test_a_truncated_stream_breaks_off(client_for):
    """``sse_truncate``: the SSE stream of a response stops mid-event, with no ``response.completed``."""
    client = await client_for()
    events = []
    with pytest.raises(openai.APIConnectionError):
        stream = await client.responses.create(
            model="gpt-4o-mini",
            input="Tell me about your day.",
            stream=True,
            extra_headers={"X-Mockengine-Fault": "sse_truncate:after_events=3"},
        )
        async for event in stream:
            events.append(event.type)
    assert events == ["response.created", "response.in_progress", "response.output_item.added"]


async def test_previous_response_id_continues_the_conversation(client_for):
    """The tool round trip again, the second request sending only the call's output after the first
    response's id; a response made with ``store: false`` is not kept."""
    client = await client_for()
    first = await client.responses.create(
        model="gpt-4o-mini", instructions="You are helpful.", input=ASK_WEATHER, tools=[WEATHER]
    )
    [call] = first.output
    second = await client.responses.create(
        model="gpt-4o-mini",
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "Sunny, 24 degrees"}],
        tools=[WEATHER],
    )
    assert second.previous_response_id == first.id and [item.type for item in second.output] == ["message"]
    assert "24" in second.output_text or "unny" in second.output_text, second.output_text
    third = await client.responses.create(
        model="gpt-4o-mini", previous_response_id=second.id, input="Thank you!", store=False
    )
    assert third.output_text
    error = await _bad(client, previous_response_id=third.id, input="And tomorrow?")
    assert (
        error.body["param"] == "previous_response_id" and error.body["code"] == "previous_response_not_found"
    )


async def test_item_references_stand_for_kept_items(client_for):
    """``{"type": "item_reference", "id": …}`` input items (the Vercel AI SDK's Responses model sends its
    earlier output items so while ``store`` is on) stand for the kept items they name, outputs and
    inputs alike; they were refused with a 400, and an id not kept gets the live 404."""
    client = await client_for()
    first = await client.responses.create(model="gpt-4o-mini", input=ASK_WEATHER, tools=[WEATHER])
    [call] = first.output
    second = await client.responses.create(
        model="gpt-4o-mini",
        input=[
            {"role": "user", "content": ASK_WEATHER},
            {"type": "item_reference", "id": call.id},
            {"type": "function_call_output", "call_id": call.call_id, "output": "Sunny, 24 degrees"},
        ],
        tools=[WEATHER],
    )
    [answer] = second.output
    assert answer.type == "message" and "24" in second.output_text, second.output_text
    items = [item async for item in client.responses.input_items.list(second.id, order="asc")]
    assert [item.type for item in items] == ["message", "function_call", "function_call_output"]
    assert items[1].id == call.id
    third = await client.responses.create(
        model="gpt-4o-mini",
        input=[
            {"type": "item_reference", "id": items[0].id},  # an input item, named when it was kept
            {"type": "item_reference", "id": answer.id},
            {"role": "user", "content": "And in Rome?"},
        ],
        tools=[WEATHER],
    )
    [again] = third.output
    assert again.type == "function_call" and json.loads(again.arguments) == {"city": "Rome"}

    forgotten = await client.responses.create(model="gpt-4o-mini", input="Hello", store=False)
    for item_id in (forgotten.output[0].id, "msg_nope"):
        with pytest.raises(openai.NotFoundError) as raised:
            await client.responses.create(
                model="gpt-4o-mini",
                input=[{"type": "item_reference", "id": item_id}, {"role": "user", "content": "Hi"}],
            )
        assert raised.value.body["param"] == "input" and raised.value.body["code"] is None  # type: ignore[index]
        assert raised.value.body["message"].startswith(f"Item with id '{item_id}' not found.")  # type: ignore[index]
    bad = await _bad(client, input=[{"type": "item_reference", "id": 7}])
    assert bad.body["param"] == "input[0].id" and bad.body["code"] == "invalid_type"


async def test_a_body_that_cannot_be_read_is_a_400(engine_url):
    """A body not in its ``Content-Encoding`` (aiohttp cannot decode it) was a 500, on both endpoints; the
    400 says ``Connection: close`` (the server drops the connection), so the next request on the same
    session opens a new one instead of meeting a reset."""
    base = (await engine_url()).replace("ws://", "http://")
    headers = {"Authorization": "Bearer sk-test", "Content-Type": "application/json"}
    async with aiohttp.ClientSession() as http:
        for path in ("/responses", "/chat/completions"):
            async with http.post(
                f"{base}{path}", data=b"not gzip", headers={**headers, "Content-Encoding": "gzip"}
            ) as reply:
                body = await reply.json()
            assert reply.status == 400 and body["error"]["type"] == "invalid_request_error", body
            assert "content-encoding" in body["error"]["message"].lower()
            assert reply.headers.get("Connection", "").lower() == "close"
            request = {"model": "gpt-4o-mini", "input": "hi"}
            async with http.post(f"{base}/responses", json=request, headers=headers) as reply:
                assert reply.status == 200


async def test_errors_found_while_deciding_name_the_responses_param(client_for):
    """An image that is none and a context window overrun are found past the translation: their param
    was the chat one (``messages[1].content[0].image_url``, ``messages``)."""
    client = await client_for()
    not_an_image = {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}
    error = await _bad(client, instructions="Be brief.", input=[{"role": "user", "content": [not_an_image]}])
    assert error.body["code"] == "invalid_image_format" and error.body["param"] == "input[0]", error.body
    error = await _bad(client, input="word " * 200_000)
    assert error.body["code"] == "context_length_exceeded" and error.body["param"] == "input", error.body


async def test_a_deeply_nested_body_is_traced(engine_url, tmp_path):
    """A body nested 700 deep (the JSON parser takes it) made a 500 when traced: walking it for data URLs
    ran out of recursion."""
    base = (await engine_url(trace_dir=str(tmp_path))).replace("ws://", "http://")
    nested = "[" * 700 + "1" + "]" * 700
    bodies = {
        "/responses": '{"model": "gpt-4o-mini", "input": "hi", "extra": %s}',
        "/chat/completions": (
            '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "extra": %s}'
        ),
    }
    headers = {"Authorization": "Bearer sk-test", "Content-Type": "application/json"}
    async with aiohttp.ClientSession() as http:
        for path, body in bodies.items():
            async with http.post(f"{base}{path}", data=body % nested, headers=headers) as reply:
                assert reply.status == 200, await reply.text()
    trace = tmp_path / "responses.jsonl"
    await eventually(lambda: trace.exists() and trace.read_text().strip(), timeout_s=5)
    assert json.loads(trace.read_text().splitlines()[0])["data"]["request"] == "<nested too deeply to trace>"


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("3", "invalid_type"),
        (2.0, "invalid_type"),
        (21, "integer_above_max_value"),
        (-1, "integer_below_min_value"),
    ],
)
async def test_a_bad_top_logprobs_is_refused(client_for, value, code):
    """``top_logprobs`` was read by nothing: ``"3"`` and ``99`` answered 200, and the response said
    ``top_logprobs: 0`` whatever was asked. It is an integer from 0 to 20, as on the chat side."""
    client = await client_for()
    error = await _bad(client, input="hi", top_logprobs=value)
    assert (error.status_code, error.body["param"], error.body["code"]) == (400, "top_logprobs", code), (
        error.body
    )


async def test_top_logprobs_is_echoed_as_asked(client_for):
    client = await client_for()
    response = await client.responses.create(model="gpt-4o-mini", input="hi", top_logprobs=5)
    assert response.top_logprobs == 5
    default = await client.responses.create(model="gpt-4o-mini", input="hi")
    assert default.top_logprobs == 0
