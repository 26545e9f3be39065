"""The session's ``truncation`` and the model's input limit, through the official ``openai`` SDK on
loopback: what a response reads (its ``usage`` input tokens, the brain's context) stays within the
conversation's token limit, older items drop out first (``"auto"``; ``retention_ratio`` drops down to its
fraction so later turns have room), and ``"disabled"`` fails the response instead, the session going on
(openai-python's ``truncation`` / ``RealtimeTruncationRetentionRatio`` docstrings;
mockengine/realtime/context_window.py)."""

from __future__ import annotations

from typing import Any

from openai import AsyncOpenAI

from tests.speech import events_until

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa"


async def _connect(engine_url) -> Any:
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=await engine_url(), max_retries=0)
    return client.realtime.connect(model="gpt-realtime")


async def _setup(conn: Any, truncation: Any) -> int:
    """A text session with ``truncation``; returns what its instructions alone cost (a response given
    an empty ``input`` reads nothing else)."""
    await conn.session.update(
        session={"type": "realtime", "output_modalities": ["text"], "instructions": "Answer briefly.",
                 "audio": {"input": {"turn_detection": None}}, "truncation": truncation}
    )  # fmt: skip
    await events_until(conn, "session.updated")
    await conn.response.create(response={"input": [], "conversation": "none"})
    done = (await events_until(conn, "response.done"))[-1]
    return int(done["response"]["usage"]["input_tokens"])


async def _turn(conn: Any, text: str) -> dict[str, Any]:
    """A user message, then a response over the conversation; its response.done's response."""
    await conn.conversation.item.create(
        item={"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    )
    await conn.response.create()
    return (await events_until(conn, "response.done"))[-1]["response"]


async def test_retention_ratio_keeps_the_context_under_the_limit_dropping_the_oldest(engine_url):
    limit = 80
    async with await _connect(engine_url) as conn:
        truncation = {
            "type": "retention_ratio",
            "retention_ratio": 0.5,
            "token_limits": {"post_instructions": limit},
        }
        instructions = await _setup(conn, truncation)
        read = []
        for n in range(8):
            response = await _turn(conn, f"Turn {n}: {WORDS}.")
            assert response["status"] == "completed", response
            read.append(response["usage"]["input_tokens"] - instructions)
        # Never over the limit; each time it would be, the oldest items go until half of it is used, and
        # the context grows again from there (without the limit it grows every turn: 20, 58, 96, …).
        assert max(read) <= limit, read
        drops = [i for i in range(1, len(read)) if read[i] < read[i - 1]]
        assert len(drops) >= 2, read
        assert all(read[i] <= limit * 0.5 for i in drops), read
        # The session echoes the truncation as given.
        await conn.session.update(session={"type": "realtime"})
        updated = (await events_until(conn, "session.updated"))[-1]
        assert updated["session"]["truncation"] == truncation


async def test_auto_reads_everything_while_it_fits(engine_url):
    async with await _connect(engine_url) as conn:
        instructions = await _setup(conn, "auto")
        read = []
        for n in range(4):
            read.append((await _turn(conn, f"Turn {n}: {WORDS}."))["usage"]["input_tokens"] - instructions)
        assert read == sorted(read) and len(set(read)) == 4, read  # the context only grows


async def test_disabled_fails_the_response_and_the_session_goes_on(engine_url):
    async with await _connect(engine_url) as conn:
        # The token limit applies whatever the type; with "disabled" nothing is dropped.
        instructions = await _setup(conn, "disabled")
        short = await _turn(conn, "Hello there.")
        assert short["status"] == "completed"
        await conn.conversation.item.create(
            item={
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": WORDS * 1900}],
            }
        )
        await conn.response.create()
        failed = (await events_until(conn, "response.done"))[-1]["response"]
        assert failed["status"] == "failed" and failed["output"] == []
        error = failed["status_details"]["error"]
        assert error["type"] == "invalid_request_error" and error["code"] == "context_length_exceeded"
        assert "truncation is 'disabled'" in error["message"]
        assert failed["usage"]["input_tokens"] == 0
        # The same conversation under "auto" is answered, its oldest items left out.
        await conn.session.update(session={"type": "realtime", "truncation": "auto"})
        await events_until(conn, "session.updated")
        again = await _turn(conn, "Still there?")
        assert again["status"] == "completed"
        assert again["usage"]["input_tokens"] - instructions <= 28_224


async def _reads_after_reusing(engine_url, reused_id: str) -> int:
    """Input tokens of a response after the oldest item, long out of the context, is deleted and a new
    message is created under ``reused_id``."""
    async with await _connect(engine_url) as conn:
        await _setup(
            conn,
            {"type": "retention_ratio", "retention_ratio": 0.5, "token_limits": {"post_instructions": 80}},
        )
        await conn.conversation.item.create(
            item={"id": "item_first", "type": "message", "role": "user",
                  "content": [{"type": "input_text", "text": f"First: {WORDS}."}]}
        )  # fmt: skip
        await events_until(conn, "conversation.item.added")
        for n in range(6):
            assert (await _turn(conn, f"Turn {n}: {WORDS}."))["status"] == "completed"
        await conn.conversation.item.delete(item_id="item_first")
        await events_until(conn, "conversation.item.deleted")
        await conn.conversation.item.create(
            item={"id": reused_id, "type": "message", "role": "user",
                  "content": [{"type": "input_text", "text": f"Again: {WORDS}."}]}
        )  # fmt: skip
        await events_until(conn, "conversation.item.added")
        await conn.response.create()
        done = (await events_until(conn, "response.done"))[-1]["response"]
        assert done["status"] == "completed", done
        return int(done["usage"]["input_tokens"])


async def test_a_deleted_items_id_given_to_a_new_item_is_read_like_any_new_item(engine_url):
    # The dropped id was remembered as out of the context: a new item under it was left out of every
    # later response, the newest message included.
    assert await _reads_after_reusing(engine_url, "item_first") == await _reads_after_reusing(
        engine_url, "item_other"
    )
