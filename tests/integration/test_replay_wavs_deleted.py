"""A recording's WAVs are read as a replayed step first needs them (docs/record-replay.md,
"Replaying"): one deleted after ``serve --replay`` started, once its session is under way, closed the
live session with a 1011 and a FileNotFoundError traceback (they were all read at the session's start
before). Its audio is now sent as silence of the recorded length, and the log says which WAV and why."""

from __future__ import annotations

import base64
import logging

from tests.integration.test_replay_typed import AGE, NAME, connected, frames, of_type, record, typed_turn


async def test_a_wav_deleted_while_its_session_is_replayed_is_sent_as_silence(engine, recording, caplog):
    async def script(url: str) -> None:
        async with connected(url, "sk-c") as ws:
            for text in (NAME, AGE):
                await typed_turn(ws, text)
                await frames(ws, of_type("response.done"))

    out = await record(recording, script)
    eng = await engine(replay_dir=str(out), replay_speed=0.0)
    async with connected(eng.realtime, "sk-r") as ws:
        await typed_turn(ws, NAME)
        first = await frames(ws, of_type("response.done"))
        for wav in (out / "realtime-0001").glob("*.wav"):
            wav.unlink()
        with caplog.at_level(logging.WARNING, logger="mockengine.replay"):
            await typed_turn(ws, AGE)
            second = await frames(ws, of_type("response.done"))
    audio = [base64.b64decode(e["delta"]) for e in second if e["type"] == "response.output_audio.delta"]
    heard = [base64.b64decode(e["delta"]) for e in first if e["type"] == "response.output_audio.delta"]
    assert second[-1]["response"]["status"] == "completed"
    assert audio and not any(b"".join(audio)) and len(b"".join(heard)) > 0
    transcript = [e["transcript"] for e in second if e["type"] == "response.output_audio_transcript.done"]
    assert transcript and "old" in transcript[0]
    assert "can no longer be read" in caplog.text and ".wav" in caplog.text
