"""What the barge-in and cancel checks assert instead over a WebRTC call (``--transport webrtc``).

On WebRTC the reply is played by the service on its own track, so the client cannot tell it where
playback stopped: on an interruption the service clears its output buffer
(``output_audio_buffer.cleared``) and truncates the assistant item itself at what it had played
(``conversation.item.truncated``; reference §13, the SDK's ``output_audio_buffer`` docstrings). A
``response.cancel`` stops the generation, not the audio already playing: the client sends
``output_audio_buffer.clear`` for that. Reply audio never comes as ``response.output_audio.delta`` on
the data channel. What the checks assert:

* barge-in: ``output_audio_buffer.cleared`` for the response and ``conversation.item.truncated`` for its
  item, at an ``audio_end_ms`` within :data:`PLAYOUT_TOLERANCE_MS` of the audio the client had
  received on the track when the clear arrived;
* cancel: ``output_audio_buffer.clear`` is answered with ``output_audio_buffer.cleared``;
* after either clear, the track carries no reply audio (every frame from :data:`IN_FLIGHT_MS` after the
  clear until the next reply starts, at most :data:`SILENCE_WINDOW_MS`, is below
  :data:`AUDIBLE_PEAK`), and no audio delta ever came on the data channel.
"""

from __future__ import annotations

from .connection import ReceivedEvent, now_ms
from .context import CheckContext, audio_delta_ms, response_events

# Frames sent before the clear but still on the way (network, the client's jitter buffer) when the
# cleared event arrives: the engine's position and what the client had received may differ this much.
PLAYOUT_TOLERANCE_MS = 300
IN_FLIGHT_MS = 200
SILENCE_WINDOW_MS = 800
AUDIBLE_PEAK = 800  # a decoded frame louder than this is speech, not silence or codec noise
TRACK_DELTA = "webrtc-track"  # how conformance/webrtc.py marks the deltas it records from the track


async def expect_automatic_truncation(
    ctx: CheckContext, rid: str, first: ReceivedEvent, started: ReceivedEvent
) -> ReceivedEvent:
    """The service's own clear and truncation after ``started`` (speech_started); returns the clear."""
    timeout_ms = ctx.thresholds.truncate_ack_timeout_ms
    item_id = first.get("item_id")
    cleared = await ctx.expect(
        "output_audio_buffer.cleared",
        lambda e: e.get("response_id") == rid,
        since_ms=started.received_ms,
        timeout_ms=timeout_ms,
        what=f"output_audio_buffer.cleared for {rid} (on WebRTC the service clears its playback)",
    )
    truncated = await ctx.expect(
        "conversation.item.truncated",
        lambda e: e.get("item_id") == item_id,
        since_ms=started.received_ms,
        timeout_ms=timeout_ms,
        what=f"conversation.item.truncated for {item_id} (on WebRTC the service truncates by itself)",
    )
    deltas = response_events(ctx.conn, rid, "response.output_audio.delta")
    heard_ms = sum(audio_delta_ms(e) for e in deltas if e.received_ms <= cleared.received_ms)
    end_ms = truncated.get("audio_end_ms")
    ctx.figures.update({"received_audio_ms": round(heard_ms), "truncated_at_ms": end_ms})
    if not isinstance(end_ms, int) or end_ms <= 0 or abs(end_ms - heard_ms) > PLAYOUT_TOLERANCE_MS:
        ctx.fail(
            f"expected the automatic truncation at the played position, {heard_ms:.0f} ms received on "
            f"the track (± {PLAYOUT_TOLERANCE_MS} ms); got conversation.item.truncated "
            f"audio_end_ms={end_ms}"
        )
    return cleared


async def clear_playback(ctx: CheckContext, rid: str, settle_ms: float) -> None:
    """After a cancel: ``output_audio_buffer.clear`` → ``.cleared``, then the track falls silent."""
    if response_events(ctx.conn, rid, "output_audio_buffer.stopped"):
        ctx.notes.append(f"the reply of {rid} had played out before output_audio_buffer.clear")
        check_no_channel_audio(ctx)
        return
    sent_ms = await ctx.conn.send({"type": "output_audio_buffer.clear"})
    cleared = await ctx.expect(
        "output_audio_buffer.cleared",
        lambda e: e.get("response_id") == rid,
        since_ms=sent_ms,
        timeout_ms=ctx.thresholds.event_timeout_ms,
        what=f"output_audio_buffer.cleared for {rid} after output_audio_buffer.clear",
    )
    ctx.figures["clear_ack_ms"] = round(cleared.received_ms - sent_ms)
    await ctx.sleep_ms(settle_ms)
    await check_track_silent_after(ctx, rid, cleared)


async def check_track_silent_after(ctx: CheckContext, rid: str, cleared: ReceivedEvent) -> None:
    """No reply audio on the track after ``cleared`` (see the module docstring), none on the channel."""
    start_ms = cleared.received_ms + IN_FLIGHT_MS
    next_reply = [
        e.received_ms
        for e in ctx.conn.events
        if e.type == "output_audio_buffer.started" and e.received_ms > cleared.received_ms
    ]
    end_ms = min([start_ms + SILENCE_WINDOW_MS, *next_reply])
    if end_ms > now_ms():
        await ctx.sleep_ms((end_ms - now_ms()) * ctx.realtime_factor)
    peaks: list[tuple[float, int]] = getattr(ctx.conn, "frame_peaks", None) or []
    loud = [(t, peak) for t, peak in peaks if start_ms <= t <= end_ms and peak >= AUDIBLE_PEAK]
    if loud:
        ctx.fail(
            f"reply audio of {rid} still played on the track {loud[0][0] - cleared.received_ms:.0f} ms "
            f"after output_audio_buffer.cleared (peak {loud[0][1]}, {len(loud)} loud frames)"
        )
    check_no_channel_audio(ctx)


def check_no_channel_audio(ctx: CheckContext) -> None:
    on_channel = [
        e
        for e in ctx.conn.events
        if e.type == "response.output_audio.delta" and e.get("transport") != TRACK_DELTA
    ]
    if on_channel:
        ctx.fail(
            f"{len(on_channel)} response.output_audio.delta events came on the data channel; on WebRTC "
            "reply audio goes on the track only"
        )
