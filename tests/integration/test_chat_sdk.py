"""Chat Completions through the official ``openai`` SDK against a real engine on loopback."""

from __future__ import annotations

import base64
import io
import json
from typing import Literal

import jsonschema
import numpy as np
import openai
import pytest
from openai import AsyncOpenAI
from PIL import Image
from pydantic import BaseModel

from tests.eventually import eventually
from tests.hyperstudy_text import (
    LIKERT_SCHEMA,
    SEND_CHAT,
    SYSTEM_PROMPT,
    VAS_SCHEMA,
    WAIT,
    context,
    submit_response,
    tool_result,
)

WAIT_NAME = {"name": "wait"}
ASK_FOR_CHAT = [{"role": "user", "content": "Please send a chat saying hello to Alex"}]
VAS_QUESTION = (
    "Question: How warm was your partner?\nThis is a visual analog rating scale from 0 to 100.\n"
    "Respond with a number between 0 and 100."
)


@pytest.fixture
def chat_client(engine_url):
    """A factory: ``await chat_client(api_key=..., **settings) -> AsyncOpenAI`` for a fresh engine."""

    async def start(api_key: str = "sk-test", **overrides) -> AsyncOpenAI:
        base = (await engine_url(**overrides)).replace("ws://", "http://")
        return AsyncOpenAI(api_key=api_key, base_url=base, max_retries=0)

    return start


async def test_plain_completion(chat_client):
    client = await chat_client()
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "Hello, how are you today?"}]
    )
    assert completion.object == "chat.completion" and completion.id.startswith("chatcmpl-")
    assert completion.model == "gpt-4o-mini-2024-07-18"  # the snapshot the alias names, as live
    [choice] = completion.choices
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    assert choice.message.content and choice.message.tool_calls is None
    usage = completion.usage
    assert usage is not None and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


async def test_tool_call_arguments_match_the_schema(chat_client):
    client = await chat_client()
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=ASK_FOR_CHAT, tools=[SEND_CHAT, WAIT], tool_choice="auto"
    )
    [choice] = completion.choices
    assert choice.finish_reason == "tool_calls"
    [call] = choice.message.tool_calls
    assert call.type == "function" and call.id.startswith("call_") and call.function.name == "send_chat"
    arguments = json.loads(call.function.arguments)
    jsonschema.validate(arguments, SEND_CHAT["function"]["parameters"])
    assert "hello" in arguments["message"].lower()


async def test_stream_reassembles_to_the_plain_completion(chat_client):
    """Same seed, same request: the SDK parses every chunk and the pieces add up to the plain body."""
    client = await chat_client(seed=11)
    kwargs = {"model": "gpt-4o-mini", "messages": ASK_FOR_CHAT, "tools": [SEND_CHAT, WAIT]}
    plain = await client.chat.completions.create(**kwargs)
    stream = await client.chat.completions.create(
        **kwargs, stream=True, stream_options={"include_usage": True}
    )
    chunks = [chunk async for chunk in stream]
    assert all(c.object == "chat.completion.chunk" and c.id == plain.id for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            entry = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
            if delta.id is not None:
                assert not entry["id"], "id only in the first fragment"
                entry["id"], entry["name"] = delta.id, delta.function.name
            else:
                assert delta.function.name is None, "name only in the first fragment"
            entry["arguments"] += delta.function.arguments or ""
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == ["tool_calls"]
    assert chunks[-1].choices == [] and chunks[-1].usage == plain.usage
    message = plain.choices[0].message
    assert content == (message.content or "")
    assert [(c["id"], c["name"], c["arguments"]) for _, c in sorted(calls.items())] == [
        (t.id, t.function.name, t.function.arguments) for t in message.tool_calls
    ]


async def test_sdk_stream_helper_gets_the_same_final_completion(chat_client):
    client = await chat_client(seed=5)
    kwargs = {"model": "gpt-4o-mini", "messages": ASK_FOR_CHAT, "tools": [SEND_CHAT, WAIT]}
    plain = await client.chat.completions.create(**kwargs)
    async with client.chat.completions.stream(**kwargs) as stream:
        final = await stream.get_final_completion()
    call = final.choices[0].message.tool_calls[0]
    assert final.choices[0].finish_reason == "tool_calls"
    assert (call.id, call.function.arguments) == (
        plain.choices[0].message.tool_calls[0].id,
        plain.choices[0].message.tool_calls[0].function.arguments,
    )


async def test_streamed_text_without_usage(chat_client):
    client = await chat_client()
    stream = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "Tell me about your day."}], stream=True
    )
    chunks = [chunk async for chunk in stream]
    assert all(c.usage is None and len(c.choices) == 1 for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "stop" and chunks[-1].choices[0].delta.content is None
    assert "".join(c.choices[0].delta.content or "" for c in chunks).strip()


@pytest.mark.parametrize(
    ("tool_choice", "expected"),
    [
        ("none", []),
        ("required", ["send_chat"]),
        ({"type": "function", "function": {"name": "wait"}}, ["wait"]),
        (
            {
                "type": "allowed_tools",
                "allowed_tools": {"mode": "required", "tools": [{"type": "function", "function": WAIT_NAME}]},
            },
            ["wait"],
        ),
    ],
)
async def test_tool_choice_is_obeyed(chat_client, tool_choice, expected):
    client = await chat_client()
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=ASK_FOR_CHAT, tools=[SEND_CHAT, WAIT], tool_choice=tool_choice
    )
    [choice] = completion.choices
    names = [call.function.name for call in choice.message.tool_calls or []]
    assert names == expected
    assert choice.finish_reason == ("tool_calls" if expected else "stop")
    if not expected:
        assert choice.message.content


_CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
_WEATHER_AND_TIME = [
    {"type": "function", "function": {"name": name, "description": what, "parameters": _CITY}}
    for name, what in (
        ("get_weather", "Get the weather for a city."),
        ("get_time", "Get the local time in a city."),
    )
]
_ONLY_WEATHER = [{"type": "function", "function": {"name": "get_weather"}}]


@pytest.mark.parametrize("mode", ["auto", "required"])
async def test_allowed_tools_keep_each_request_on_its_own_tool(chat_client, mode):
    """``allowed_tools`` limits which tools may be called, not what the words ask for: of "the time in
    Tokyo and the weather in Paris" with only ``get_weather`` allowed, the call is ``get_weather(Paris)``.
    The brain was shown only the allowed tools, so the time request became ``get_weather(Tokyo)`` too
    (Chat Completions and, through it, the Responses API)."""
    client = await chat_client()
    words = "What's the time in Tokyo and the weather in Paris?"
    completion = await client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "user", "content": words}],
        tools=_WEATHER_AND_TIME,
        tool_choice={
            "type": "allowed_tools",
            "allowed_tools": {"mode": mode, "tools": _ONLY_WEATHER},
        },
    )
    calls = completion.choices[0].message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    response = await client.responses.create(
        model="gpt-4o",
        input=words,
        tools=[{"type": "function", **tool["function"]} for tool in _WEATHER_AND_TIME],
        tool_choice={
            "type": "allowed_tools",
            "mode": mode,
            "tools": [{"type": "function", "name": "get_weather"}],
        },
    )
    assert [(o.name, json.loads(o.arguments)) for o in response.output if o.type == "function_call"] == [
        ("get_weather", {"city": "Paris"})
    ]


async def test_a_forced_tool_takes_the_words_that_ask_for_it(chat_client):
    """A named ``tool_choice`` forces the tool, not the first city said: of "the weather in Paris and the
    time in Tokyo" forced to ``get_time`` the call is ``get_time(Tokyo)`` (it was ``get_time(Paris)``),
    on Chat Completions and, through it, the Responses API."""
    client = await chat_client()
    words = "What's the weather in Paris and the time in Tokyo?"
    completion = await client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "user", "content": words}],
        tools=_WEATHER_AND_TIME,
        tool_choice={"type": "function", "function": {"name": "get_time"}},
    )
    calls = completion.choices[0].message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("get_time", {"city": "Tokyo"})
    ]
    response = await client.responses.create(
        model="gpt-4o",
        input=words,
        tools=[{"type": "function", **tool["function"]} for tool in _WEATHER_AND_TIME],
        tool_choice={"type": "function", "name": "get_time"},
    )
    assert [(o.name, json.loads(o.arguments)) for o in response.output if o.type == "function_call"] == [
        ("get_time", {"city": "Tokyo"})
    ]


async def test_hrp_connection_test(chat_client):
    """HRP modelEndpoint.connectionTest: GET models (first id is the model), then a 1-token completion."""
    client = await chat_client()
    models = await client.models.list()
    first = models.data[0].id
    assert first == "gpt-4o-mini" and "gpt-realtime" in [m.id for m in models.data]
    assert (await client.models.retrieve(first)).id == first
    completion = await client.chat.completions.create(
        model=first, messages=[{"role": "user", "content": "Say hello."}], max_tokens=1
    )
    [choice] = completion.choices
    assert choice.finish_reason == "length" and completion.usage.completion_tokens == 1
    assert choice.message.content


