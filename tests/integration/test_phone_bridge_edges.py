"""What a telephone bridge (tests/phone_bridge.py, after the Twilio samples) runs into besides the happy
path, against an engine on loopback with the fake engines: a truncate later than the audio sent, odd and
empty G.711 appends, a format switched mid-call, and the caller hanging up mid-reply."""

from __future__ import annotations

import base64
import json
import re
import wave
from typing import Any

import aiohttp
import numpy as np

from mockengine.audio.g711 import G711InputStream, alaw_to_pcm16, from_pcm16_24k
from mockengine.engines.fakes import tone_hz
from mockengine.server.state import JOURNAL
from tests.phone_bridge import sample_session_update
from tests.speech import DATA, load_wav_24k, validate_server_event

TELL_A_STORY = {
    "type": "message",
    "role": "user",
    "content": [{"type": "input_text", "text": "Tell me a long story about a lighthouse keeper."}],
}

HELLO = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi."}]}


class Line:
    """The bridge's engine socket, every event validated against the SDK's types."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []

    async def send(self, event: dict[str, Any]) -> None:
        await self.ws.send_str(json.dumps(event))

    async def until(self, *kinds: str) -> dict[str, Any]:
        while True:
            message = await self.ws.receive(timeout=30)
            assert message.type == aiohttp.WSMsgType.TEXT, message
            event = json.loads(message.data)
            validate_server_event(event)
            self.seen.append(event)
            if event["type"] in kinds:
                return event

    async def reply(self, item: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        """Ask for a reply to ``item``; its response.done and its audio as sent."""
        await self.send({"type": "conversation.item.create", "item": item})
        await self.send({"type": "response.create"})
        start = len(self.seen)
        done = await self.until("response.done")
        audio = b"".join(
            base64.b64decode(e["delta"])
            for e in self.seen[start:]
            if e["type"] == "response.output_audio.delta"
        )
        return done, audio

    def errors(self) -> list[dict[str, Any]]:
        return [e for e in self.seen if e["type"] == "error"]


async def open_line(http: aiohttp.ClientSession, url: str, session: dict[str, Any]) -> Line:
    ws = await http.ws_connect(f"{url}/realtime?model=gpt-realtime", headers={"Authorization": "Bearer sk-1"})
    line = Line(ws)
    await line.until("session.created")
    await line.send(session)
    await line.until("session.updated")
    return line


async def test_a_truncate_past_the_audio_sent_gets_the_services_error(engine) -> None:
    """The samples' elapsed time can run past the reply when its last marks come back late:
    twilio-samples/speech-assistant-openai-realtime-api-python#45 quotes the live error, "Audio content
    of 3700ms is already shorter than 3760ms" (reference §3.7, §8). The call goes on."""
    eng = await engine()
    async with aiohttp.ClientSession() as http:
        line = await open_line(http, eng.url, sample_session_update("audio/pcmu"))
        done, audio = await line.reply(HELLO)
        item_id = done["response"]["output"][0]["id"]
        played_ms = len(audio) // 8
        await line.send(
            {
                "type": "conversation.item.truncate",
                "event_id": "evt_late_mark",
                "item_id": item_id,
                "content_index": 0,
                "audio_end_ms": played_ms + 60,
            }
        )
        error = (await line.until("error"))["error"]
        assert error["code"] == "invalid_value" and error["param"] == "audio_end_ms"
        assert error["event_id"] == "evt_late_mark"
        match = re.fullmatch(r"Audio content of (\d+)ms is already shorter than (\d+)ms", error["message"])
        assert match is not None, error["message"]
        assert abs(int(match[1]) - len(audio) / 8) <= 1 and int(match[2]) == played_ms + 60

        # all of it played: a truncate at its length is fine, and the call goes on
        await line.send(
            {
                "type": "conversation.item.truncate",
                "item_id": item_id,
                "content_index": 0,
                "audio_end_ms": played_ms,
            }
        )
        assert (await line.until("conversation.item.truncated"))["audio_end_ms"] == played_ms
        done, _ = await line.reply(HELLO)
        assert done["response"]["status"] == "completed"
        assert len(line.errors()) == 1
        await line.ws.close()


async def test_odd_and_empty_g711_appends(engine) -> None:
    """G.711 is one byte a sample: an odd-length append is whole samples, every byte counts toward the
    100 ms a commit needs (799 bytes is 99.875 ms), and an empty append is no audio and no error (the
    live service's answer to an empty append is not known: chosen)."""
    eng = await engine()
    session = sample_session_update("audio/pcmu")
    session["session"]["audio"]["input"]["turn_detection"] = None
    async with aiohttp.ClientSession() as http:
        line = await open_line(http, eng.url, session)
        for size in (1, 3, 0, 795):
            await line.send(
                {"type": "input_audio_buffer.append", "audio": base64.b64encode(b"\xff" * size).decode()}
            )
        await line.send({"type": "input_audio_buffer.commit", "event_id": "evt_short"})
        error = (await line.until("error"))["error"]
        assert error["code"] == "input_audio_buffer_commit_empty" and error["event_id"] == "evt_short"
        assert "buffer only has 99.88ms of audio" in error["message"]
        await line.send({"type": "input_audio_buffer.append", "audio": base64.b64encode(b"\x7f").decode()})
        await line.send({"type": "input_audio_buffer.commit"})
        item_id = (await line.until("input_audio_buffer.committed"))["item_id"]
        await line.send({"type": "conversation.item.retrieve", "item_id": item_id})
        item = (await line.until("conversation.item.retrieved"))["item"]
        assert len(base64.b64decode(item["content"][0]["audio"])) == 800  # μ-law back, a byte a sample
        assert len(line.errors()) == 1
        await line.ws.close()


