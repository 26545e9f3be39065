"""Over a socket, with the official SDK and the real models: a client switches server_vad → semantic_vad
in the final silence of a spoken question (before server_vad's window closed the turn). The turn still
ends, is committed under its one ``speech_started``'s item id, transcribed and answered."""

from __future__ import annotations

import asyncio
import base64

import pytest

from tests.integration.compat.speech import clear_question
from tests.speech import sdk_connection

pytestmark = pytest.mark.models


async def test_a_switch_to_semantic_vad_in_the_final_silence_still_ends_and_answers_the_turn(engine):
    server = await engine()
    # Speech 1-2.6 s, then 1 s of silence. Not the espeak clip (tests.speech.question): semantic_vad's
    # transcript of it hangs on the CPU's maths (tests.integration.compat.speech.clear_question).
    pcm = clear_question() + bytes(48 * 1000)
    async with sdk_connection(server.url) as conn:
        await conn.session.update(
            session={
                "type": "realtime",
                "output_modalities": ["text"],
                "audio": {
                    "input": {
                        "transcription": {"model": "whisper-1"},
                        "turn_detection": {"type": "server_vad", "silence_duration_ms": 1500},
                    }
                },
            }
        )
        for offset in range(0, len(pcm), 4800):  # 100 ms appends
            await conn.input_audio_buffer.append(audio=base64.b64encode(pcm[offset : offset + 4800]).decode())
        await conn.session.update(
            session={"type": "realtime", "audio": {"input": {"turn_detection": {"type": "semantic_vad"}}}}
        )
        await conn.input_audio_buffer.append(audio=base64.b64encode(bytes(48 * 3000)).decode())
        kinds: list[str] = []
        items: set[str] = set()
        reply = ""
        async with asyncio.timeout(20):  # (before: no speech_stopped ever came)
            async for event in conn:
                kinds.append(event.type)
                if event.type.startswith("input_audio_buffer.") and hasattr(event, "item_id"):
                    items.add(event.item_id)
                if event.type == "response.output_text.done":
                    reply = event.text
                if event.type in ("response.done", "error"):
                    break
    assert kinds.count("input_audio_buffer.speech_started") == 1
    assert kinds.count("input_audio_buffer.speech_stopped") == 1 and "input_audio_buffer.committed" in kinds
    assert len(items) == 1  # started, stopped and committed name the same item
    assert kinds[-1] == "response.done" and "Paris" in reply, (kinds, reply)
