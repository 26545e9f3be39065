"""The Chat Completions parse boundary and the translation of messages into the brain's view."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from PIL import Image

from mockengine.brain.image import describe_image
from mockengine.brain.model import ForcedTool
from mockengine.chat.conversation import reply_request
from mockengine.chat.errors import ChatError, mask_key
from mockengine.chat.request import ChatRequest, parse_request

USER = {"role": "user", "content": "hi"}


def tool(name: str, parameters: dict[str, Any] | None = None, **function: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, **function}
    if parameters is not None:
        body["parameters"] = parameters
    return {"type": "function", "function": body}


def parse(**body: Any) -> ChatRequest:
    return parse_request(json.dumps({"model": "gpt-4o-mini", "messages": [USER], **body}).encode())


def refused(**body: Any) -> ChatError:
    with pytest.raises(ChatError) as caught:
        parse(**body)
    return caught.value


def call(call_id: str, name: str = "wait") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ("sk-VKMIsabcdefghijklmnopwjh3", "sk-VKMIs" + "*" * 16 + "wjh3"),
        ("sk jj", "sk jj"),
        ("x" * 12, "x" * 12),
    ],
)
def test_mask_key(key, shown):
    assert mask_key(key) == shown


def test_defaults():
    request = parse()
    assert (request.tool_choice, request.n, request.stream, request.max_tokens) == ("none", 1, False, None)
    assert parse(tools=[tool("wait")]).tool_choice == "auto"
    assert parse(max_tokens=9, max_completion_tokens=4).max_tokens == 4
    assert parse(stop="END").stop == ("END",)
    streamed = parse(stream=True, stream_options={"include_usage": True, "include_obfuscation": False})
    assert streamed.include_usage and not streamed.include_obfuscation


def test_stream_options_need_stream():
    assert refused(stream_options={"include_usage": True}).param == "stream_options"


def test_body_must_be_an_object():
    with pytest.raises(ChatError) as caught:
        parse_request(b"[1, 2]")
    assert caught.value.message.startswith("We could not parse the JSON body")


def test_deeply_nested_json_is_a_client_error():
    with pytest.raises(ChatError) as caught:
        parse_request(b"[" * 100_000)
    assert caught.value.status == 400


def test_a_tool_schema_nested_as_deep_as_the_parser_goes_is_checked():
    """A tool schema nested a few hundred levels, under the parser's own limit, exhausted the recursion of
    the $ref check (a 500); the walk is iterative now, so the schema is checked like any other."""
    deep = '{"a": ' * 500 + "1" + "}" * 500
    body = (
        '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": '
        f'"function", "function": {{"name": "x", "parameters": {deep}}}}}]}}'
    )
    assert [spec.name for spec in parse_request(body.encode()).tools] == ["x"]
    with pytest.raises(ChatError) as caught:  # and a bad $ref at the bottom is still found
        parse_request(body.replace('"a": 1', '"a": {"$ref": "https://e.org/x"}').encode())
    assert caught.value.code == "invalid_function_parameters" and "cannot be resolved" in caught.value.message


def test_tool_answers_may_come_in_any_order_but_each_once():
    calls = {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b")]}
    answer = [{"role": "tool", "tool_call_id": i, "content": "ok"} for i in ("b", "a")]
    assert len(parse(messages=[USER, calls, *answer, USER]).messages) == 5
    twice = refused(messages=[USER, calls, answer[0], answer[0]])
    assert twice.param == "messages.[3].role" and "preceeding" in twice.message


def test_unanswered_call_at_the_end_names_the_assistant_message():
    calls = {"role": "assistant", "tool_calls": [call("a")]}
    error = refused(messages=[USER, calls])
    assert error.param == "messages.[1].role" and error.message.endswith(": a")


def test_assistant_needs_content_or_calls():
    assert refused(messages=[USER, {"role": "assistant", "content": None}]).param == "messages.[1].content"


@pytest.mark.parametrize(
    ("parameters", "detail"),
    [
        ({"type": "string"}, "schema must be a JSON Schema of 'type: \"object\"', got 'type: \"string\"'."),
        ({"type": "object", "properties": {"x": {"type": "strin"}}}, "is not valid under any of the given"),
        ({"type": "object", "properties": {"x": {"$ref": "#/$defs/x"}}}, "reference '#/$defs/x' cannot be"),
        ({"type": "object", "properties": {"x": {"$ref": "https://e.org/x"}}}, "cannot be resolved"),
    ],
)
def test_tool_schemas_are_checked(parameters, detail):
    error = refused(tools=[tool("wait"), tool("rate", parameters)])
    assert (error.param, error.code) == ("tools[1].function.parameters", "invalid_function_parameters")
    assert error.message.startswith("Invalid schema for function 'rate': ") and detail in error.message


@pytest.mark.parametrize(
    ("parameters", "detail"),
    [
        (
            {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
            "In context=(), 'additionalProperties' is required to be supplied and to be false.",
        ),
        (
            {
                "type": "object",
                "properties": {
                    "a": {
                        "type": "object",
                        "properties": {"b": {"type": "string"}},
                        "additionalProperties": False,
                    }
                },
                "required": ["a"],
                "additionalProperties": False,
            },
            "In context=('properties', 'a'), 'required' is required to be supplied and to be an array "
            "including every key in properties. Missing 'b'.",
        ),
    ],
)
def test_strict_tools_follow_the_structured_output_rules(parameters, detail):
    error = refused(tools=[tool("rate", parameters, strict=True)])
    assert error.message == f"Invalid schema for function 'rate': {detail}"
    assert parse(tools=[tool("rate", parameters)]).tools[0].name == "rate"


def test_function_name_pattern():
    error = refused(tools=[tool("send chat")])
    assert error.param == "tools[0].function.name" and error.code == "invalid_value"


def test_allowed_tools_narrow_what_the_brain_may_call():
    choice = {
        "type": "allowed_tools",
        "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {"name": "wait"}}]},
    }
    request = parse(tools=[tool("send_chat"), tool("wait")], tool_choice=choice)
    assert [t.name for t in request.tools] == ["wait"] and request.tool_choice == "auto"
    choice["allowed_tools"]["tools"] = [{"type": "function", "function": {"name": "nope"}}]
    assert refused(tools=[tool("wait")], tool_choice=choice).param == "tool_choice.allowed_tools.tools[0]"


def test_named_and_custom_tools():
    custom = {"type": "custom", "custom": {"name": "shell", "description": "Run a command."}}
    request = parse(tools=[tool("wait"), custom], tool_choice={"type": "custom", "custom": {"name": "shell"}})
    assert request.tool_choice == ForcedTool("shell") and request.custom_tools == {"shell"}
    assert request.tools[1].parameters["required"] == ["input"]


def png_data_url(rgb: tuple[int, int, int]) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), rgb).save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def test_messages_become_the_brains_history():
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": [{"type": "text", "text": 'Say exactly: "hi"'}]},
        {"role": "user", "content": '[context] {"event":"screen","type":"showtext","text":"Hello"}'},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What colour is this?"},
                {"type": "image_url", "image_url": {"url": png_data_url((255, 0, 0))}},
                {"type": "image_url", "image_url": {"url": "https://example.org/cat.png"}},
            ],
        },
        {"role": "assistant", "content": "Red.", "tool_calls": [call("c1", "send_chat")]},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": '{"accepted": true}'}]},
        {"role": "system", "content": "Now wrap up."},
    ]
    view = reply_request(parse(messages=messages, tools=[tool("send_chat")]), describe_image)
    assert view.instructions == 'Be brief.\n\nSay exactly: "hi"\n\nNow wrap up.'
    kinds = [(item.kind, item.text) for item in view.history]
    assert kinds == [
        ("context", '[context] {"event":"screen","type":"showtext","text":"Hello"}'),
        ("user_text", "What colour is this?"),
        ("assistant", "Red."),
        ("function_call", "{}"),
        ("function_call_output", '{"accepted": true}'),
        ("system", "Now wrap up."),
    ]
    assert view.history[1].images[0].dominant_colour == "red"
    assert (view.history[3].name, view.history[3].call_id) == ("send_chat", "c1")
    assert view.response_index == 1 and view.output_modalities == ("text",)


def test_undecodable_image_is_a_client_error():
    content = [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]
    with pytest.raises(ChatError) as caught:
        reply_request(parse(messages=[{"role": "user", "content": content}]), describe_image)
    assert caught.value.code == "invalid_image_format" and caught.value.param.endswith("content[0].image_url")
    assert caught.value.message.endswith("formats: ['png', 'jpeg', 'gif', 'webp'].")  # the live wording


def test_response_format_schema_is_checked():
    loose = {"type": "object", "properties": {"x": {"type": "string"}}}
    wanted = {"type": "json_schema", "json_schema": {"name": "out", "schema": loose, "strict": True}}
    error = refused(response_format=wanted)
    assert (error.param, error.code) == ("response_format", "invalid_json_schema")
    assert error.message.startswith("Invalid schema for response_format 'out': In context=()")
    wanted["json_schema"]["strict"] = False
    assert parse(response_format=wanted).response_schema == loose
    assert refused(response_format={"type": "xml"}).param == "response_format.type"


def test_at_most_four_stop_sequences():
    error = refused(stop=["a", "b", "c", "d", "e"])
    assert (error.param, error.code) == ("stop", "array_above_max_length")
    assert error.message.endswith("but got an array with length 5 instead.")
