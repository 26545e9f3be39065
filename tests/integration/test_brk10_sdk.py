"""Over Chat Completions with the official ``openai`` SDK: brain13's and brain14's rules where they must
not fire (each failed on their merge before its fix): a US state after a person's name cut off as a
town's ("Florence Georgia" booked as "Florence"), and a lookup's counts read as a batch that partly
failed ("I've got the login stats, but only partly: …")."""

from __future__ import annotations

from tests.integration.test_fail11_sdk import chat_after_output
from tests.own_tools import STRING, chat_tool

BOOK = chat_tool("book_table", "Book a restaurant table", {"name": STRING, "time": STRING})
STATS = chat_tool("get_login_stats", "Get a user's login statistics", {"user": STRING})


async def test_a_persons_name_that_ends_in_a_state_is_kept_whole(engine) -> None:
    server = await engine()
    call, text = await chat_after_output(
        server, [BOOK], "Book a table for Florence Georgia at 7pm", '{"status": "confirmed"}'
    )
    assert call == ("book_table", {"name": "Florence Georgia", "time": "19:00"})
    assert "Florence Georgia" in text, text


async def test_a_lookups_failed_count_is_no_partial_failure(engine) -> None:
    server = await engine()
    call, text = await chat_after_output(
        server, [STATS], "How many logins did bob have?", '{"successful": 10, "failed": 3}'
    )
    assert call[0] == "get_login_stats"
    assert "only partly" not in text and "10" in text and "3" in text, text
