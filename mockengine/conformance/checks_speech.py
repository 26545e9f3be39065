"""The spoken-turn checks: engine_turn, barge_in, listening_pause, listening_pause_silent (HRP suite 6).

Each runs once per turn detection, on its own session, with the microphone streaming from the start.
Audio positions (``*_position_ms``, ``audio_start_ms``) count all audio appended in the session, as the
Realtime API's ``audio_start_ms`` / ``audio_end_ms`` do (reference §3.3).
"""

from __future__ import annotations

import math

from . import checks_webrtc
from .audio import Microphone, Playback
from .connection import ReceivedEvent, now_ms
from .context import CheckContext, audio_delta_ms, describe_error, response_events, response_id_of
from .spec import turn_detection_update

LEAD_SILENCE_MS = 1000
# How far into a clip's speech turn detection is switched off / back on (HRP listening_pause).
SWITCH_INTO_SPEECH_MS = 1500
# Speech kept streaming after switching turn detection off, before the manual commit.
SPEECH_AFTER_OFF_MS = 1000
SILENT_PAUSE_MS = 1000
SPEECH_AFTER_ON_MS = 500
# audio_start_ms may precede the switch-on position by the prefix padding (server_vad default 300 ms).
PREFIX_PADDING_TOLERANCE_MS = 300
# The participant cuts in after hearing this much of the reply, so the truncation lands mid-audio.
BARGE_IN_AFTER_MS = 1000
STORY_PROMPT = "Please tell me a long story about a lighthouse keeper, at least six sentences."


async def expect_speech_started(
    ctx: CheckContext, playback: Playback, *, since_ms: float, prefix: str = ""
) -> ReceivedEvent:
    """speech_started for ``playback``'s speech: within maxOnsetDelayMs of the onset, at a plausible position.

    Figures: ``<prefix>onset_delay_ms`` (wall, onset chunk sent → event), ``<prefix>audio_start_ms`` and
    ``<prefix>speech_onset_ms`` (session audio positions).
    """
    limit_ms = ctx.thresholds.max_onset_delay_ms
    started = await ctx.expect(
        "input_audio_buffer.speech_started",
        since_ms=since_ms,
        timeout_ms=ctx.thresholds.event_timeout_ms,
        what=f"input_audio_buffer.speech_started for the {playback.clip.name} clip",
    )
    if playback.onset_wall_ms is None or started.received_ms < playback.onset_wall_ms:
        ctx.abort(
            f"input_audio_buffer.speech_started arrived before the {playback.clip.name} clip's speech "
            f"was streamed (audio_start_ms={started.get('audio_start_ms')})"
        )
    delay_ms = started.received_ms - playback.onset_wall_ms
    onset_ms = playback.onset_position_ms
    audio_start_ms = started.get("audio_start_ms")
    ctx.figures.update(
        {
            f"{prefix}onset_delay_ms": round(delay_ms),
            f"{prefix}speech_onset_ms": round(onset_ms),
            f"{prefix}audio_start_ms": audio_start_ms if audio_start_ms is not None else "missing",
        }
    )
    if delay_ms > limit_ms:
        ctx.fail(
            f"expected speech_started within {limit_ms} ms of the speech onset; "
            f"arrived after {delay_ms:.0f} ms"
        )
    if not isinstance(audio_start_ms, int | float) or abs(audio_start_ms - onset_ms) > limit_ms:
        ctx.fail(
            f"expected speech_started audio_start_ms within ±{limit_ms} ms of the speech onset at "
            f"{onset_ms:.0f} ms of session audio; got {audio_start_ms}"
        )
    return started


async def expect_turn_committed(ctx: CheckContext, started: ReceivedEvent) -> ReceivedEvent:
    """speech_stopped then input_audio_buffer.committed, both for speech_started's item_id."""
    item_id = started.get("item_id")
    timeout_ms = ctx.thresholds.event_timeout_ms
    stopped = await ctx.expect(
        "input_audio_buffer.speech_stopped",
        lambda e: e.get("item_id") == item_id,
        since_ms=started.received_ms,
        timeout_ms=timeout_ms,
        what=f"speech_stopped for {item_id}",
    )
    ctx.figures["speech_stopped_ms"] = stopped.get("audio_end_ms", "missing")
    committed = await ctx.expect(
        "input_audio_buffer.committed",
        since_ms=stopped.received_ms,
        timeout_ms=timeout_ms,
        what=f"input_audio_buffer.committed for {item_id}",
    )
    if committed.get("item_id") != item_id:
        ctx.fail(
            f"expected committed item_id={item_id} (the speech_started item); got {committed.get('item_id')}"
        )
    return committed


