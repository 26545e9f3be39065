"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket and Chat Completions): a tool's
output read back as a model reads it (fail11). Each failed before its fix: ``{"ok": false, ...}`` after
book_table over Realtime was "I've booked the table ...", ``{"status": "error", "detail": "city not
found"}`` after get_weather over Chat was "The status in Paris is error and the detail is city not found.",
and a balance beside its currency was "1234.5 ... the as of is 2026-12-05"."""

from __future__ import annotations

import json
from typing import Any

from tests.own_tools import STRING, chat_client, chat_tool, realtime_with_tools, response_done, said, turn

BOOK = chat_tool(
    "book_table",
    "Book a restaurant table",
    {"name": STRING, "time": STRING, "party_size": {"type": "integer"}},
)
WEATHER = chat_tool("get_weather", "Get the current weather", {"city": STRING})
BALANCE = chat_tool("get_balance", "Get an account's balance", {"account": STRING})


async def realtime_after_output(
    server: Any, tools: list[dict[str, Any]], words: str, output: str
) -> tuple[Any, str]:
    """Over a Realtime connection of its own: the call ``words`` make (name, arguments), and the text of
    the response once that call's ``output`` is sent back."""
    async with realtime_with_tools(server, tools) as conn:
        response = await turn(conn, words)
        [call] = [item for item in response.output if item.type == "function_call"]
        item = {"type": "function_call_output", "call_id": call.call_id, "output": output}
        await conn.conversation.item.create(item=item)  # type: ignore[arg-type]
        await conn.response.create()
        answer = await response_done(conn)
    return (call.name, json.loads(call.arguments)), said(answer)


async def chat_after_output(
    server: Any, tools: list[dict[str, Any]], words: str, output: str
) -> tuple[Any, str]:
    """Over Chat Completions: the call ``words`` make, and the answer once ``output`` is its tool message."""
    client = chat_client(server)
    messages: list[Any] = [{"role": "user", "content": words}]
    first = (
        await client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    ).choices[0]
    [call] = first.message.tool_calls or []
    messages += [
        first.message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": output},
    ]
    answer = (
        await client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    ).choices[0]
    return (call.function.name, json.loads(call.function.arguments)), answer.message.content or ""


async def test_a_booking_refused_over_realtime_is_said_as_not_booked(engine) -> None:
    server = await engine()
    output = '{"ok": false, "reason": "no tables free at 8"}'
    (name, _), text = await realtime_after_output(
        server, [BOOK], "Book a table for Smith at 8pm for 2", output
    )
    assert name == "book_table"
    assert text == "I couldn't book the table for Smith: no tables free at 8."


async def test_a_booking_over_realtime_says_its_table_and_reference(engine) -> None:
    server = await engine()
    output = '{"id": "B-771", "table": 12}'
    _, text = await realtime_after_output(server, [BOOK], "Book a table for Smith at 8pm for 2", output)
    assert text == "I've booked table 12 for Smith. The reference is B-771."


async def test_a_weather_lookup_failed_over_chat_is_said_with_its_reason(engine) -> None:
    server = await engine()
    output = '{"status": "error", "detail": "city not found"}'
    call, text = await chat_after_output(server, [WEATHER], "What's the weather in Paris?", output)
    assert call == ("get_weather", {"city": "Paris"})
    assert text == "I couldn't get the weather in Paris: city not found."
    _, refused = await chat_after_output(
        server, [WEATHER], "What's the weather in Paris?", '{"success": false}'
    )
    assert refused == "Sorry, I couldn't get the weather in Paris."
    _, http = await chat_after_output(
        server, [WEATHER], "What's the weather in Paris?", "HTTP 500 Internal Server Error"
    )
    assert (
        http == "I couldn't get the weather in Paris: "
        "the service returned an error (HTTP 500 Internal Server Error)."
    )


async def test_a_balance_over_chat_is_said_in_its_currency(engine) -> None:
    server = await engine()
    output = '{"balance": 1234.5, "currency": "USD", "as_of": "2026-12-05"}'
    _, text = await chat_after_output(server, [BALANCE], "What's the balance of my checking account?", output)
    assert text.endswith("1,234.50 US dollars as of December 5, 2026."), text
