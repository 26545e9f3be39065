"""A developer's own tools as the tests of them use them over a real engine with the openai SDK
(test_own_tools_*_sdk, test_brain5/6_sdk, test_brk4_sdk, test_booking_names_chat,
test_restaurant_app_tools, test_brain16/17/18/21/22_sdk, test_reply_tasks_sdk; brain21/22's unit tests
declare the same tools): the Chat Completions tool shape, one conversation over Chat Completions whose
calls are checked against their schemas, a ``json_schema`` answer, and a Realtime turn with the text of
its answer (on the test's connection, or on one of its own with the tools declared)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import jsonschema
from openai import AsyncOpenAI

from mockengine.chat.request import ChatRequest
from mockengine.chat.shaping import structured_text

STRING = {"type": "string"}
STRINGS = {"type": "array", "items": STRING}
INTEGER = {"type": "integer"}
DATE = {"type": "string", "format": "date"}


def chat_tool(
    name: str, description: str, properties: dict[str, Any], required: list[str] | None = None
) -> dict[str, Any]:
    """A Chat Completions function tool; ``required`` defaults to every property, in order."""
    parameters = {"type": "object", "properties": properties, "required": list(required or properties)}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


# Tools several brain tests declare alike (a shop's orders and a weather lookup), defined once.
ORDER_DRINK = chat_tool("order_drink", "Order a drink", {"drink": STRING})
CANCEL_ORDER = chat_tool("cancel_order", "Cancel an order", {"order_id": STRING})
UPDATE_SHIPPING = chat_tool(
    "update_shipping_address",
    "Update the shipping address of an order",
    {"order_id": STRING, "street": STRING, "city": STRING},
    ["order_id", "street"],
)
CREATE_TASK = chat_tool("create_task", "Create a task", {"task": STRING})
WEATHER_WITH_UNIT = chat_tool(
    "get_weather",
    "Get the current weather",
    {"location": STRING, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
)

# brain21's and brain22's tools, as their unit tests (through ``tests.brain_calls.spec``) and their tests
# over the wire declare them.
BOOK_FLIGHT = chat_tool("book_flight", "Book a flight to a destination.", {"destination": STRING})
TO_WEATHER_AGENT = chat_tool(
    "transfer_to_weather_agent", "Handoff to the Weather Agent agent to handle the request. ", {}
)
EMAIL_TO_MANY = chat_tool(
    "send_email",
    "Send an email.",
    {"to": STRINGS, "subject": STRING, "body": STRING, "cc": STRINGS},
    ["to", "subject", "body"],
)
SEND_EMAIL = chat_tool("send_email", "Send an email.", {"to": STRING, "subject": STRING, "body": STRING})
ADDRESS = {
    "type": "object",
    "properties": {"street": STRING, "city": STRING, "postal_code": STRING, "country": STRING},
    "required": ["street", "city"],
}
ADD_CONTACT = chat_tool(
    "add_contact", "Add a contact to the address book.", {"name": STRING, "address": ADDRESS}
)
PRIORITY = {"type": "string", "enum": ["low", "medium", "high", "urgent"]}
ASSIGNED_TICKET = chat_tool(
    "create_ticket",
    "Create a support ticket.",
    {"title": STRING, "priority": PRIORITY, "assignee": STRING, "tags": STRINGS},
    ["title"],
)
# A profile's keys named otherwise than "keys name and age" (brain21): each gets name and hobbies.
PROFILE_KEYS_OTHERWISE = [
    "You extract profiles. Return JSON with keys like `name`, `hobbies`.",
    "Respond in JSON. Keys: name (string), hobbies (list of strings).",
    "Extract the user's name and hobbies as JSON.",
    'Respond in JSON like {"name": "...", "hobbies": ["..."]}',
]


# Pipecat's FunctionSchema example (and the OpenAI cookbook's): a required unit named ``format``.
PIPECAT_WEATHER = chat_tool(
    "get_current_weather",
    "Get the current weather",
    {
        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
        "format": {
            "type": "string",
            "enum": ["celsius", "fahrenheit"],
            "description": "The temperature unit to use. Infer this from the user's location.",
        },
    },
)


# A settings tool with a nested object (brk30, brk31): its fields count as the tool's words.
PREFERENCES = chat_tool(
    "update_preferences",
    "Update the user's preferences.",
    {
        "preferences": {
            "type": "object",
            "properties": {
                "language": {"type": "string", "enum": ["English", "Spanish", "French", "German"]},
                "notifications": {"type": "boolean"},
            },
        }
    },
)


def chat_client(server: Any) -> AsyncOpenAI:
    """The SDK on the engine's HTTP API, no retries (a retry would hide a failed request)."""
    return AsyncOpenAI(api_key="sk-test", base_url=f"{server.http_url}/v1", max_retries=0)