async def engine_turn(ctx: CheckContext) -> None:
    """Spoken question → speech_started/stopped → committed → a complete spoken response with usage."""
    t = ctx.thresholds
    mic = ctx.microphone()
    await mic.wait_position(LEAD_SILENCE_MS)
    queued_ms = now_ms()
    playback = mic.play(ctx.clip("question"))
    started = await expect_speech_started(ctx, playback, since_ms=queued_ms)
    committed = await expect_turn_committed(ctx, started)
    speech_end_ms = playback.end_wall_ms or committed.received_ms
    created = await ctx.expect(
        "response.created", since_ms=committed.received_ms, timeout_ms=t.event_timeout_ms
    )
    response_start_ms = created.received_ms - speech_end_ms
    ctx.figures["response_start_ms"] = round(response_start_ms)
    if response_start_ms > t.max_response_start_ms:
        ctx.fail(
            f"expected response.created within {t.max_response_start_ms} ms of the end of speech; "
            f"arrived after {response_start_ms:.0f} ms"
        )
    rid = response_id_of(created) or ""
    done = await ctx.expect_response_done(created, t.event_timeout_ms)
    check_spoken_response(ctx, rid, done)


def check_spoken_response(ctx: CheckContext, rid: str, done: ReceivedEvent) -> None:
    """A completed audio response: deltas ≤ maxAudioDeltaMs, a transcript, usage.total_tokens > 0."""
    deltas = response_events(ctx.conn, rid, "response.output_audio.delta")
    sizes_ms = [audio_delta_ms(e) for e in deltas]
    ctx.figures.update(
        {
            "audio_deltas": len(deltas),
            "response_audio_ms": round(sum(sizes_ms)),
            "max_delta_ms": round(max(sizes_ms, default=0)),
        }
    )
    if deltas:
        ctx.figures["first_audio_ms"] = round(deltas[0].received_ms - _created_ms(ctx, rid))
    else:
        ctx.fail(f"expected at least one response.output_audio.delta for {rid}; got none")
    oversized = [ms for ms in sizes_ms if ms > ctx.suite.max_audio_delta_ms]
    if oversized:
        ctx.fail(
            f"expected every audio delta ≤ {ctx.suite.max_audio_delta_ms} ms; {len(oversized)} were larger "
            f"(largest {max(oversized):.0f} ms)"
        )
    transcripts = response_events(ctx.conn, rid, "response.output_audio_transcript.done")
    transcript = str(transcripts[0].get("transcript") or "") if transcripts else ""
    ctx.figures["transcript_chars"] = len(transcript)
    if not transcript.strip():
        ctx.fail(
            f"expected response.output_audio_transcript.done with a non-empty transcript; "
            f"got {'an empty one' if transcripts else 'none'}"
        )
    response = done.get("response") or {}
    if response.get("status") != "completed":
        ctx.fail(
            f"expected response.done status=completed; got status={response.get('status')} "
            f"details={response.get('status_details')}"
        )
    total_tokens = (response.get("usage") or {}).get("total_tokens")
    ctx.figures["total_tokens"] = total_tokens if isinstance(total_tokens, int) else "missing"
    if not isinstance(total_tokens, int) or total_tokens <= 0:
        ctx.fail(f"expected response.done usage.total_tokens > 0; got usage={response.get('usage')}")


def _created_ms(ctx: CheckContext, rid: str) -> float:
    created = response_events(ctx.conn, rid, "response.created")
    return created[0].received_ms if created else 0.0


