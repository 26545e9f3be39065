"""Refused Chat Completions requests: the live service's statuses and error bodies, seen through the SDK."""

from __future__ import annotations

import aiohttp
import openai
import pytest
from openai import AsyncOpenAI

from mockengine.server.app import MAX_REQUEST_BODY_BYTES
from tests.hyperstudy_text import SEND_CHAT, WAIT

HELLO = [{"role": "user", "content": "Hello"}]


@pytest.fixture
def base_url(engine_url):
    async def start(**overrides) -> str:
        return (await engine_url(**overrides)).replace("ws://", "http://")

    return start


def client(base: str, key: str = "sk-test") -> AsyncOpenAI:
    return AsyncOpenAI(api_key=key, base_url=base, max_retries=0)


async def test_wrong_key_is_refused_with_the_key_masked(base_url):
    base = await base_url(api_key="sk-the-right-key-0123456789")
    wrong = "sk-wrongkey-abcdefghijklmnopqrstuvwxyz"
    with pytest.raises(openai.AuthenticationError) as refused:
        await client(base, wrong).chat.completions.create(model="gpt-4o-mini", messages=HELLO)
    error = refused.value
    assert (
        error.status_code == 401 and error.code == "invalid_api_key" and error.type == "invalid_request_error"
    )
    assert error.param is None
    masked = "sk-wrong" + "*" * (len(wrong) - 12) + "wxyz"
    assert error.body["message"].startswith(f"Incorrect API key provided: {masked}.")
    assert wrong not in error.body["message"]
    with pytest.raises(openai.AuthenticationError):
        await client(base, wrong).models.list()
    right = await client(base, "sk-the-right-key-0123456789").chat.completions.create(
        model="gpt-4o-mini", messages=HELLO
    )
    assert right.choices


async def test_missing_key_is_refused(base_url):
    base = await base_url()
    async with aiohttp.ClientSession() as http:
        for headers in ({}, {"Authorization": "Bearer "}, {"Authorization": "Basic abc"}):
            async with http.post(
                f"{base}/chat/completions", json={"model": "gpt-4o-mini", "messages": HELLO}, headers=headers
            ) as reply:
                assert reply.status == 401
                error = (await reply.json())["error"]
            assert error["message"].startswith("You didn't provide an API key.")
            assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", None, None)


async def test_malformed_json(base_url):
    base = await base_url()
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{base}/chat/completions",
            data=b'{"model": "gpt-4o-mini", "messages": [',
            headers={"Authorization": "Bearer sk-test", "Content-Type": "application/json"},
        ) as reply,
    ):
        assert reply.status == 400
        error = (await reply.json())["error"]
    assert error["message"].startswith("We could not parse the JSON body of your request.")
    assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", None, None)


async def _bad_request(base: str, body: dict) -> openai.BadRequestError:
    with pytest.raises(openai.BadRequestError) as refused:
        await client(base).post("/chat/completions", body=body, cast_to=object)
    assert refused.value.status_code == 400 and refused.value.type == "invalid_request_error"
    return refused.value


ASSISTANT_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "wait", "arguments": "{}"}}],
}
BAD_SCHEMA_TOOL = {
    "type": "function",
    "function": {"name": "rate", "parameters": {"type": "object", "properties": []}},
}


@pytest.mark.parametrize(
    ("body", "param", "code", "message"),
    [
        ({"messages": HELLO}, None, None, "you must provide a model parameter"),
        ({"model": "gpt-4o-mini"}, "messages", "missing_required_parameter", "Missing required parameter"),
        ({"model": "gpt-4o-mini", "messages": []}, "messages", "empty_array", "Invalid 'messages': empty"),
        (
            {"model": "gpt-4o-mini", "messages": [{"role": "robot", "content": "hi"}]},
            "messages[0].role",
            "invalid_value",
            "Invalid value: 'robot'.",
        ),
        (
            {"model": "gpt-4o-mini", "messages": HELLO, "max_tokens": "ten"},
            "max_tokens",
            "invalid_type",
            "Invalid type for 'max_tokens'",
        ),
        (
            {
                "model": "gpt-4o-mini",
                "messages": [*HELLO, {"role": "tool", "tool_call_id": "c", "content": "x"}],
            },
            "messages.[1].role",
            None,
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message",
        ),
        (
            {"model": "gpt-4o-mini", "messages": [*HELLO, ASSISTANT_CALL, *HELLO]},
            "messages.[2].role",
            None,
            "The following tool_call_ids did not have response messages: call_1",
        ),
        (
            {"model": "gpt-4o-mini", "messages": HELLO, "tools": [SEND_CHAT, BAD_SCHEMA_TOOL]},
            "tools[1].function.parameters",
            "invalid_function_parameters",
            "Invalid schema for function 'rate': [] is not of type 'object'",
        ),
        (
            {"model": "gpt-4o-mini", "messages": HELLO, "tool_choice": "auto"},
            "tool_choice",
            None,
            "'tool_choice' is only allowed when 'tools' are specified",
        ),
        (
            {
                "model": "gpt-4o-mini",
                "messages": HELLO,
                "tools": [WAIT],
                "tool_choice": {"type": "function", "function": {"name": "send_chat"}},
            },
            "tool_choice",
            "invalid_value",
            "no function named 'send_chat'",
        ),
        (
            {"model": "gpt-4o-mini", "messages": HELLO, "n": 500},
            "n",
            "integer_above_max_value",
            "Invalid 'n': integer above maximum value. Expected a value <= 128",
        ),
        # A number parameter given an integer is still "decimal" (live capture, chat_decimal_range).
        (
            {"model": "gpt-4o-mini", "messages": HELLO, "temperature": 200},
            "temperature",
            "decimal_above_max_value",
            "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 200 instead.",
        ),
        (
            {"model": "gpt-4o-mini", "messages": HELLO, "presence_penalty": -3},
            "presence_penalty",
            "decimal_below_min_value",
            "Invalid 'presence_penalty': decimal below minimum value. Expected a value >= -2, but got -3 "
            "instead.",
        ),
        (
            {"model": "gpt-4o-mini", "messages": HELLO, "top_p": 1.5},
            "top_p",
            "decimal_above_max_value",
            "Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got 1.5 instead.",
        ),
    ],
)
async def test_bad_requests(base_url, body, param, code, message):
    error = await _bad_request(await base_url(), body)
    assert error.param == param and error.code == code
    assert message in error.body["message"]


