"""The conversation's item bound (``serve --max-conversation-items``) over the wire with the official
``openai`` SDK (fake engines, no models). The live service refuses no item for their number; at the bound
a client's ``conversation.item.create`` makes room as the engine's own turns and replies do: the oldest
items go, each announced with ``conversation.item.deleted``, and a long typed session goes on."""

from __future__ import annotations

from typing import Any

from tests.speech import events_until, sdk_session


def typed(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


async def test_typed_items_past_the_bound_drop_the_oldest_and_the_session_goes_on(engine) -> None:
    eng = await engine(max_conversation_items=8)
    async with sdk_session(eng.url) as connection:
        created: list[str] = []
        deleted: list[str] = []
        for n in range(20):
            await connection.conversation.item.create(item=typed(f"Note number {n}."), event_id=f"c{n}")
            seen = await events_until(connection, "conversation.item.done")
            assert [e for e in seen if e["type"] == "error"] == []
            deleted += [e["item_id"] for e in seen if e["type"] == "conversation.item.deleted"]
            created.append(seen[-1]["item"]["id"])
        assert deleted == created[:12]  # the oldest, in order, one for each item past the 8th

        await connection.conversation.item.retrieve(item_id=created[-1])
        retrieved = (await events_until(connection, "conversation.item.retrieved"))[-1]["item"]
        assert retrieved["content"][0]["text"] == "Note number 19."
        await connection.conversation.item.retrieve(item_id=created[0], event_id="gone")
        error = (await events_until(connection, "error"))[-1]["error"]
        assert (error["type"], error["code"], error["event_id"]) == (
            "invalid_request_error",
            "item_retrieve_invalid_item_id",
            "gone",
        )

        await connection.conversation.item.create(item=typed("Tell me a story"))
        await connection.response.create(response={"output_modalities": ["text"]})
        seen = await events_until(connection, "response.done")
        dropped = [e["item_id"] for e in seen if e["type"] == "conversation.item.deleted"]
        assert dropped == created[12:14]  # room for the story's item, then for the reply's
        assert seen[-1]["response"]["status"] == "completed"
        assert seen[-1]["response"]["output"][0]["content"][0]["text"]
