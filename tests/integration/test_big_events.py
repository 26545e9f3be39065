"""One server event larger than the unsent-backlog bound (``--max-send-backlog-bytes``) is not a slow
reader: a client that reads promptly and asks for a long item back, or sends a long one, keeps its
session. The bound is for a peer that leaves events unread, not for the size of one reply to a request
the limits allowed (a 300 s buffer is within ``--max-input-buffer-s``; its ``conversation.item.retrieved``
carries 19 MB of base64)."""

from __future__ import annotations

import base64

from openai import AsyncOpenAI

BOUND_BYTES = 64 * 1024


async def test_retrieving_an_item_larger_than_the_backlog_bound_keeps_the_session(engine) -> None:
    eng = await engine(max_send_backlog_bytes=BOUND_BYTES, heartbeat_s=0.0)
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url)
    pcm = b"\x01\x00" * 24_000 * 2  # 2 s of PCM16 at 24 kHz: 128 kB of base64, twice the bound
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(session={"type": "realtime", "audio": {"input": {"turn_detection": None}}})
        await conn.input_audio_buffer.append(audio=base64.b64encode(pcm).decode())
        await conn.input_audio_buffer.commit()
        item_id = None
        async for event in conn:
            if event.type == "input_audio_buffer.committed":
                item_id = event.item_id
                await conn.conversation.item.retrieve(item_id=item_id)
            if event.type == "conversation.item.retrieved":
                assert base64.b64decode(event.item.content[0].audio or "") == pcm
                break
            assert event.type != "error", event
        # The session goes on: a typed item after it is added as usual.
        await conn.conversation.item.create(
            item={"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]}
        )
        async for event in conn:
            if event.type == "conversation.item.added":
                assert event.previous_item_id == item_id
                break


async def test_a_text_item_larger_than_the_backlog_bound_is_echoed_and_the_session_goes_on(engine) -> None:
    eng = await engine(max_send_backlog_bytes=BOUND_BYTES, heartbeat_s=0.0)
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url)
    text = "word " * (BOUND_BYTES // 4)  # added and done each carry it: 2.5 times the bound together
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.conversation.item.create(
            item={"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        )
        kinds = []
        async for event in conn:
            kinds.append(event.type)
            if event.type == "conversation.item.done":
                assert event.item.content[0].text == text
                break
        assert kinds == ["session.created", "conversation.item.added", "conversation.item.done"]
        await conn.input_audio_buffer.clear()
        async for event in conn:
            assert event.type == "input_audio_buffer.cleared"
            break


async def test_an_item_of_twenty_thousand_parts_is_added_answered_and_a_bad_one_refused(engine) -> None:
    # Each part was checked by jsonschema against the four part kinds on the event loop (~90 µs a part:
    # this item held every session of the engine for ~5 s); plain parts are now passed in a few µs each.
    eng = await engine(heartbeat_s=0.0)
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url)
    parts = [{"type": "input_text", "text": f"note {n}."} for n in range(20_000)]
    parts[-1] = {"type": "input_text", "text": "What is the capital of France?"}
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.conversation.item.create(item={"type": "message", "role": "user", "content": parts})
        await conn.response.create(response={"output_modalities": ["text"]})
        async for event in conn:
            assert event.type != "error", event
            if event.type == "conversation.item.done" and event.item.role == "user":
                assert len(event.item.content or []) == 20_000
            if event.type == "response.done":
                assert event.response.status == "completed"
                assert "Paris" in str(event.response.output)
                break
        # One bad part after 20,000 good ones: the error names it, and the session goes on.
        bad = [*parts[:-1], {"type": "input_text", "text": 5}]
        await conn.send(
            {
                "type": "conversation.item.create",
                "event_id": "big-bad",
                "item": {"type": "message", "role": "user", "content": bad},
            }
        )
        async for event in conn:
            if event.type == "error":
                assert (event.error.param, event.error.event_id) == ("item.content[19999].text", "big-bad")
                break
        await conn.input_audio_buffer.clear()
        async for event in conn:
            assert event.type == "input_audio_buffer.cleared"
            break