async def start_long_response(ctx: CheckContext) -> tuple[str, ReceivedEvent]:
    """Ask for a long spoken story; returns (response id, its first audio delta)."""
    timeout_ms = ctx.thresholds.event_timeout_ms
    await ctx.conn.send(user_text(STORY_PROMPT))
    sent_ms = await ctx.conn.send({"type": "response.create", "response": {"output_modalities": ["audio"]}})
    created = await ctx.expect("response.created", since_ms=sent_ms, timeout_ms=timeout_ms)
    rid = response_id_of(created) or ""
    first = await ctx.expect_for_response("response.output_audio.delta", created, timeout_ms)
    ctx.figures["first_audio_ms"] = round(first.received_ms - created.received_ms)
    return rid, first


def user_text(text: str) -> dict[str, object]:
    return {
        "type": "conversation.item.create",
        "item": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
    }


async def expect_cancelled(
    ctx: CheckContext, rid: str, *, since_ms: float, reason: str, anchor: str
) -> ReceivedEvent:
    """response.done for ``rid``: cancelled with ``reason`` within maxCancelToDoneMs of ``since_ms``."""
    limit_ms, timeout_ms = ctx.thresholds.max_cancel_to_done_ms, ctx.thresholds.event_timeout_ms
    expected = f"expected response.done status=cancelled reason={reason} within {limit_ms} ms of {anchor}"
    done = await ctx.conn.wait_for(
        "response.done", lambda e: response_id_of(e) == rid, since_ms=0, timeout_ms=timeout_ms
    )
    if done is None:
        ctx.abort(
            f"{expected}; got no response.done for {rid} within {timeout_ms} ms ({ctx.describe(since_ms)})"
        )
    response = done.get("response") or {}
    got_reason = (response.get("status_details") or {}).get("reason")
    delay_ms = done.received_ms - since_ms
    ctx.figures["cancel_to_done_ms"] = round(delay_ms)
    if response.get("status") != "cancelled" or got_reason != reason or delay_ms > limit_ms:
        ctx.fail(
            f"{expected}; got status={response.get('status')} reason={got_reason} after {delay_ms:.0f} ms"
        )
    return done


def check_no_audio_after(ctx: CheckContext, rid: str, done: ReceivedEvent) -> None:
    """No ``response.output_audio.delta`` of ``rid`` after its ``response.done`` (WebSocket)."""
    late = [e for e in response_events(ctx.conn, rid, "response.output_audio.delta") if e.index > done.index]
    if late:
        ctx.fail(
            f"audio delta for {rid} arrived {late[0].received_ms - done.received_ms:.0f} ms after its "
            f"response.done ({len(late)} late deltas)"
        )


async def barge_in(ctx: CheckContext) -> None:
    """Speech during a spoken response cancels it (turn_detected); truncate at the heard position is acked."""
    mic = ctx.microphone()
    await mic.wait_position(LEAD_SILENCE_MS)
    rid, first = await start_long_response(ctx)
    await ctx.sleep_ms(BARGE_IN_AFTER_MS)
    queued_ms = now_ms()
    playback = mic.play(ctx.clip("interrupt"))
    started = await expect_speech_started(ctx, playback, since_ms=queued_ms)
    finished = [
        e for e in response_events(ctx.conn, rid, "response.done") if e.received_ms <= started.received_ms
    ]
    if finished and playback.onset_wall_ms is not None and finished[0].received_ms <= playback.onset_wall_ms:
        ctx.abort(
            f"engine finished speaking before the interruption: response.done for {rid} (status="
            f"{(finished[0].get('response') or {}).get('status')}) came "
            f"{playback.onset_wall_ms - finished[0].received_ms:.0f} ms before the interruption's onset"
        )
    done = await expect_cancelled(
        ctx, rid, since_ms=started.received_ms, reason="turn_detected", anchor="speech_started"
    )
    if ctx.conn.transport == "webrtc":  # the service clears the track and truncates by itself
        cleared = await checks_webrtc.expect_automatic_truncation(ctx, rid, first, started)
        await truncate_beyond_end(ctx, rid, first.get("item_id"))
        await checks_webrtc.check_track_silent_after(ctx, rid, cleared)
        return
    await truncate_heard_audio(ctx, rid, first, started)
    check_no_audio_after(ctx, rid, done)