class Chat:
    """One conversation over Chat Completions: each answer's calls get ``{"status": "ok"}`` outputs.
    ``options`` go with every request (e.g. ``tool_choice``)."""

    def __init__(self, client: AsyncOpenAI, tools: list[dict[str, Any]], **options: Any) -> None:
        self.client, self.tools, self.options, self.messages = client, tools, options, list[Any]()

    async def say(self, words: str) -> tuple[list[tuple[str, Any]], str | None]:
        """The answer to ``words``: its calls as ``(name, arguments)`` (each valid against its tool's
        schema, or ``jsonschema.ValidationError``) and its text."""
        self.messages.append({"role": "user", "content": words})
        completion = await self.client.chat.completions.create(
            model="gpt-4o-mini", messages=self.messages, tools=self.tools, **self.options
        )
        message = completion.choices[0].message
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in self.tools}
        calls = []
        for call in message.tool_calls or []:
            arguments = json.loads(call.function.arguments)
            jsonschema.validate(arguments, schemas[call.function.name])
            calls.append((call.function.name, arguments))
        if message.tool_calls:
            self.messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                self.messages.append({"role": "tool", "tool_call_id": call.id, "content": '{"status": "ok"}'})
        else:
            self.messages.append({"role": "assistant", "content": message.content})
        return calls, message.content


def closed_object(properties: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema object whose properties are all required and none other allowed (a strict
    ``json_schema`` answer's shape)."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


async def json_schema_answer(
    client: AsyncOpenAI, words: str, schema: dict[str, Any], name: str = "profile", strict: bool | None = True
) -> str:
    """The content of a Chat Completion answering the user's ``words`` with ``response_format``
    ``json_schema`` ``schema`` under ``name`` (``strict``: the field's value, None to leave it out);
    "" for none."""
    json_schema: dict[str, Any] = {"name": name, "schema": schema}
    if strict is not None:
        json_schema["strict"] = strict
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": words}],
        response_format={"type": "json_schema", "json_schema": json_schema},  # type: ignore[typeddict-item]
    )
    return completion.choices[0].message.content or ""


async def response_done(conn: Any) -> Any:
    """The next ``response.done``'s response on a Realtime connection; an ``error`` event fails."""
    async for event in conn:
        assert event.type != "error", event
        if event.type == "response.done":
            return event.response
    raise AssertionError("no response.done")


async def turn(conn: Any, words: str) -> Any:
    """The user says ``words`` (a text message) and asks for a response: that response, when done."""
    content = [{"type": "input_text", "text": words}]
    await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
    await conn.response.create()
    return await response_done(conn)


def said(response: Any) -> str:
    """The text of a Realtime response's messages, joined by spaces."""
    return " ".join(
        part.text or ""
        for item in response.output
        if item.type == "message"
        for part in item.content
        if part.type == "output_text"
    )


@contextlib.asynccontextmanager
async def realtime_with_tools(server: Any, tools: list[dict[str, Any]]) -> AsyncIterator[Any]:
    """A Realtime connection of its own to ``server`` (the openai SDK), text out, ``tools`` (the Chat
    Completions shape :func:`chat_tool` makes) declared on its session."""
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    declared = [{"type": "function", **tool["function"]} for tool in tools]
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(
            session={"type": "realtime", "output_modalities": ["text"], "tools": declared}
        )
        yield conn


async def realtime_turn(
    server: Any, tools: list[dict[str, Any]], words: str
) -> tuple[list[tuple[str, Any]], str]:
    """Over a Realtime connection of its own (text out, ``tools`` in the Chat Completions shape
    :func:`chat_tool` makes): the response to ``words``, as its calls ``(name, arguments)`` and the text
    of its messages."""
    async with realtime_with_tools(server, tools) as conn:
        response = await turn(conn, words)
    calls = [
        (item.name, json.loads(item.arguments)) for item in response.output if item.type == "function_call"
    ]
    return calls, said(response)


def structured_answer(said: str, schema: dict[str, Any], reply: str = "You said it. Tell me more.") -> Any:
    """The ``json_schema`` answer (``shaping.structured_text``, parsed) to a user who said ``said``, whose
    reply's sentence is ``reply``: what Chat Completions' ``response_format`` returns for it."""
    request = ChatRequest(
        model="gpt-4o-mini",
        messages=({"role": "user", "content": said},),
        tools=(),
        custom_tools=frozenset(),
        tool_choice=None,  # type: ignore[arg-type]
        max_tokens=None,
        n=1,
        stream=False,
        include_usage=False,
        include_obfuscation=False,
        stop=(),
        seed=None,
        parallel_tool_calls=True,
        body={},
        response_format="json_schema",
        response_schema=schema,
    )
    return json.loads(structured_text(reply, request, 0, said=said))


async def call_and_answer(
    engine: Any, tools: list[dict[str, Any]], words: str, output: str
) -> tuple[tuple[str, Any], str | None]:
    """Over Chat Completions with the ``openai`` SDK: the one call the engine (``engine()`` starts it)
    makes for ``words``, as (name, arguments), and what it says once the call's ``output`` is in."""
    client = chat_client(await engine())
    messages: list[Any] = [{"role": "user", "content": words}]
    first = await client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    calls = first.choices[0].message.tool_calls or []
    assert len(calls) == 1, first.choices[0].message
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": calls[0].id, "content": output})
    second = await client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    call = (calls[0].function.name, json.loads(calls[0].function.arguments))
    return call, second.choices[0].message.content
