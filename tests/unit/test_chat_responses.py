"""The Responses API's translation into a chat request, and its output shaped as a ``response`` object and
its event stream, checked with the SDK's own types."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

from mockengine.brain.model import ForcedTool
from mockengine.chat.completion import Completion
from mockengine.chat.errors import ChatError
from mockengine.chat.request import parse_request
from mockengine.chat.responses_request import (
    ResponsesRequest,
    parse_responses_request,
    responses_param,
    translate,
)
from mockengine.chat.responses_shaping import shape_response
from mockengine.chat.responses_store import ResponseStore
from mockengine.chat.shaping import Choice, Envelope, ShapedCall
from mockengine.ids import IdFactory

WAIT = {"type": "function", "name": "wait", "parameters": {"type": "object", "properties": {}}}
EVENTS: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)


def responses(**body: Any) -> ResponsesRequest:
    return translate({"model": "gpt-4o-mini", **body})


def test_items_become_chat_messages() -> None:
    wanted = responses(
        instructions="Be brief.",
        input=[
            {"role": "user", "content": "Weather in Paris and London?"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Looking.", "annotations": []}],
            },
            {"type": "function_call", "call_id": "call_a", "name": "wait", "arguments": "{}", "id": "fc_a"},
            {"type": "function_call", "call_id": "call_b", "name": "wait", "arguments": "{}", "id": "fc_b"},
            {"type": "function_call_output", "call_id": "call_a", "output": "sunny"},
            {
                "type": "function_call_output",
                "call_id": "call_b",
                "output": [{"type": "input_text", "text": "rain"}],
            },
            {"role": "user", "content": [{"type": "input_text", "text": "Thanks"}]},
        ],
        tools=[WAIT],
    )
    assert list(wanted.chat.messages) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris and London?"},
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "wait", "arguments": "{}"}},
                {"id": "call_b", "type": "function", "function": {"name": "wait", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_b", "content": "rain"},
        {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
    ]
    assert [t.name for t in wanted.chat.tools] == ["wait"] and wanted.chat.tool_choice == "auto"


def test_settings_translate() -> None:
    wanted = responses(
        input="hi",
        tools=[WAIT],
        tool_choice={"type": "function", "name": "wait"},
        parallel_tool_calls=False,
        max_output_tokens=40,
        text={
            "format": {"type": "json_schema", "name": "out", "schema": {"type": "object"}, "strict": False}
        },
        stream=True,
    )
    chat = wanted.chat
    assert chat.tool_choice == ForcedTool("wait") and chat.parallel_tool_calls is False
    assert chat.max_tokens == 40 and chat.response_format == "json_schema"
    assert chat.response_schema == {"type": "object"} and wanted.stream


def test_empty_tools_are_no_tools() -> None:
    assert responses(input="hi", tools=[]).chat.tools == ()


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"input": "hi", "tools": [{"type": "file_search"}]}, "tools[0].type"),
        ({"input": "hi", "conversation": "conv_1"}, "conversation"),
        ({"input": [{"type": "function_call_output", "call_id": "x", "output": "1"}]}, "input"),
        ({"input": [{"role": "robot", "content": "hi"}]}, "input[0].role"),
        ({"input": [{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}]}, "input[1].role"),
        ({"input": "hi", "text": {"format": {"type": "json_schema", "schema": {}}}}, "text.format.name"),
        ({"input": []}, "input"),
        ({"input": "hi", "tool_choice": "required"}, "tool_choice"),
    ],
)
def test_refusals_name_the_responses_param(body: dict[str, Any], param: str) -> None:
    with pytest.raises(ChatError) as caught:
        responses(**body)
    assert caught.value.status == 400 and caught.value.param == param


CALL = {"type": "function_call", "name": "wait", "arguments": "{}"}


@pytest.mark.parametrize(
    ("items", "param", "code"),
    [
        ([{**CALL, "call_id": ["c1"]}], "input[0].call_id", "invalid_type"),
        (
            [{"type": "function_call_output", "call_id": {"id": 1}, "output": "x"}],
            "input[0].call_id",
            "invalid_type",
        ),
        ([CALL], "input[0].call_id", "missing_required_parameter"),
    ],
)
def test_a_call_id_that_is_not_a_string_is_refused(items: list[Any], param: str, code: str) -> None:
    """Not a 500 (an unhashable call_id) nor "No tool output found for function call None"."""
    with pytest.raises(ChatError) as caught:
        responses(input=items, tools=[WAIT])
    assert (caught.value.status, caught.value.param, caught.value.code) == (400, param, code)


@pytest.mark.parametrize(
    ("settings", "param"),
    [
        ({"reasoning": "high"}, "reasoning"),
        ({"reasoning": [1]}, "reasoning"),
        ({"reasoning": {"effort": "extreme"}}, "reasoning.effort"),
        ({"reasoning": {"summary": 5}}, "reasoning.summary"),
        ({"truncation": "weird"}, "truncation"),
        ({"truncation": 5}, "truncation"),
        ({"prompt_cache_key": 5}, "prompt_cache_key"),
        ({"safety_identifier": [1]}, "safety_identifier"),
        ({"text": {"verbosity": "extreme"}}, "text.verbosity"),
        (
            {"text": {"format": {"type": "json_schema", "name": "x", "schema": {}, "description": 5}}},
            "text.format.description",
        ),
        (
            {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": 5}]}]},
            "input[0].content[0].image_url",
        ),
    ],
)
def test_echoed_settings_of_the_wrong_type_are_refused(settings: dict[str, Any], param: str) -> None:
    """The response echoes these: one of the wrong type made a 500 (reasoning not an object) or a body the
    SDK's types refuse."""
    with pytest.raises(ChatError) as caught:
        responses(**{"input": "hi", **settings})
    assert (caught.value.status, caught.value.param) == (400, param)


