"""A Realtime connection of either session type over the openai SDK, as the transcription-setting tests
open it (test_transcription_prompt_refused, test_transcription_fields_by_model): a ``realtime`` session
(``model=gpt-realtime``) or a ``transcription`` one (``?intent=transcription``), past its
``session.created``."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from openai import AsyncOpenAI


def sdk_client(base: str) -> AsyncOpenAI:
    """An SDK client for an engine whose WebSocket base is ``base`` (``ws://host:port/v1``)."""
    return AsyncOpenAI(api_key="sk-test", base_url=base.replace("ws://", "http://"), websocket_base_url=base)


@contextlib.asynccontextmanager
async def connected(base: str, session_type: str) -> AsyncIterator[Any]:
    """The SDK's connection to a ``session_type`` session, its ``session.created`` read."""
    query = {"intent": "transcription"} if session_type == "transcription" else {}
    connect = {"model": "gpt-realtime"} if session_type == "realtime" else {}
    async with (
        sdk_client(base) as client,
        client.realtime.connect(**connect, extra_query=query) as conn,  # type: ignore[arg-type]
    ):
        await conn.recv()  # session.created
        yield conn
