"""A reply cancelled right after its first audio delta keeps the words spoken so far, over the wire with
the official ``openai`` SDK (fake engines: a tone of 60 ms per character, so a sentence has more 200 ms
audio deltas than words).

The live service streams a piece's ``response.output_audio_transcript.delta`` with or ahead of the
``response.output_audio.delta`` carrying its audio (reference §3.3: interleaved). Ours sent each
sentence's words spread over its deltas rounded down, so its first audio delta went out with no words
before it, and a cancel then left the item's transcript ``""``. Truncating the item afterwards drops the
transcript, as ``conversation.item.truncate`` is documented to (reference §3.7): no unheard text kept."""

from __future__ import annotations

from tests.speech import STORY, events_until, sdk_session


async def test_a_reply_cancelled_after_its_first_audio_keeps_the_words_spoken(engine) -> None:
    # Half real time: a 200 ms delta every 400 ms, so the cancel reaches the engine before the next one.
    eng = await engine(audio_pace=0.5, first_delta_delay_ms=0)
    async with sdk_session(eng.url) as connection:
        await connection.conversation.item.create(item=STORY)
        await connection.response.create()
        before = await events_until(connection, "response.output_audio.delta")
        await connection.response.cancel()
        after = await events_until(connection, "response.done")
        kinds = [e["type"] for e in before]
        # The first words went out with the first audio, just before it.
        assert kinds[-2:] == ["response.output_audio_transcript.delta", "response.output_audio.delta"], kinds
        written = "".join(e["delta"] for e in before + after if e["type"].endswith("transcript.delta"))
        assert written and written == before[-2]["delta"] + "".join(
            e["delta"] for e in after if e["type"] == "response.output_audio_transcript.delta"
        )
        response = after[-1]["response"]
        assert response["status"] == "cancelled"
        (item,) = response["output"]
        assert item["status"] == "incomplete" and item["content"][0]["transcript"] == written
        transcript_done = next(e for e in after if e["type"] == "response.output_audio_transcript.done")
        assert transcript_done["transcript"] == written

        await connection.conversation.item.retrieve(item_id=item["id"])
        retrieved = (await events_until(connection, "conversation.item.retrieved"))[-1]["item"]
        assert retrieved["content"][0]["transcript"] == written

        # Truncated at what was heard, the item keeps no transcript (reference §3.7).
        await connection.conversation.item.truncate(item_id=item["id"], content_index=0, audio_end_ms=100)
        await events_until(connection, "conversation.item.truncated")
        await connection.conversation.item.retrieve(item_id=item["id"])
        retrieved = (await events_until(connection, "conversation.item.retrieved"))[-1]["item"]
        assert not retrieved["content"][0]["transcript"]