async def test_the_audio_models_the_engine_serves_are_listed_and_retrievable(chat_client):
    """docs/client-compatibility.md promised "any id /v1/models lists, e.g. openai/whisper-1"; the list
    held the chat and realtime models only, so models.retrieve("whisper-1") was a 404 although
    /v1/audio/transcriptions serves it (as the live list has them, apps and gateways look ids up)."""
    client = await chat_client()
    ids = [m.id for m in (await client.models.list()).data]
    for model in ("whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-tts", "tts-1", "gpt-4o-audio-preview"):
        assert model in ids, model
        assert (await client.models.retrieve(model)).id == model
    assert ids[0] == "gpt-4o-mini" and len(ids) == len(set(ids))


async def test_max_completion_tokens_cuts_tool_arguments(chat_client):
    client = await chat_client()
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=ASK_FOR_CHAT,
        tools=[SEND_CHAT, WAIT],
        tool_choice={"type": "function", "function": {"name": "send_chat"}},
        max_completion_tokens=3,
    )
    [choice] = completion.choices
    assert choice.finish_reason == "length" and completion.usage.completion_tokens <= 3
    [call] = choice.message.tool_calls
    with pytest.raises(ValueError):
        json.loads(call.function.arguments)


async def test_n_choices(chat_client):
    client = await chat_client(seed=2)
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "Hello there!"}], n=3
    )
    assert [c.index for c in completion.choices] == [0, 1, 2]
    single = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "Hello there!"}]
    )
    assert completion.choices[0].message.content == single.choices[0].message.content


async def test_unknown_fields_are_ignored(chat_client):
    client = await chat_client()
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Hi", "x_extra": 1}],
        temperature=0.2,
        top_p=0.9,
        user="hs-participant",
        extra_body={"not_a_real_field": {"nested": True}},
    )
    assert completion.choices[0].message.content


async def test_hyperstudy_question_gets_a_valid_submit_response(chat_client):
    """A short HyperStudy text-agent exchange: system prompt, a typed chat line answered, then questions
    on screen; every submit_response argument validates against the tool's own parameters."""
    client = await chat_client()
    messages: list = [
        {"role": "system", "content": SYSTEM_PROMPT},
        context("participants", others=[{"name": "Alex", "role": "A"}]),
        context("typed", speaker="Alex", said="hello? how are you?"),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_hs1",
                    "type": "function",
                    "function": {"name": "send_chat", "arguments": '{"message": "Hi Alex, good thanks!"}'},
                }
            ],
        },
        tool_result("call_hs1"),
    ]
    likert = (
        "Question: I enjoyed the conversation.\nThis is a 7-point scale.\nRespond with a number from 1 to 7."
    )
    for component, schema, question in (
        ("vasrating", VAS_SCHEMA, VAS_QUESTION),
        ("likertscale", LIKERT_SCHEMA, likert),
    ):
        tool = submit_response(component, schema)
        messages += [
            context("screen", type=component, text=question.splitlines()[0]),
            context("question", tool="submit_response", question=question, duringVideo=False),
        ]
        completion = await client.chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=[WAIT, tool], tool_choice="auto"
        )
        message = completion.choices[0].message
        calls = [c for c in message.tool_calls or [] if c.function.name == "submit_response"]
        assert calls, f"no submit_response for {component}: {message}"
        for call in calls:
            jsonschema.validate(json.loads(call.function.arguments), tool["function"]["parameters"])
        messages.append(message.model_dump(exclude_none=True))
        messages += [tool_result(call.id) for call in message.tool_calls]


async def test_hyperstudy_text_agent_acts_through_its_tools(chat_client):
    """The text agent replays a short study: it chats back through ``send_chat`` when spoken to, calls
    ``wait`` when nothing is asked, and answers the question on screen through ``submit_response``."""
    client = await chat_client()
    tools = [SEND_CHAT, WAIT]
    messages: list = [
        {"role": "system", "content": SYSTEM_PROMPT},
        context("participants", others=[{"name": "Alex", "role": "A"}]),
        context("typed", speaker="Alex", said="hello? how are you?"),
    ]

    async def turn(expected: str, offered: list) -> dict:
        completion = await client.chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=offered, tool_choice="auto"
        )
        message = completion.choices[0].message
        assert completion.choices[0].finish_reason == "tool_calls", message
        [call] = message.tool_calls
        assert call.function.name == expected, message
        arguments = json.loads(call.function.arguments)
        spec = next(t for t in offered if t["function"]["name"] == expected)
        jsonschema.validate(arguments, spec["function"]["parameters"])
        messages.append(message.model_dump(exclude_none=True))
        messages.append(tool_result(call.id))
        return arguments

    said = await turn("send_chat", tools)
    assert said["message"].strip()
    messages.append(context("timer", secondsLeft=30))
    await turn("wait", tools)
    messages += [
        context("screen", type="vasrating", text="How warm was your partner?"),
        context("question", tool="submit_response", question=VAS_QUESTION, duringVideo=False),
    ]
    answer = await turn("submit_response", [WAIT, submit_response("vasrating", VAS_SCHEMA)])
    assert 0 <= answer["value"] <= 100


