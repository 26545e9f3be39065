"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket and Chat Completions): a tool's
output read back as a model reads it. Each failed before its fix: ``{"sent": 12, "failed": 2}`` after
send_newsletter was "I've sent the newsletter." (the 2 failures unsaid), ``{"temperature": 18,
"humidity": 82}`` was "… the humidity is 82." (no percent), and an app tool's ``{"error": …}`` was "That
didn't work: …" where every other failure is "I couldn't …"."""

from __future__ import annotations

from tests.integration.test_fail11_sdk import WEATHER, chat_after_output, realtime_after_output
from tests.own_tools import STRING, chat_tool

NEWSLETTER = chat_tool("send_newsletter", "Send the newsletter to a mailing list", {"mailing_list": STRING})
BOOK = chat_tool("book_table", "Book a restaurant table", {"name": STRING, "time": STRING})


async def test_a_partly_failed_send_over_realtime_says_the_failures(engine) -> None:
    server = await engine()
    (name, _), text = await realtime_after_output(
        server, [NEWSLETTER], "Send the newsletter to the customers list", '{"sent": 12, "failed": 2}'
    )
    assert name == "send_newsletter"
    assert text == "I've sent the newsletter, but only partly: 12 sent and 2 failed."


async def test_a_humidity_over_chat_is_said_in_percent(engine) -> None:
    server = await engine()
    output = '{"temperature": 18, "humidity": 82}'
    call, text = await chat_after_output(server, [WEATHER], "What's the weather in Paris?", output)
    assert call == ("get_weather", {"city": "Paris"})
    assert text == "It's 18 degrees in Paris and the humidity is 82 percent."


async def test_an_error_output_over_chat_is_said_as_the_other_failures(engine) -> None:
    server = await engine()
    output = '{"error": "no tables free at 8"}'
    call, text = await chat_after_output(server, [BOOK], "Book a table for Smith at 8pm", output)
    assert call[0] == "book_table"
    assert text == "I couldn't book the table for Smith: no tables free at 8."


SEARCH = chat_tool("search_restaurants", "Search restaurants", {"query": STRING})
ORDER = chat_tool("get_order", "Get an order's status", {"order_id": STRING})


async def test_an_empty_result_page_over_chat_is_said_as_no_results(engine) -> None:
    server = await engine()
    output = '{"results": [], "total": 0, "next_cursor": null}'
    call, text = await chat_after_output(server, [SEARCH], "Search for sushi restaurants", output)
    assert call[0] == "search_restaurants"
    assert "no results" in text and "total" not in text and "cursor" not in text, text


async def test_an_iso_time_over_realtime_is_read_as_a_date(engine) -> None:
    server = await engine()
    output = '{"status": "shipped", "shipped_at": "2026-12-03T14:30:00Z"}'
    (name, _), text = await realtime_after_output(server, [ORDER], "Where is my order A12?", output)
    assert name == "get_order"
    assert "December 3, 2026 at 2:30 PM UTC" in text and "2026-12-03T" not in text, text