async def test_a_bad_request_changes_nothing(base_url):
    """The next request on the same engine is served normally."""
    base = await base_url()
    await _bad_request(base, {"model": "gpt-4o-mini", "messages": [{"role": "user"}]})
    completion = await client(base).chat.completions.create(model="gpt-4o-mini", messages=HELLO)
    assert completion.choices[0].message.content


async def test_unknown_model_retrieve_is_not_found(base_url):
    with pytest.raises(openai.NotFoundError) as missing:
        await client(await base_url()).models.retrieve("gpt-nothing")
    assert missing.value.code == "model_not_found"


async def test_unsatisfiable_schema_is_a_server_error_and_the_engine_carries_on(base_url):
    base = await base_url()
    impossible = {
        "type": "function",
        "function": {
            "name": "odd",
            "parameters": {
                "type": "object",
                "properties": {"x": {"type": "string", "minLength": 5, "maxLength": 2}},
                "required": ["x"],
            },
        },
    }
    with pytest.raises(openai.InternalServerError) as failed:
        await client(base).chat.completions.create(
            model="gpt-4o-mini", messages=HELLO, tools=[impossible], tool_choice="required"
        )
    assert failed.value.type == "server_error" and "odd" in failed.value.body["message"]
    completion = await client(base).chat.completions.create(model="gpt-4o-mini", messages=HELLO)
    assert completion.choices[0].message.content


async def test_oversized_body_gets_a_json_413(base_url):
    base = await base_url()
    body = b'{"model": "gpt-4o-mini", "messages": "' + b"x" * MAX_REQUEST_BODY_BYTES + b'"}'
    headers = {"Authorization": "Bearer sk-test", "Content-Type": "application/json"}
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{base}/chat/completions", data=body, headers=headers) as reply,
    ):
        assert reply.status == 413
        error = (await reply.json())["error"]
    assert error["type"] == "invalid_request_error" and "too large" in error["message"]


def _tool(n: int) -> dict:
    return {"type": "function", "function": {"name": f"tool_{n}", "parameters": {"type": "object"}}}


async def test_more_than_128_tools_is_the_live_array_error(base_url):
    base = await base_url()
    error = await _bad_request(
        base, {"model": "gpt-4o-mini", "messages": HELLO, "tools": [_tool(n) for n in range(129)]}
    )
    assert (error.code, error.param) == ("array_above_max_length", "tools")
    assert error.body["message"] == (
        "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with "
        "length 129 instead."
    )
    completion = await client(base).chat.completions.create(
        model="gpt-4o-mini", messages=HELLO, tools=[_tool(n) for n in range(128)]
    )
    assert completion.choices[0].finish_reason in ("stop", "tool_calls")


LONG = [{"role": "user", "content": "fox " * 130_000}]  # over 128k tokens by any count of ours


async def test_a_prompt_over_the_context_window_is_context_length_exceeded(base_url):
    base = await base_url()
    error = await _bad_request(base, {"model": "gpt-4o-mini", "messages": LONG})
    assert (error.code, error.param) == ("context_length_exceeded", "messages")
    message = error.body["message"]
    assert message.startswith("This model's maximum context length is 128000 tokens. However, your messages")
    said = int(message.split("resulted in ")[1].split(" tokens")[0])
    assert said > 128_000 and message.endswith(f"{said} tokens. Please reduce the length of the messages.")
    # with tools, the live form counts them apart as "functions"
    error = await _bad_request(base, {"model": "gpt-4o-mini", "messages": LONG, "tools": [_tool(1)]})
    message = error.body["message"]
    total, rest = message.split("resulted in ")[1].split(" tokens (")
    in_messages, rest = rest.split(" in the messages, ")
    in_functions = rest.split(" in the functions)")[0]
    assert int(total) == int(in_messages) + int(in_functions) and int(in_functions) > 0
    assert message.endswith("Please reduce the length of the messages or functions.")


@pytest.mark.parametrize(
    ("field", "extra"),
    [
        ("n", {}),
        ("top_logprobs", {"logprobs": True}),
        ("max_tokens", {}),
        ("max_completion_tokens", {}),
        ("seed", {}),
    ],
)
async def test_a_whole_decimal_for_an_integer_parameter_is_an_invalid_type(base_url, field, extra):
    """``"n": 2.0`` and ``"top_logprobs": 2.0`` passed the schema (2.0 is an integer to JSON Schema) and
    then crashed the completion (a 500 ``server_error``: ``range(2.0)``, a slice by 2.0). A decimal is
    refused for an integer parameter as for ``1.5``, and as Responses' ``max_output_tokens`` is."""
    base = await base_url()
    body = {"model": "gpt-4o-mini", "messages": HELLO, field: 2.0, **extra}
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{base}/chat/completions", json=body, headers={"Authorization": "Bearer sk-test"}
        ) as reply,
    ):
        assert reply.status == 400, await reply.text()
        error = (await reply.json())["error"]
    assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", field, "invalid_type")
    assert error["message"] == (
        f"Invalid type for '{field}': expected an integer or null, but got a decimal instead."
    )