@pytest.mark.parametrize(
    ("metadata", "param"),
    [
        ({"k": 5}, "metadata.k"),
        ({f"k{i}": "v" for i in range(17)}, "metadata"),
        ({"k": "v" * 513}, "metadata.k"),
        ({"k" * 65: "v"}, "metadata"),
    ],
)
def test_metadata_past_its_limits_is_refused(metadata: dict[str, Any], param: str) -> None:
    """16 keys of up to 64 characters, string values of up to 512 (chat checks it the same way); a value
    not a string made a response the SDK's types refuse."""
    with pytest.raises(ChatError) as caught:
        responses(input="hi", metadata=metadata)
    assert (caught.value.status, caught.value.param) == (400, param)
    assert responses(input="hi", metadata={"k" * 64: "v" * 512}).chat.body["metadata"]


def test_echoed_settings_of_the_right_type_validate() -> None:
    settings = {
        "reasoning": {"effort": "low", "summary": "auto"},
        "truncation": "auto",
        "prompt_cache_key": "k",
        "safety_identifier": "s",
        "text": {"verbosity": "low"},
    }
    request = responses(input="hi", **settings)
    shaped = shape_response(request, completion(Choice(0, "Hello.", (), "stop", 2)))
    Response.model_validate(shaped.body, strict=False)
    assert shaped.body["reasoning"]["effort"] == "low" and shaped.body["text"]["verbosity"] == "low"


@pytest.mark.parametrize(
    "raw",
    [
        b'{"model": "gpt-4o-mini", "input": "hi", "temperature": NaN}',
        b'{"model": "gpt-4o-mini", "input": "hi", "top_p": -Infinity}',
        b'{"model": "gpt-4o-mini", "input": "lone \\ud800 surrogate"}',
        b'{"model": "gpt-4o-mini", "input": "lone \\udfff low"}',
        b'{"model": "gpt-4o-mini", "input": "reversed \\udc00\\ud800"}',
    ],
)
def test_what_is_not_json_is_malformed(raw: bytes) -> None:
    """NaN / Infinity (accepted by Python's parser, echoed as invalid JSON) and lone surrogates (a 500 in
    the tokenizer) are the "could not parse" 400, on both endpoints."""
    chat_raw = raw.replace(b'"input": ', b'"messages": [{"role": "user", "content": ').replace(b"}", b"}]}")
    for parse, body in ((parse_responses_request, raw), (parse_request, chat_raw)):
        with pytest.raises(ChatError) as caught:
            parse(body)
        assert caught.value.status == 400 and "could not parse the JSON body" in caught.value.message


def test_paired_surrogates_are_one_character() -> None:
    request = parse_responses_request(b'{"model": "gpt-4o-mini", "input": "globe \\ud83c\\udf0d"}')
    assert request.chat.messages[0]["content"] == "globe \U0001f30d"


ANSWERED = {"type": "function_call", "call_id": "c1", "name": "wait", "arguments": "{}"}


@pytest.mark.parametrize(
    ("settings", "param", "code"),
    [
        ({"instructions": 5}, "instructions", "invalid_type"),
        ({"instructions": [{"role": "user", "content": "x"}]}, "instructions", "invalid_type"),
        (
            {"stream": True, "stream_options": {"include_obfuscation": "no"}},
            "stream_options.include_obfuscation",
            "invalid_type",
        ),
        (
            {"text": {"format": {"type": "json_schema", "name": "x", "schema": [1]}}},
            "text.format.schema",
            "invalid_type",
        ),
        (
            {"input": [ANSWERED, {"type": "function_call_output", "call_id": "c1", "output": [1]}]},
            "input[1].output[0]",
            "invalid_type",
        ),
        (
            {
                "input": [
                    ANSWERED,
                    {"type": "function_call_output", "call_id": "c1", "output": [{"type": "x"}]},
                ]
            },
            "input[1].output[0].type",
            "invalid_value",
        ),
        (
            {
                "input": [
                    ANSWERED,
                    {"type": "function_call_output", "call_id": "c1", "output": [{"type": "input_text"}]},
                ]
            },
            "input[1].output[0].text",
            "missing_required_parameter",
        ),
    ],
)
def test_wrong_types_are_named(settings: dict[str, Any], param: str, code: str) -> None:
    """Each was taken (a string include_obfuscation as true, output parts not parts as no text) or worded
    as missing (a schema that is an array)."""
    with pytest.raises(ChatError) as caught:
        responses(**{"input": "hi", "tools": [WAIT], **settings})
    assert (caught.value.status, caught.value.param, caught.value.code) == (400, param, code)