async def test_seeded_engine_repeats_bodies(chat_client):
    """Same seed + same request → the same body (but ``created``); another request → other ids."""
    client = await chat_client(seed=9)
    kwargs = {"model": "gpt-4o-mini", "messages": ASK_FOR_CHAT, "tools": [SEND_CHAT, WAIT]}
    first = (await client.chat.completions.create(**kwargs)).model_dump(exclude={"created"})
    second = (await client.chat.completions.create(**kwargs)).model_dump(exclude={"created"})
    assert first == second
    other = await client.chat.completions.create(**{**kwargs, "seed": 10})
    assert other.id != first["id"]
    streams = []
    for _ in range(2):
        stream = await client.chat.completions.create(**kwargs, stream=True)
        streams.append([chunk.model_dump(exclude={"created"}) async for chunk in stream])
    assert streams[0] == streams[1]


async def test_trace_has_one_line_per_request(chat_client, tmp_path):
    client = await chat_client(trace_dir=str(tmp_path))
    await client.chat.completions.create(model="gpt-4o-mini", messages=ASK_FOR_CHAT, tools=[SEND_CHAT, WAIT])
    with pytest.raises(openai.BadRequestError):
        await client.chat.completions.create(model="gpt-4o-mini", messages=[])
    trace = tmp_path / "chat-completions.jsonl"
    # A background thread writes the trace (never the event loop).
    await eventually(lambda: trace.exists() and len(trace.read_text().splitlines()) >= 2, timeout_s=5)
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["chat.completion", "chat.error"]
    done = lines[0]["data"]
    assert done["rules"] and done["request"]["messages"] == ASK_FOR_CHAT
    assert done["response"]["choices"][0]["finish_reason"] == "tool_calls"
    assert lines[1]["data"]["status"] == 400 and lines[1]["data"]["error"]["code"] == "empty_array"


def blue_png_data_url() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (32, 32), (0, 0, 255)).save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


async def test_image_parts_reach_the_brain(chat_client):
    """An ``image_url`` data URL is decoded into the facts the brain sees, as ``input_image`` is on the
    voice side."""
    image = blue_png_data_url()
    client = await chat_client()
    content = [
        {"type": "text", "text": "What colour is this image?"},
        {"type": "image_url", "image_url": {"url": image, "detail": "low"}},
    ]
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": content}]
    )
    assert "blue" in completion.choices[0].message.content.lower()
    assert completion.usage.prompt_tokens >= 85


async def test_a_photo_sized_image_over_one_mib_is_answered(chat_client):
    """The live service takes up to 20 MB per image (50 MB per request); a 1.5 MB PNG, a phone
    screenshot's size, once got aiohttp's default 1 MiB body limit as a 413."""
    pixels = np.random.default_rng(0).integers(0, 40, (700, 700, 3), dtype=np.uint8)
    pixels[:, :, 2] += 215
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, "PNG")
    assert buffer.tell() > 1024 * 1024
    image = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
    assert "blue" in await _colour_named(await chat_client(), image)


async def _colour_named(client, image_url: str) -> str:
    """The reply to "What colour is this image?" with ``image_url`` attached, lower-cased."""
    content = [
        {"type": "text", "text": "What colour is this image?"},
        {"type": "image_url", "image_url": {"url": image_url}},
    ]
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": content}]
    )
    return completion.choices[0].message.content.lower()


@pytest.mark.parametrize("fmt", ["WEBP", "GIF"])
async def test_webp_and_gif_images_are_read_as_on_the_live_service(chat_client, fmt):
    """Chat Completions takes PNG, JPEG, WebP and still GIF (the Realtime API only PNG and JPEG)."""
    buffer = io.BytesIO()
    Image.new("RGB", (32, 32), (0, 0, 255)).save(buffer, fmt)
    image = f"data:image/{fmt.lower()};base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
    assert "blue" in await _colour_named(await chat_client(), image)