async def truncate_heard_audio(
    ctx: CheckContext, rid: str, first: ReceivedEvent, started: ReceivedEvent
) -> None:
    """Truncate at the position the platform would report, then (graded) past the audio's end."""
    item_id = first.get("item_id")
    deltas = response_events(ctx.conn, rid, "response.output_audio.delta")
    received_ms = sum(audio_delta_ms(e) for e in deltas if e.received_ms <= started.received_ms)
    elapsed_ms = (started.received_ms - first.received_ms) * ctx.realtime_factor
    played_ms = math.floor(min(elapsed_ms, received_ms))
    ctx.figures.update({"played_ms": played_ms, "received_audio_ms": round(received_ms)})
    timeout_ms = ctx.thresholds.truncate_ack_timeout_ms
    sent_ms = await ctx.conn.send(
        {
            "type": "conversation.item.truncate",
            "item_id": item_id,
            "content_index": 0,
            "audio_end_ms": played_ms,
        }
    )
    ack = await ctx.expect(
        "conversation.item.truncated",
        lambda e: e.get("item_id") == item_id,
        since_ms=sent_ms,
        timeout_ms=timeout_ms,
        what=f"conversation.item.truncated for {item_id} at {played_ms} ms",
    )
    ctx.figures["truncate_ack_ms"] = round(ack.received_ms - sent_ms)
    if ack.get("audio_end_ms") != played_ms:
        ctx.fail(
            f"expected conversation.item.truncated audio_end_ms={played_ms}; got {ack.get('audio_end_ms')}"
        )
    await truncate_beyond_end(ctx, rid, item_id)


async def truncate_beyond_end(ctx: CheckContext, rid: str, item_id: object) -> None:
    """(Graded) a truncate past the end of the item's audio is an error."""
    timeout_ms = ctx.thresholds.truncate_ack_timeout_ms
    total_ms = sum(audio_delta_ms(e) for e in response_events(ctx.conn, rid, "response.output_audio.delta"))
    beyond_ms = math.ceil(total_ms) + 1000
    sent_ms = await ctx.conn.send(
        {
            "type": "conversation.item.truncate",
            "item_id": item_id,
            "content_index": 0,
            "audio_end_ms": beyond_ms,
        }
    )
    reply = await ctx.conn.wait_match(
        lambda e: e.type in ("error", "conversation.item.truncated"), since_ms=sent_ms, timeout_ms=timeout_ms
    )
    if reply is None or reply.type != "error":
        got = "conversation.item.truncated" if reply else f"nothing within {timeout_ms} ms"
        ctx.fail(
            f"expected an error for a truncate at {beyond_ms} ms, beyond the item's {total_ms:.0f} ms of "
            f"audio (the real service answers invalid_value); got {got}"
        )
        return
    code = (reply.get("error") or {}).get("code")
    ctx.figures["overlong_truncate_error"] = str(code)
    if code != "invalid_value":
        ctx.notes.append(
            f"overlong truncate answered with {describe_error(reply)}; the real service uses "
            "invalid_value 'Audio content of Xms is already shorter than Yms'"
        )


async def switch_turn_detection(ctx: CheckContext, mic: Microphone, on: bool) -> tuple[float, float]:
    """Send the HRP turn-detection switch between two audio chunks; returns (send ms, audio position ms)."""
    turn_detection = ctx.turn_detection if on else None
    sent_ms, position_ms = await mic.send_marked(turn_detection_update(ctx.suite, turn_detection))
    updated = await ctx.expect(
        "session.updated",
        since_ms=sent_ms,
        timeout_ms=ctx.thresholds.event_timeout_ms,
        what=f"session.updated for turn detection {'on' if on else 'off'}",
    )
    echoed = (((updated.get("session") or {}).get("audio") or {}).get("input") or {}).get("turn_detection")
    echoed_type = echoed.get("type") if isinstance(echoed, dict) else None
    if (echoed is None) == on or echoed_type != (ctx.turn_detection["type"] if on else None):
        ctx.fail(f"expected session.updated turn_detection={turn_detection}; got {echoed}")
    return sent_ms, position_ms
