"""A video frame as its own user item, after the words it goes with, over the wire with the openai SDK.

LiveKit's ``RealtimeSession.push_video`` and apps that share a camera send each frame as a user message
holding one ``input_image`` and no words, so the newest user item before ``response.create`` is often a
frame that came in just after the question. The reply answers the question (about the frame, when it asks
about it), as a vision model does; it used to be "Sorry, I didn't catch that." (the frame's empty words
taken for the turn). The speech engines are the fakes: this is the brain's reading of the conversation."""

from __future__ import annotations

import base64
import io
from typing import Any

from openai import AsyncOpenAI
from PIL import Image

from tests.speech import events_until


def frame(rgb: tuple[int, int, int]) -> dict[str, Any]:
    """A user message holding one JPEG frame of a single colour, as LiveKit's ``push_video`` sends it."""
    jpeg = io.BytesIO()
    Image.new("RGB", (64, 48), rgb).save(jpeg, "JPEG")
    url = "data:image/jpeg;base64," + base64.b64encode(jpeg.getvalue()).decode()
    return {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": url}]}


def said(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


async def replies(ws_base: str, turns: list[list[dict[str, Any]]]) -> list[str]:
    """Each turn's items created, then a text response: the text of each reply (every event validated
    against the SDK's types by ``events_until``; an ``error`` fails)."""
    texts = []
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=ws_base) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        for items in turns:
            for item in items:
                await connection.conversation.item.create(item=item)
            await connection.response.create(response={"output_modalities": ["text"]})
            events = await events_until(connection, "response.done")
            assert not [event for event in events if event["type"] == "error"], events
            texts.append(" ".join(e["text"] for e in events if e["type"] == "response.output_text.done"))
    return texts


async def test_a_colour_question_then_the_frame_it_asks_about(engine_url) -> None:
    ws_base = await engine_url()
    red, blue = (220, 20, 20), (20, 40, 220)
    texts = await replies(
        ws_base,
        [
            [said("What colour is the image?"), frame(red)],
            [said("And what colour is this one?"), frame(blue), frame(blue)],
        ],
    )
    assert "red" in texts[0].lower(), texts
    assert "blue" in texts[1].lower(), texts


async def test_a_question_with_a_frame_after_it_is_answered(engine_url) -> None:
    texts = await replies(await engine_url(), [[said("What is the capital of France?"), frame((90, 90, 90))]])
    assert "Paris" in texts[0], texts


async def test_a_frame_after_an_answered_turn_does_not_answer_that_turn_again(engine_url) -> None:
    """The words before the last reply were answered: a frame alone after it is not a repeat of them."""
    texts = await replies(
        await engine_url(), [[said("What is the capital of France?")], [frame((220, 20, 20))]]
    )
    assert "Paris" in texts[0], texts
    assert "Paris" not in texts[1], texts