def test_output_parts_give_their_text() -> None:
    parts = [{"type": "input_text", "text": "Sunny"}, {"type": "input_image", "image_url": "https://x/y.png"}]
    output = {"type": "function_call_output", "call_id": "c1", "output": parts}
    request = responses(input=[ANSWERED, output], tools=[WAIT])
    assert request.chat.messages[-1] == {"role": "tool", "tool_call_id": "c1", "content": "Sunny"}


def test_chat_params_are_named_back() -> None:
    origins = ["instructions", "input[0]", "input[2]"]
    assert responses_param("messages.[2].role", origins) == "input[2]"
    assert responses_param("tools[1].function.parameters", origins) == "tools[1].parameters"
    assert responses_param("tool_choice.allowed_tools.tools[0]", origins) == "tool_choice.tools[0]"
    assert responses_param("response_format", origins) == "text.format"
    assert responses_param("response_format.json_schema.name", origins) == "text.format.name"


def completion(choice: Choice) -> Completion:
    envelope = Envelope("chatcmpl-x", 0, "gpt-4o-mini", "fp_x")
    return Completion(envelope, [choice], 12, IdFactory(1), ("test",))


def test_text_and_calls_shape_and_stream() -> None:
    wanted = responses(input="hi", tools=[WAIT])
    call = ShapedCall("call_abc", "wait", '{"a": 1}')
    shaped = shape_response(wanted, completion(Choice(0, "On it.", (call,), "tool_calls", 7)))
    response = Response.model_validate(shaped.body)
    assert [item.type for item in response.output] == ["message", "function_call"]
    assert response.output_text == "On it." and response.status == "completed"
    assert response.usage is not None and response.usage.total_tokens == 19
    events = [EVENTS.validate_python(event) for event in shaped.events()]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert events[-1].type == "response.completed" and events[-1].response == response
    arguments = "".join(e.delta for e in events if e.type == "response.function_call_arguments.delta")
    assert arguments == '{"a": 1}'
    assert {e.output_index for e in events if e.type == "response.function_call_arguments.done"} == {1}


def test_a_cut_choice_is_incomplete() -> None:
    wanted = responses(input="hi", max_output_tokens=16)
    shaped = shape_response(wanted, completion(Choice(0, "Once upon", (), "length", 16)))
    response = Response.model_validate(shaped.body)
    assert response.status == "incomplete" and response.incomplete_details is not None
    assert (
        response.incomplete_details.reason == "max_output_tokens"
        and response.output[0].status == "incomplete"
    )
    assert json.loads(json.dumps(list(shaped.events())))[-1]["type"] == "response.incomplete"


def test_obfuscation_can_be_left_out() -> None:
    wanted = responses(input="hi", stream=True, stream_options={"include_obfuscation": False})
    shaped = shape_response(wanted, completion(Choice(0, "Hello there.", (), "stop", 3)))
    assert not wanted.include_obfuscation
    deltas = [e for e in shaped.events(obfuscate=False) if e["type"] == "response.output_text.delta"]
    assert deltas and all("obfuscation" not in e for e in deltas)
    assert all("obfuscation" in e for e in shaped.events() if e["type"] == "response.output_text.delta")


def test_previous_items_come_before_the_input() -> None:
    history = [
        {"role": "user", "content": "Weather in Paris?"},
        {"type": "function_call", "call_id": "call_a", "name": "wait", "arguments": "{}", "id": "fc_a"},
    ]
    wanted = translate(
        {
            "model": "gpt-4o-mini",
            "previous_response_id": "resp_1",
            "input": [{"type": "function_call_output", "call_id": "call_a", "output": "sunny"}],
            "tools": [WAIT],
        },
        history,
    )
    assert [m["role"] for m in wanted.chat.messages] == ["user", "assistant", "tool"]
    assert len(wanted.items) == 3
    with pytest.raises(ChatError) as caught:
        translate({"model": "gpt-4o-mini", "previous_response_id": "resp_2", "input": "hi"})
    assert caught.value.param == "previous_response_id" and caught.value.code == "previous_response_not_found"


def test_the_store_keeps_the_newest() -> None:
    store = ResponseStore(capacity=2)
    for number in range(3):
        store.put(f"resp_{number}", ({"role": "user", "content": str(number)},))
    assert store.get("resp_0") is None and store.get("resp_2") is not None and len(store) == 2
    small = ResponseStore(max_bytes=100)
    small.put("resp_a", (), 60)
    small.put("resp_b", (), 60)
    small.put("resp_c", (), 101)
    assert small.get("resp_a") is None and small.get("resp_b") == () and small.get("resp_c") is None
