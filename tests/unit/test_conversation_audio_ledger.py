"""The conversation keeps account of where its items' audio is (in memory or spilled), so bounding it
before each added item (``ConversationItems.make_room``) costs the few items with audio in memory, not
every item: a pass over every item grew the event loop's CPU with each call's age (issue 15). The
account must equal a walk over the items after anything that changes them."""

from __future__ import annotations

import random

from mockengine.realtime.audio_store import AudioSpill, SpilledAudio
from mockengine.realtime.conversation import Conversation, Item
from tests.conftest import make_session


def _walked(conversation: Conversation) -> tuple[int, set[int]]:
    """What the account must say, found the slow way."""
    total = sum(len(i.audio) for i in conversation)
    in_memory = {
        id(i)
        for i in conversation
        if not isinstance(i.audio, SpilledAudio) and (i.audio or isinstance(i.audio, bytearray))
    }
    return total, in_memory


def _check(conversation: Conversation) -> None:
    total, in_memory = _walked(conversation)
    assert conversation.audio_bytes == total
    assert {id(i) for i in conversation.audio_in_memory()} == in_memory


def test_every_way_an_items_audio_changes_is_accounted(tmp_path):
    spill = AudioSpill(memory_bytes=0, directory=str(tmp_path))
    conversation = Conversation("conv_1")
    heard = Item("item_1", "message", role="user", audio=b"\1" * 4800)
    reply = Item("item_2", "message", role="assistant", audio=bytearray())
    conversation.insert(heard)
    conversation.insert(reply)
    assert conversation.audio_bytes == 4800
    assert conversation.audio_in_memory() == [reply, heard]  # newest first; an empty reply still grows
    reply_audio = reply.audio
    assert isinstance(reply_audio, bytearray)
    reply_audio += b"\2" * 960  # a reply's audio grows in place while it is sent
    assert conversation.audio_bytes == 5760
    spill.keep_newest(conversation.audio_in_memory())
    assert isinstance(heard.audio, SpilledAudio) and isinstance(reply.audio, SpilledAudio)
    assert conversation.audio_in_memory() == [] and conversation.audio_bytes == 5760
    heard.truncate(50)  # a spilled item cut: its kept bytes are read back into memory
    assert conversation.audio_in_memory() == [heard] and conversation.audio_bytes == 2400 + 960
    conversation.remove(reply)
    assert conversation.audio_bytes == 2400
    reply.audio = b"\3" * 100  # no longer held: not counted
    assert conversation.audio_bytes == 2400
    twin = Item("item_1", "message", role="user", audio=b"\4" * 10)  # a reused id: both held
    conversation.insert(twin)
    assert conversation.audio_bytes == 2410
    conversation.delete("item_1")
    assert conversation.audio_bytes == 0 and conversation.audio_in_memory() == []
    spill.close()


def test_an_item_moved_to_another_conversation_is_counted_there_alone():
    first, second = Conversation("conv_1"), Conversation("conv_2")
    item = Item("item_1", "message", role="user", audio=b"\1" * 480)
    first.insert(item)
    second.insert(item)
    assert first.audio_bytes == 0 and second.audio_bytes == 480


def test_the_account_equals_a_walk_after_any_sequence_of_changes(tmp_path):
    rng = random.Random(15)
    spill = AudioSpill(memory_bytes=2000, directory=str(tmp_path))
    conversation = Conversation("conv_1")
    outside: list[Item] = []
    spilled_seen = 0
    for step in range(2000):
        held = list(conversation)
        action = rng.choice(["insert", "insert", "grow", "assign", "spill", "truncate", "remove", "delete"])
        if action == "insert" or not held:
            audio = rng.choice([b"", b"\1" * rng.randrange(1, 900), bytearray(b"\2" * rng.randrange(0, 300))])
            item = outside.pop() if outside and rng.random() < 0.2 else Item(f"item_{step % 50}", "message")
            if item not in held:
                item.audio = audio
                after = rng.choice(held).id if held and rng.random() < 0.3 else None
                conversation.insert(item, after)
        else:
            item = rng.choice(held)
            if action == "grow" and isinstance(item.audio, bytearray):
                item.audio += b"\3" * rng.randrange(1, 200)
            elif action == "assign":
                item.audio = rng.choice([b"", b"\4" * rng.randrange(1, 500), bytearray()])
            elif action == "spill":
                spill.keep_newest(
                    i for i in conversation.audio_in_memory() if not isinstance(i.audio, bytearray)
                )
            elif action == "truncate" and item.audio:
                item.truncate(rng.randrange(0, 20))
            elif action == "remove":
                conversation.remove(item)
                outside.append(item)
            elif action == "delete":
                outside.extend(conversation.delete(item.id))
        _check(conversation)
        spilled_seen += any(isinstance(i.audio, SpilledAudio) for i in conversation)
    assert spilled_seen > 100  # the walks met spilled audio beside audio in memory
    spill.close()


def test_bounding_the_conversation_below_its_caps_walks_no_item(monkeypatch):
    session = make_session(7)
    conversation = session.ctx.conversation
    for n in range(300):
        conversation.insert(Item(f"item_{n}", "message", role="user", audio=b"\1" * 480))
    session.items.audio_spill.memory_bytes = 480 * 4
    walks = []
    monkeypatch.setattr(Conversation, "__iter__", lambda self: walks.append(1) or iter(self._order))
    assert session.items.make_room(480) == []
    assert walks == []
    assert len(conversation.audio_in_memory()) == 3  # the newest kept, with room for the one to come
    assert conversation.audio_bytes == 300 * 480