async def test_response_format_json_schema(chat_client):
    schema = {
        "type": "object",
        "properties": {"mood": {"type": "string", "enum": ["calm", "happy"]}, "reply": {"type": "string"}},
        "required": ["mood", "reply"],
        "additionalProperties": False,
    }
    client = await chat_client()
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "How are you?"}],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "mood", "schema": schema, "strict": True},
        },
    )
    jsonschema.validate(json.loads(completion.choices[0].message.content), schema)
    plain = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "How are you? Answer in JSON."}],
        response_format={"type": "json_object"},
    )
    assert isinstance(json.loads(plain.choices[0].message.content), dict)
    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "How are you?"}],
            response_format={"type": "json_object"},
        )
    assert refused.value.param == "messages" and "must contain the word 'json'" in refused.value.message


async def test_chat_side_answers_an_image_question_through_send_chat(chat_client):
    image = blue_png_data_url()
    client = await chat_client()
    content = [
        {"type": "text", "text": "What colour is this image?"},
        {"type": "image_url", "image_url": {"url": image}},
    ]
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": content}], tools=[SEND_CHAT, WAIT]
    )
    [call] = completion.choices[0].message.tool_calls
    assert call.function.name == "send_chat"
    assert "blue" in json.loads(call.function.arguments)["message"].lower()


async def test_logprobs_streamed_and_plain(chat_client):
    """``logprobs=True, top_logprobs=2`` through the SDK: the plain body and the SDK's stream helper give
    the same per-token logprobs, whose tokens spell the reply (they were ``None``)."""
    client = await chat_client(seed=4)
    kwargs = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "What is the capital of France?"}],
        "logprobs": True,
        "top_logprobs": 2,
    }
    plain = await client.chat.completions.create(**kwargs)
    [choice] = plain.choices
    tokens = choice.logprobs.content
    assert "".join(t.token for t in tokens) == choice.message.content
    assert all(len(t.top_logprobs) == 2 and t.logprob <= 0 for t in tokens)
    assert len(tokens) == plain.usage.completion_tokens
    async with client.chat.completions.stream(**kwargs) as stream:
        final = await stream.get_final_completion()
    assert final.choices[0].logprobs.content == tokens


class Profile(BaseModel):
    name: str
    age: int
    mood: Literal["happy", "sad"]
    summary: str


async def test_structured_output_takes_the_values_the_user_said(chat_client):
    """``parse(response_format=<Pydantic model>)`` (what the Agents SDK's ``output_type`` sends): the
    fields the message gives are filled from it. They were schema-valid but unrelated (the whole echo
    as the name, a random age, the other mood)."""
    client = await chat_client()
    completion = await client.chat.completions.parse(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "My name is Alice, I'm 31 and happy."}],
        response_format=Profile,
    )
    profile = completion.choices[0].message.parsed
    assert (profile.name, profile.age, profile.mood) == ("Alice", 31, "happy")
    assert "Alice" in profile.summary  # the reply's own words


class CalendarEvent(BaseModel):
    name: str
    date: str
    participants: list[str]


async def test_structured_output_lists_the_people_said(chat_client):
    """OpenAI's own Structured Outputs example ("Extract the event information." / "Alice and Bob are
    going to a science fair on Friday.") got ``participants: ["You said Alice and Bob are going …"]``: a
    list was never taken from the words, and the event's ``name`` had taken the names first."""
    client = await chat_client()
    completion = await client.chat.completions.parse(
        model="gpt-4o-2024-08-06",
        messages=[
            {"role": "system", "content": "Extract the event information."},
            {"role": "user", "content": "Alice and Bob are going to a science fair on Friday."},
        ],
        response_format=CalendarEvent,
    )
    assert completion.choices[0].message.parsed.participants == ["Alice", "Bob"]


class Person(BaseModel):
    name: str
    age: int
    city: str


async def test_structured_output_takes_the_name_a_statement_opens_with(chat_client):
    """ "John Smith is 42 and lives in Berlin." gave ``name: "You said John Smith is 42 …"`` (the filler's
    "John Smith and lives" is no name, so the echo stayed); the name it opens with is the person's."""
    client = await chat_client()
    completion = await client.chat.completions.parse(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "John Smith is 42 and lives in Berlin."}],
        response_format=Person,
    )
    person = completion.choices[0].message.parsed
    assert (person.name, person.age, person.city) == ("John Smith", 42, "Berlin")
