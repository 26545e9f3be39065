"""The listening-pause checks (HRP suite 6): turn detection switched off and back on during a session.

HRP voiceEngine.clientEvents[2]/[3]: switching turn detection off mid-speech ends the engine's turn in
progress; the following ``input_audio_buffer.commit`` keeps what was said as that same turn, with no reply.
Switched back on, the next speech is a new turn timed from the moment of the switch.
"""

from __future__ import annotations

from .audio import Microphone
from .checks_speech import (
    LEAD_SILENCE_MS,
    PREFIX_PADDING_TOLERANCE_MS,
    SILENT_PAUSE_MS,
    SPEECH_AFTER_OFF_MS,
    SPEECH_AFTER_ON_MS,
    SWITCH_INTO_SPEECH_MS,
    expect_speech_started,
    expect_turn_committed,
    switch_turn_detection,
)
from .connection import ReceivedEvent, now_ms
from .context import CheckContext, response_id_of


async def listening_pause(ctx: CheckContext) -> None:
    """Off mid-speech + commit keeps the same turn with no reply; on mid-speech starts a new, timed turn."""
    t = ctx.thresholds
    mic = ctx.microphone()
    await mic.wait_position(LEAD_SILENCE_MS)
    statement = ctx.clip("long_statement")
    queued_ms = now_ms()
    playback = mic.play(statement)
    started = await expect_speech_started(ctx, playback, since_ms=queued_ms)
    item_id = started.get("item_id")
    await mic.wait_position(max(mic.position_ms, playback.onset_position_ms + SWITCH_INTO_SPEECH_MS))
    ended_early = _turn_end_before(ctx, item_id, now_ms())
    if ended_early is not None:
        ctx.abort(
            f"engine ended the turn (speech_stopped at audio_end_ms={ended_early.get('audio_end_ms')}) "
            "before turn detection was switched off; the long_statement clip must be continuous speech"
        )
    off_ms, off_position_ms = await switch_turn_detection(ctx, mic, on=False)
    await mic.wait_position(off_position_ms + SPEECH_AFTER_OFF_MS)
    mic.stop_speech()
    commit_ms = await ctx.conn.send({"type": "input_audio_buffer.commit"})
    committed = await ctx.expect(
        "input_audio_buffer.committed",
        since_ms=commit_ms,
        timeout_ms=t.event_timeout_ms,
        what="input_audio_buffer.committed for the commit",
    )
    if committed.get("item_id") != item_id:
        ctx.fail(
            f"expected the commit to keep the turn in progress: committed item_id={item_id} (from "
            f"speech_started); got {committed.get('item_id')}"
        )
    await ctx.sleep_ms(t.no_reply_window_ms)
    _check_no_reply(ctx, since_ms=off_ms, commit_ms=commit_ms)
    await _resume_mid_speech(ctx, mic, known_items={str(item_id)})


def _turn_end_before(ctx: CheckContext, item_id: object, before_ms: float) -> ReceivedEvent | None:
    for event in ctx.conn.events_after(0, "input_audio_buffer.speech_stopped"):
        if event.get("item_id") == item_id and event.received_ms <= before_ms:
            return event
    return None


def _check_no_reply(ctx: CheckContext, *, since_ms: float, commit_ms: float) -> None:
    window_ms = ctx.thresholds.no_reply_window_ms
    for created in ctx.conn.events_after(since_ms, "response.created"):
        when = created.received_ms - commit_ms
        where = f"{when:.0f} ms after the commit" if when >= 0 else f"{-when:.0f} ms before the commit"
        ctx.fail(
            f"expected no response.created after turn detection went off (watched {window_ms} ms after "
            f"the commit); {response_id_of(created)} arrived {where}"
        )


async def _resume_mid_speech(ctx: CheckContext, mic: Microphone, known_items: set[str]) -> None:
    t = ctx.thresholds
    statement = ctx.clip("long_statement")
    start_ms = mic.position_ms
    mic.play(statement)
    await mic.wait_position(start_ms + statement.speech_onset_ms + SWITCH_INTO_SPEECH_MS)
    on_ms, on_position_ms = await switch_turn_detection(ctx, mic, on=True)
    ctx.figures["resume_position_ms"] = round(on_position_ms)
    started = await ctx.expect(
        "input_audio_buffer.speech_started",
        since_ms=on_ms,
        timeout_ms=t.event_timeout_ms,
        what="a new speech_started after turn detection came back on",
    )
    new_item = started.get("item_id")
    delay_ms = started.received_ms - on_ms
    audio_start_ms = started.get("audio_start_ms")
    ctx.figures.update(
        {
            "resume_onset_delay_ms": round(delay_ms),
            "resume_audio_start_ms": audio_start_ms if audio_start_ms is not None else "missing",
        }
    )
    if new_item in known_items:
        ctx.fail(
            f"expected a new item_id for the speech after turn detection came back on; got {new_item} again"
        )
    if delay_ms > t.max_onset_delay_ms:
        ctx.fail(
            f"expected speech_started within {t.max_onset_delay_ms} ms of switching turn detection back on "
            f"(mid-speech); arrived after {delay_ms:.0f} ms"
        )
    low, high = on_position_ms - PREFIX_PADDING_TOLERANCE_MS, on_position_ms + t.max_onset_delay_ms
    if not isinstance(audio_start_ms, int | float) or not low <= audio_start_ms <= high:
        ctx.fail(
            f"expected audio_start_ms timed from the switch back on at {on_position_ms:.0f} ms "
            f"(between {low:.0f} and {high:.0f}); got {audio_start_ms}"
        )


async def listening_pause_silent(ctx: CheckContext) -> None:
    """Off and on again during silence: the next speech is timed from its onset, after the switch on."""
    mic = ctx.microphone()
    await mic.wait_position(LEAD_SILENCE_MS)
    off_ms, off_position_ms = await switch_turn_detection(ctx, mic, on=False)
    await mic.wait_position(off_position_ms + SILENT_PAUSE_MS)
    on_ms, on_position_ms = await switch_turn_detection(ctx, mic, on=True)
    ctx.figures["resume_position_ms"] = round(on_position_ms)
    early = ctx.conn.events_after(off_ms, "input_audio_buffer.speech_started")
    if early:
        ctx.fail(
            f"speech_started arrived while turn detection was off (audio_start_ms="
            f"{early[0].get('audio_start_ms')})"
        )
    await mic.wait_position(on_position_ms + SPEECH_AFTER_ON_MS)
    playback = mic.play(ctx.clip("question"))
    started = await expect_speech_started(ctx, playback, since_ms=on_ms)
    audio_start_ms = started.get("audio_start_ms")
    if isinstance(audio_start_ms, int | float) and audio_start_ms < on_position_ms:
        ctx.fail(
            f"expected audio_start_ms ≥ {on_position_ms:.0f} (turn detection came back on there); "
            f"got {audio_start_ms}"
        )
    await expect_turn_committed(ctx, started)
