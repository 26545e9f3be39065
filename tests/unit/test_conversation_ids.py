"""Items sharing a client-supplied id (reference §7): both kept in order for the brain; the id names the
latest; delete removes all; eviction removes one item by identity (fake engines, virtual time)."""

from __future__ import annotations

from mockengine.ids import IdFactory
from mockengine.protocol import client_events as ce
from mockengine.realtime.conversation import Conversation, Item
from tests.unit.test_session_limits import replay_with


def text_item(item_id: str, text: str, role: str = "user") -> dict:
    return {"id": item_id, "type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}


def test_the_brain_sees_both_items_of_a_reused_id_in_order():
    driver = replay_with()
    driver.send(ce.ConversationItemCreate(text_item("a", "hello")))
    driver.send(ce.ConversationItemCreate(text_item("s", "be brief", "system"), previous_item_id="root"))
    driver.send(ce.ConversationItemCreate(text_item("a", "dup id")))
    views = [i.view() for i in driver.session.conversation]
    assert [(v.item_id, v.text) for v in views] == [("s", "be brief"), ("a", "hello"), ("a", "dup id")]
    assert driver.of_type("error") == []
    assert [e["previous_item_id"] for e in driver.of_type("conversation.item.added")] == [None, None, "a"]


def test_an_item_placed_after_a_reused_id_goes_after_the_latest_and_delete_removes_all():
    conversation = Conversation("conv")
    first, second = Item("a", "message", role="user"), Item("a", "message", role="user")
    assert conversation.insert(first) is None
    assert conversation.insert(Item("b", "message", role="user")) == "a"
    assert conversation.insert(second) == "b"
    assert conversation.get("a") is second
    assert conversation.insert(Item("c", "message", role="user"), "a") == "a"
    assert [i.id for i in conversation] == ["a", "b", "a", "c"]
    removed = conversation.delete("a")
    assert removed[0] is first and removed[1] is second
    assert [i.id for i in conversation] == ["b", "c"] and "a" not in conversation


def test_eviction_removes_the_one_item_even_when_an_equal_one_shares_its_id():
    conversation = Conversation("conv")
    first, second = Item("a", "message", role="user"), Item("a", "message", role="user")
    conversation.insert(first)
    conversation.insert(second)
    conversation.remove(second)  # equal fields: only identity tells them apart
    assert list(conversation) == [first] and conversation.get("a") is first
    conversation.remove(first)
    assert len(conversation) == 0 and "a" not in conversation


def test_a_reply_never_takes_an_id_a_client_replayed_from_a_seeded_session():
    """LiveKit replays a dropped session's items into the next one with the ids the engine gave them; a
    seeded engine makes the same item and call ids in every session, so the next reply took the
    replayed reply's id (and a function call the replayed call's ``call_id``)."""
    first = replay_with()
    first.send(ce.ConversationItemCreate(text_item("u1", "What is the capital of France?")))
    first.send(ce.ResponseCreate())
    first.run_until_idle()
    (reply,) = [e["item"] for e in first.of_type("response.output_item.done")]
    first_call_id = IdFactory(7).call()  # the call id a seeded session makes first

    second = replay_with()
    second.send(ce.ConversationItemCreate(text_item("u1", "What is the capital of France?")))
    answer = {"id": reply["id"], "type": "message", "role": "assistant"}
    second.send(ce.ConversationItemCreate({**answer, "content": [{"type": "output_text", "text": "Paris."}]}))
    call = {"type": "function_call", "name": "get_weather", "arguments": "{}", "call_id": first_call_id}
    second.send(ce.ConversationItemCreate({"id": "c1", **call}))
    second.send(ce.ConversationItemCreate(text_item("u2", "What is the capital of Italy?")))
    second.send(ce.ResponseCreate())
    second.run_until_idle()
    (new_reply,) = [e["item"] for e in second.of_type("response.output_item.done")]
    assert new_reply["id"] != reply["id"]
    assert second.session.ctx.ids.call() != first_call_id
    assert second.of_type("error") == []


def test_an_unseeded_session_keeps_no_record_of_the_ids_its_client_chose():
    ids = IdFactory(None)
    ids.take("item_a")
    assert not ids._taken  # random ids never meet a client's; a long session's memory stays flat
