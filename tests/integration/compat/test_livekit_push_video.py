"""LiveKit's ``RealtimeSession.push_video``: each frame goes to the conversation as its own user message
(one ``input_image``), so a frame pushed after the user's question is the newest item when the reply is
asked for. The reply answers the question about it, as the real model does; it was "Sorry, I didn't catch
that." Only the URL differs from the real service."""

from __future__ import annotations

import asyncio

from livekit import rtc

from tests.integration.compat.test_livekit import TIMEOUT_S, base_url, http_context, model, record_errors
from tests.integration.compat.test_livekit_realtime_session import _reply

__all__ = ["http_context"]  # the fixture, used by name


def solid_frame(rgb: tuple[int, int, int], width: int = 64, height: int = 48) -> rtc.VideoFrame:
    """A camera frame of one colour (RGBA), as a LiveKit video track delivers it."""
    return rtc.VideoFrame(width, height, rtc.VideoBufferType.RGBA, bytes([*rgb, 255]) * (width * height))


async def test_a_frame_pushed_after_the_question_is_what_the_reply_describes(
    framework_engine, server_events, http_context
) -> None:
    url = await base_url(framework_engine)
    async with model(url) as realtime_model:
        session = realtime_model.session()
        errors = record_errors(session)
        asked = session.chat_ctx.copy()
        asked.add_message(role="user", content="What colour is the image I am showing you?")
        await session.update_chat_ctx(asked)
        session.push_video(solid_frame((220, 20, 20)))
        text, calls = await _reply(await asyncio.wait_for(session.generate_reply(), TIMEOUT_S))
        await session.aclose()
    created = [e["item"] for e in server_events if e["type"] == "conversation.item.added"]
    assert [part["type"] for part in created[1]["content"]] == ["input_image"]  # the frame came last
    assert "red" in text.lower(), text
    assert not calls and not errors, (calls, errors)