async def test_formats_switched_mid_call(engine) -> None:
    """A bridge that re-sends its session (an agent handoff, openai-agents-js#317) may switch μ-law to
    A-law: audio appended before the switch stays what it was, audio after it is read as the new format,
    and the next reply is in the new format, echoed in session.updated and response.done."""
    eng = await engine()
    session = sample_session_update("audio/pcmu")
    session["session"]["audio"]["input"]["turn_detection"] = None
    async with aiohttp.ClientSession() as http:
        line = await open_line(http, eng.url, session)
        await line.send(
            {"type": "input_audio_buffer.append", "audio": base64.b64encode(b"\xff" * 3200).decode()}
        )
        switched = sample_session_update("audio/pcma")
        switched["session"]["audio"]["input"]["turn_detection"] = None
        await line.send(switched)
        updated = (await line.until("session.updated"))["session"]["audio"]
        assert updated["input"]["format"] == updated["output"]["format"] == {"type": "audio/pcma"}
        await line.send(
            {"type": "input_audio_buffer.append", "audio": base64.b64encode(b"\xd5" * 3200).decode()}
        )
        await line.send({"type": "input_audio_buffer.commit"})
        item_id = (await line.until("input_audio_buffer.committed"))["item_id"]
        await line.send({"type": "conversation.item.retrieve", "item_id": item_id})
        audio = base64.b64decode(
            (await line.until("conversation.item.retrieved"))["item"]["content"][0]["audio"]
        )
        assert len(audio) == 6400  # 800 ms, 400 of each
        assert np.abs(np.frombuffer(alaw_to_pcm16(audio), "<i2")).max() <= 16  # silence both sides of it

        done, reply = await line.reply(HELLO)
        assert done["response"]["audio"]["output"]["format"] == {"type": "audio/pcma"}
        tone = np.frombuffer(alaw_to_pcm16(reply), "<i2").astype(float)
        crossings_hz = np.count_nonzero(np.diff(np.signbit(tone[:8000]))) / 2
        assert abs(crossings_hz - tone_hz("alloy")) < 0.05 * tone_hz("alloy")  # A-law indeed
        assert line.errors() == []
        await line.ws.close()


async def test_a_caller_hanging_up_mid_reply_frees_the_session(engine) -> None:
    """The samples close the engine socket when the phone side goes away (Twilio's `stop`, a dropped
    call) while the reply is still streaming: the engine lets the session go, and takes new calls."""
    eng = await engine(audio_pace=1.0)
    async with aiohttp.ClientSession() as http:
        line = await open_line(http, eng.url, sample_session_update("audio/pcmu"))
        await line.send({"type": "conversation.item.create", "item": TELL_A_STORY})
        await line.send({"type": "response.create"})
        await line.until("response.output_audio.delta")
        assert eng.sessions_active() == 1
        await line.ws.close()
        await eng.wait_until_idle()
        again = await open_line(http, eng.url, sample_session_update("audio/pcmu"))
        done, audio = await again.reply(HELLO)
        assert done["response"]["status"] == "completed" and audio
        await again.ws.close()
    await eng.wait_until_idle()


async def test_a_calls_journal_holds_the_callers_audio_as_one_stream(engine, tmp_path) -> None:
    """The journal's input_audio.wav of a G.711 call is the line decoded as one stream (it decoded each
    20 ms append on its own: a click at every frame)."""
    eng = await engine(journal_dir=str(tmp_path))
    caller = from_pcm16_24k(load_wav_24k(DATA / "question.wav"), "audio/pcmu")
    async with aiohttp.ClientSession() as http:
        line = await open_line(http, eng.url, sample_session_update("audio/pcmu"))
        for offset in range(0, len(caller), 160):
            chunk = base64.b64encode(caller[offset : offset + 160]).decode()
            await line.send({"type": "input_audio_buffer.append", "audio": chunk})
        session_id = line.seen[0]["session"]["id"]
        await line.ws.close()
    await eng.wait_until_idle()
    eng.app[JOURNAL].drain()
    with wave.open(str(tmp_path / session_id / "input_audio.wav"), "rb") as handle:
        journaled = handle.readframes(handle.getnframes())
    assert journaled == G711InputStream().decode(caller, "audio/pcmu")
