"""A client item's ``status`` over a real socket with the openai SDK: a ``function_call_output`` sent
``incomplete`` comes back ``incomplete`` in ``conversation.item.added`` / ``.done`` and
``conversation.item.retrieved`` (parsed by the SDK's models), one sent without a status ``completed``,
and an unknown status is refused with ``invalid_value`` (param ``item.status``, the client's
``event_id``) while the session goes on to answer the call (docs/realtime-protocol.md)."""

from __future__ import annotations

from openai import AsyncOpenAI

CALL = {"type": "function_call", "call_id": "call_w", "name": "get_weather", "arguments": '{"city":"Paris"}'}


async def _until(conn, *kinds: str):
    async for event in conn:
        if event.type in kinds:
            return event
    raise AssertionError(f"the socket closed before {kinds}")


async def test_function_call_output_status_is_echoed_as_sent(engine_url) -> None:
    base = await engine_url(audio_pace=0.0)
    client = AsyncOpenAI(
        api_key="sk-test", base_url=base.replace("ws://", "http://"), websocket_base_url=base
    )
    async with client, client.realtime.connect(model="gpt-realtime") as conn:
        await _until(conn, "session.created")
        await conn.conversation.item.create(item=CALL)  # type: ignore[arg-type]
        await _until(conn, "conversation.item.done")
        output = {"type": "function_call_output", "call_id": "call_w", "output": '{"temp": 18}'}
        await conn.conversation.item.create(item={**output, "status": "incomplete"})  # type: ignore[arg-type]
        added = await _until(conn, "conversation.item.added")
        done = await _until(conn, "conversation.item.done")
        assert added.item.status == done.item.status == "incomplete"
        await conn.conversation.item.retrieve(item_id=added.item.id)
        retrieved = await _until(conn, "conversation.item.retrieved")
        assert retrieved.item.status == "incomplete"
        await conn.send(
            {"type": "conversation.item.create", "event_id": "bad", "item": {**output, "status": "done"}}
        )
        error = (await _until(conn, "error", "conversation.item.added")).model_dump()["error"]
        assert (error["code"], error["param"], error["event_id"]) == ("invalid_value", "item.status", "bad")
        await conn.conversation.item.create(item=output)  # type: ignore[arg-type]
        plain = await _until(conn, "conversation.item.done")
        assert plain.item.status == "completed"
        await conn.response.create(response={"output_modalities": ["text"]})
        finished = await _until(conn, "response.done", "error")
        assert finished.type == "response.done" and finished.response.status == "completed", finished
