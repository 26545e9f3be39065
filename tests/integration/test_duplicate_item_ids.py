"""A client item id used twice, over the wire with the openai SDK: like the live service (reference §7,
gpt-realtime-1.5) both items are kept and the second is appended; the id then names the latest item
(retrieve, truncate, ``previous_item_id``) and a delete removes both (docs/realtime-protocol.md)."""

from __future__ import annotations

from typing import Any

from openai import AsyncOpenAI

from tests.speech import events_until


def user_text(text: str, item_id: str) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": text}],
    }


async def test_a_reused_item_id_appends_and_loses_nothing(engine) -> None:
    eng = await engine()
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        await connection.conversation.item.create(item=user_text("hello", "my_item_1"))
        await events_until(connection, "conversation.item.done")
        system = {
            "id": "my_item_0",
            "type": "message",
            "role": "system",
            "content": [{"type": "input_text", "text": "be brief"}],
        }
        await connection.conversation.item.create(item=system, previous_item_id="root")
        await events_until(connection, "conversation.item.done")
        await connection.conversation.item.create(item=user_text("dup id", "my_item_1"))
        seen = await events_until(connection, "conversation.item.done")
        assert [e["type"] for e in seen] == ["conversation.item.added", "conversation.item.done"]
        # appended after the first my_item_1: the live "points to itself"
        assert seen[0]["previous_item_id"] == "my_item_1"

        # The model's context holds both, in order: a reply follows the latest, and a new item placed
        # after "my_item_1" goes after the latest one holding the id.
        await connection.conversation.item.create(
            item=user_text("after", "my_item_2"), previous_item_id="my_item_1"
        )
        added = (await events_until(connection, "conversation.item.done"))[0]
        assert added["previous_item_id"] == "my_item_1"

        await connection.conversation.item.retrieve(item_id="my_item_1")
        retrieved = (await events_until(connection, "conversation.item.retrieved"))[-1]["item"]
        assert retrieved["content"][0]["text"] == "dup id"

        await connection.conversation.item.delete(item_id="my_item_1", event_id="del1")
        await connection.conversation.item.retrieve(item_id="my_item_1", event_id="ret_after_del")
        seen = await events_until(connection, "error")
        assert [e["type"] for e in seen] == ["conversation.item.deleted", "error"]
        assert seen[0]["item_id"] == "my_item_1"
        assert seen[1]["error"]["code"] == "item_retrieve_invalid_item_id"
        assert seen[1]["error"]["event_id"] == "ret_after_del"
        assert seen[1]["error"]["param"] is None  # live-tested (reference S11)

        # What is left: my_item_0 then my_item_2; a text reply follows my_item_2.
        await connection.response.create(response={"output_modalities": ["text"]})
        seen = await events_until(connection, "response.done")
        assistant = next(e for e in seen if e["type"] == "conversation.item.added")
        assert assistant["previous_item_id"] == "my_item_2"
        assert seen[-1]["response"]["status"] == "completed"
