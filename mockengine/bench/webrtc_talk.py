"""The talking client of the WebRTC bench: open a call or a WebSocket session and speak the conformance
``question`` clip at real-time pace. Shared by the in-process bench (:mod:`mockengine.bench.webrtc`) and its
driver processes (:mod:`mockengine.bench.webrtc_load`)."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

CHUNK_MS = 20
# The events a driver's client keeps (between this and twice this): a turn (clip, silence, reply) is a
# few dozen, and a driver waits only on the turn under way. Keeping every one grew the driver by its
# event record for the whole run: over a 30–60 min soak, the driver's memory, not the engine's.
KEEP_EVENTS = 1024


def question_clip() -> Any:
    from mockengine.conformance.audio import load_clips

    return load_clips()["question"]


async def open_session(url: str, transport: str) -> Any:
    from mockengine.conformance.connection import Connection
    from mockengine.conformance.webrtc import WebRtcConnection

    opener = WebRtcConnection.open if transport == "webrtc" else Connection.open
    conn = await opener(url, "sk-bench", timeout_ms=15_000, keep_events=KEEP_EVENTS)
    await conn.wait_for("session.created", since_ms=0, timeout_ms=15_000)
    return conn


async def speak(conn: Any, pcm: bytes, loop: asyncio.AbstractEventLoop) -> float:
    """Stream ``pcm`` at real-time pace; the loop time (ms) each chunk went out is returned for chunk 0.

    On a call the whole clip goes to the microphone track at once and the track paces it: chunks
    appended one by one from a loaded driver arrive late now and then, and the track fills each gap
    with 20 ms of silence, so every turn's audio would differ (a microphone never does that)."""
    step = CHUNK_MS * 48
    started = loop.time()
    if getattr(conn, "transport", "") == "webrtc":
        await conn.send({"type": "input_audio_buffer.append", "audio": base64.b64encode(pcm).decode()})
        await asyncio.sleep(max(0.0, started + len(pcm) / 48_000 - loop.time()))
        return started * 1000.0
    for index, offset in enumerate(range(0, len(pcm), step)):
        chunk = base64.b64encode(pcm[offset : offset + step]).decode()
        await conn.send({"type": "input_audio_buffer.append", "audio": chunk})
        await asyncio.sleep(max(0.0, started + (index + 1) * CHUNK_MS / 1000 - loop.time()))
    return started * 1000.0


async def talk(conn: Any, seconds: float, onsets: list[float], at_s: list[float] | None = None) -> None:
    """Speak the clip (and 1 s of silence) in a loop for ``seconds``; onset → speech_started (ms) of
    each turn is appended to ``onsets`` and, given ``at_s``, the loop time (s) its ``speech_started``
    was received to ``at_s`` (the two lists kept in step)."""
    clip = question_clip()
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        started_ms = await speak(conn, clip.pcm + bytes(48 * 1000), loop)
        onset_ms = started_ms + clip.speech_onset_ms
        started = await conn.wait_for("input_audio_buffer.speech_started", since_ms=started_ms, timeout_ms=1)
        if started is not None:
            onsets.append(started.received_ms - onset_ms)
            if at_s is not None:
                at_s.append(started.received_ms / 1000.0)
