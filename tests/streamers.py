"""One response's streamer on its own, as the unit tests of its phases and its token counts drive it:
no session, no conversation (its items are placed nowhere), a response created at 0 ms."""

from __future__ import annotations

from typing import Any

from mockengine.ids import IdFactory
from mockengine.realtime.response import Pacing, Response, ResponseParams
from mockengine.realtime.streaming import ResponseStreamer
from mockengine.realtime.usage import TokenCounting


def streamer(
    modality: str, max_output_tokens: Any, pacing: Pacing, tokens: TokenCounting
) -> ResponseStreamer:
    """A streamer for a response with ``output_modalities`` ``(modality,)`` (PCM audio, voice alloy),
    ``max_output_tokens`` (an int or ``"inf"``) and ``pacing``, counting with ``tokens``."""
    params = ResponseParams(
        output_modalities=(modality,),
        voice="alloy",
        speed=1.0,
        output_format={"type": "audio/pcm", "rate": 24000},
        instructions="",
        tools=(),
        tool_choice="auto",
        max_output_tokens=max_output_tokens,
        metadata=None,
        conversation="auto",
    )
    response = Response("resp_1", params, "conv_1", 0.0, pacing)
    return ResponseStreamer(response, IdFactory(1), lambda item: None, tokens)
