"""WebRTC calls over the wire: aiortc as the client (Opus both ways, the ``oai-events`` data channel),
a real engine on loopback with the real models."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from mockengine.rtc.media import RATE_HZ
from tests.eventually import eventually
from tests.speech import question, validate_server_event, word_error_rate
from tests.webrtc_client import CallClient

pytestmark = pytest.mark.models
SESSION = {
    "type": "realtime",
    "audio": {
        "input": {
            "transcription": {"model": "whisper-1"},
            "turn_detection": {"type": "server_vad", "silence_duration_ms": 500},
        }
    },
}


async def test_a_spoken_question_gets_a_spoken_answer_on_the_track(engine, real_resources):
    server = await engine()
    client = CallClient()
    pcm, _ = question()
    try:
        await client.connect(server.http_url, session=SESSION)
        created = await client.wait_for("session.created")
        assert created["session"]["audio"]["input"]["turn_detection"]["silence_duration_ms"] == 500
        client.mic.say(pcm)
        # The turn's answer: its last, should late microphone packets have split the turn (CallClient).
        done = await client.wait_for_answer(timeout_s=40)
        answer = next(
            i
            for i, e in enumerate(client.events)
            if e["type"] == "response.created" and e["response"]["id"] == done["response"]["id"]
        )
        stopped = await client.wait_for("output_audio_buffer.stopped", after=answer, timeout_s=30)
    finally:
        await client.close()
    for event in client.events:
        validate_server_event(event)
    assert "response.output_audio.delta" not in client.kinds(), "audio deltas went on the data channel"
    said = client.heard_text().lower()  # every piece of the turn, as transcribed
    assert "capital" in said and "france" in said, said
    assert done["response"]["status"] == "completed"
    kinds = client.kinds()[answer:]  # from the answer's response.created on
    started = client.events[answer + kinds.index("output_audio_buffer.started")]
    assert started["response_id"] == stopped["response_id"] == done["response"]["id"]
    assert kinds.index("response.done") < kinds.index("output_audio_buffer.stopped")
    # What came back on the track is the reply: whisper hears the transcript's words in it (the track
    # from the answer's response.created on: before it, silence, or a split turn's cut first answer).
    transcript = next(
        e for e in client.events[answer:] if e["type"] == "response.output_audio_transcript.done"
    )
    reply = bytes(client.heard[client.heard_at[answer][0] :])
    heard = real_resources.transcriber.transcribe(reply, language="en", prompt=None).text
    assert word_error_rate(transcript["transcript"], heard) <= 0.35, (transcript["transcript"], heard)
    assert len(client.heard) / 2 / RATE_HZ > 1.0


def story(client: CallClient) -> None:
    """Ask for a story (a long spoken reply) in text."""
    item = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Tell me a story."}],
    }
    client.send({"type": "conversation.item.create", "item": item})
    client.send({"type": "response.create"})


async def test_barge_in_clears_the_track_and_truncates_at_what_was_sent(engine):
    server = await engine()
    client = CallClient()
    pcm, _ = question()
    # The interruption makes no reply of its own, so what the track plays after the cut is silence.
    quiet = {
        "type": "realtime",
        "audio": {"input": {"turn_detection": {"type": "server_vad", "create_response": False}}},
    }
    try:
        await client.connect(server.http_url, session=quiet)
        await client.wait_for("session.created")
        story(client)
        started = await client.wait_for("output_audio_buffer.started")
        await client.wait_for("response.done")  # the whole reply is made long before it is played
        await asyncio.sleep(1.0)
        client.mic.say(pcm)
        speech = await client.wait_for("input_audio_buffer.speech_started")
        cleared = await client.wait_for("output_audio_buffer.cleared")
        truncated = await client.wait_for("conversation.item.truncated")
        frames_at_cut = client.frames_heard
        # The client's jitter buffer and decoder hold ~0.3 s of the track: once 1 s more of it has been
        # heard since the cut, its last 0.5 s was sent after the cut. (Counted in audio, not waited for
        # in wall time: on a starved machine this loop decoded less than a second's worth in a second.)
        at_cut = client.heard_at[next(i for i, e in enumerate(client.events) if e is cleared)][0]
        await eventually(lambda: len(client.heard) - at_cut >= 2 * RATE_HZ, timeout_s=15)
        tail = bytes(client.heard[-RATE_HZ:])  # the last 0.5 s: silence after the cut
    finally:
        await client.close()
    kinds = client.kinds()
    assert cleared["response_id"] == started["response_id"]
    assert kinds.index("input_audio_buffer.speech_started") < kinds.index("output_audio_buffer.cleared")
    assert kinds.index("output_audio_buffer.cleared") < kinds.index("conversation.item.truncated")
    assert "output_audio_buffer.stopped" not in kinds  # cleared, not played out
    reply = next(e for e in client.events if e["type"] == "response.output_item.done")["item"]
    assert truncated["item_id"] == reply["id"] and truncated["content_index"] == 0
    # The cut is where playback was when the user spoke (the client heard up to there), not the end of
    # the reply the engine had long finished making. The floor counts only the reply's voiced frames the
    # client heard: counted from the call's start, the silence before the reply (and padding while a
    # loaded machine's speech came slower than it played) made it fail (20.5 s heard, cut at 15.9 s).
    full_ms = next(e for e in client.events if e["type"] == "response.output_audio.done")
    heard_ms = client.heard_ms_at(speech)
    reply_voiced_ms = client.heard_ms_at(speech, voiced=True) - client.heard_ms_at(started, voiced=True)
    assert full_ms and 1000 < truncated["audio_end_ms"] < heard_ms + 300
    assert reply_voiced_ms - 1500 < truncated["audio_end_ms"], (reply_voiced_ms, heard_ms)
    assert speech["audio_start_ms"] >= 0 and frames_at_cut > 0
    assert max(abs(int(s)) for s in memoryview(tail).cast("h")) < 600


async def test_output_audio_buffer_clear_from_the_client_cuts_the_reply(engine):
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        story(client)
        started = await client.wait_for("output_audio_buffer.started")
        # 0.6 s of the reply heard (counted on the track, not slept: a starved loop plays less in 0.6 s)
        voiced_at_start = client.heard_at[next(i for i, e in enumerate(client.events) if e is started)][1]
        await eventually(lambda: client.voiced_bytes - voiced_at_start >= 0.6 * 2 * RATE_HZ, timeout_s=15)
        mark = len(client.events)
        client.send({"type": "response.cancel"})
        client.send({"type": "output_audio_buffer.clear", "event_id": "clear_1"})
        cleared = await client.wait_for("output_audio_buffer.cleared", after=mark)
        truncated = await client.wait_for("conversation.item.truncated", after=mark)
    finally:
        await client.close()
    assert cleared["response_id"].startswith("resp_")
    assert 300 < truncated["audio_end_ms"] < 3000
    assert not [e for e in client.events if e["type"] == "error"], client.events


async def test_output_audio_buffer_clear_alone_stops_the_reply(engine):
    """``output_audio_buffer.clear`` without a ``response.cancel`` first "will trigger the server to stop
    generating audio" (the SDK's docstring). The reply streamed on after the cut: its transcript deltas
    past the truncation for seconds, then a ``response.done`` "completed" whose item had no transcript
    while ``…transcript.done`` had the whole of it. Now it ends as a cancelled one does, in barge-in's
    order: ``response.done`` (cancelled), ``output_audio_buffer.cleared``, ``conversation.item.truncated``."""
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        story(client)  # a reply far longer than the moment it takes to clear it: still being made
        await client.wait_for("output_audio_buffer.started")
        mark = len(client.events)
        client.send({"type": "output_audio_buffer.clear"})
        cleared = await client.wait_for("output_audio_buffer.cleared", after=mark)
        truncated = await client.wait_for("conversation.item.truncated", after=mark)
        done = await client.wait_for("response.done", after=mark)
    finally:
        await client.close()
    assert done["response"]["status"] == "cancelled", done["response"]["status"]
    assert done["response"]["status_details"]["reason"] == "client_cancelled"
    after = client.events[mark:]
    assert after.index(done) < after.index(cleared) < after.index(truncated), [e["type"] for e in after]
    assert not [e for e in after[after.index(cleared) :] if e["type"].startswith("response.output_")]
    assert not [e for e in client.events if e["type"] == "error"], client.events


async def test_hangup_ends_the_call_and_unknown_calls_are_404(engine):
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        assert server.sessions_active() == 1
        async with aiohttp.ClientSession() as http:
            auth = {"Authorization": "Bearer sk-test"}
            hung = await http.post(f"{server.http_url}{client.location}/hangup", headers=auth)
            assert hung.status == 200
            at_once = await http.post(f"{server.http_url}{client.location}/hangup", headers=auth)
            assert at_once.status == 404  # ending: no longer live, though not yet gone
            await server.wait_until_idle()
            again = await http.post(f"{server.http_url}{client.location}/hangup", headers=auth)
            assert again.status == 404
            assert (await again.json())["error"]["param"] == "call_id"
            unauthorized = await http.post(f"{server.http_url}{client.location}/hangup")
            assert unauthorized.status == 401
        await eventually(lambda: "closed" in (client.pc.connectionState, client.channel.readyState))
    finally:
        await client.close()


@pytest.mark.parametrize("message", [b"\x00\x01 not json", b'{"type": "response.create"}'])
async def test_a_binary_message_on_the_channel_is_refused_as_a_binary_frame_is(engine, message):
    """A binary message on ``oai-events`` got ``invalid_json`` with the JSON parser's own words in it
    ("unexpected character: line 1 column 1 (char 0)"), or, when it held JSON, was run as an event. It
    gets the WebSocket's ``invalid_event`` for a binary frame, in the channel's words; the call goes on."""
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        mark = len(client.events)
        client.channel.send(message)
        error = await client.wait_for("error", after=mark)
        session = {"type": "realtime", "instructions": "Still here."}
        client.send({"type": "session.update", "session": session})
        updated = await client.wait_for("session.updated", after=mark)
    finally:
        await client.close()
    assert error["error"]["type"] == "invalid_request_error"
    assert error["error"]["code"] == "invalid_event"
    assert error["error"]["message"] == (
        "Expected a text message on the oai-events data channel; binary messages are not supported."
    )
    assert updated["session"]["instructions"] == "Still here."
    assert "response.created" not in client.kinds()[mark:]


async def test_calls_on_a_seeded_engine_each_have_their_own_rtc_id(engine):
    """A seeded engine gave every call the same id (a fresh id factory from the seed each time), the id
    of the session's first function call too: a second call took the first one's place in the
    registry, and the first call ending removed the second's, so its sideband and hangup got 404."""
    server = await engine(seed=7)
    first, second = CallClient(), CallClient()
    auth = {"Authorization": "Bearer sk-test"}
    try:
        await first.connect(server.http_url)
        await second.connect(server.http_url)
        assert first.call_id is not None and second.call_id is not None
        assert first.call_id != second.call_id
        # The live service's call ids are rtc_…, not a function call's call_… (reference §13).
        assert first.call_id.startswith("rtc_u1_") and second.call_id.startswith("rtc_u1_")
        async with aiohttp.ClientSession() as http:
            # Their sessions share an id (seeded); each has its own handle for the control endpoints.
            listed = await (await http.get(f"{server.http_url}/mockengine/sessions")).json()
            assert [(s["handle"], s["transport"]) for s in listed["live"]] == [
                (first.handle, "webrtc"),
                (second.handle, "webrtc"),
            ]
            assert first.handle != second.handle and len(listed["sessions"]) == 1
            hung = await http.post(f"{server.http_url}{first.location}/hangup", headers=auth)
            assert hung.status == 200
            await eventually(lambda: server.sessions_active() == 1)  # the first call is gone
            url = f"{server.url}/realtime?call_id={second.call_id}"
            async with http.ws_connect(url, headers={"Authorization": "Bearer sk-server"}) as ws:
                attached = json.loads((await ws.receive()).data)
            assert attached["type"] == "session.created", attached
            hung = await http.post(f"{server.http_url}{second.location}/hangup", headers=auth)
            assert hung.status == 200
    finally:
        await first.close()
        await second.close()
    # Seeded: the same calls on a fresh engine get the same ids.
    again = await engine(seed=7)
    third = CallClient()
    try:
        await third.connect(again.http_url)
    finally:
        await third.close()
    assert third.call_id == first.call_id


async def test_the_answer_carries_a_loopback_candidate_and_an_ek_secret_opens_a_call(engine):
    server = await engine()
    async with aiohttp.ClientSession() as http:
        minted = await http.post(
            f"{server.http_url}/v1/realtime/client_secrets",
            json={
                "session": {
                    "type": "realtime",
                    "instructions": "Be brief.",
                    "audio": {"output": {"voice": "coral"}},
                }
            },
            headers={"Authorization": "Bearer sk-test"},
        )
        secret = (await minted.json())["value"]
    client = CallClient()
    try:
        await client.connect(server.http_url, key=secret)
        created = await client.wait_for("session.created")
    finally:
        await client.close()
    assert created["session"]["instructions"] == "Be brief."
    assert created["session"]["audio"]["output"]["voice"] == "coral"
    assert " 127.0.0.1 " in client.answer_sdp


@pytest.mark.parametrize(
    ("key", "body", "content_type", "status", "code", "param"),
    [
        (None, "OFFER", "application/sdp", 401, None, None),
        ("sk-wrong", "OFFER", "application/sdp", 401, "invalid_api_key", None),
        ("ek_0000", "OFFER", "application/sdp", 401, "invalid_api_key", None),
        ("sk-test", "v=0\r\nthis is not sdp\r\n", "application/sdp", 400, None, "sdp"),
        ("sk-test", "", "application/sdp", 400, "missing_required_parameter", "sdp"),
        ("sk-test", "OFFER", "application/json", 400, None, None),
        (
            "sk-test",
            {"session": {"type": "realtime", "audio": {"output": {"voice": "nobody"}}}},
            None,
            400,
            "invalid_value",
            "session.audio.output.voice",
        ),
        ("sk-test", {"session": "{not json"}, None, 400, None, "session"),
        # Python's JSON extensions and what UTF-8 cannot carry are not JSON either (they once made a
        # session whose every reply failed, or a 500).
        (
            "sk-test",
            {"session": '{"type": "realtime", "audio": {"output": {"speed": NaN}}}'},
            None,
            400,
            None,
            "session",
        ),
        (
            "sk-test",
            {"session": '{"type": "realtime", "instructions": "\\ud800"}'},
            None,
            400,
            None,
            "session",
        ),
        ("sk-test", {"session": "[" * 100_000 + "]" * 100_000}, None, 400, None, "session"),
        (
            "sk-test",
            {"session": {"type": "realtime", "model": "gpt-4o"}},
            None,
            400,
            "invalid_model",
            "model",
        ),
        # Transcription sessions are served over WebSocket only.
        ("sk-test", {"session": {"type": "transcription"}}, None, 400, "invalid_value", "session.type"),
    ],
)
async def test_bad_calls_get_rest_errors(engine, key, body, content_type, status, code, param):
    server = await engine(api_keys=("sk-test",))
    offer = await CallClient().offer()
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with aiohttp.ClientSession() as http:
        if isinstance(body, dict):
            form = aiohttp.FormData(default_to_multipart=True)
            form.add_field("sdp", offer)
            raw = body["session"]
            form.add_field("session", raw if isinstance(raw, str) else json.dumps(raw))
            reply = await http.post(f"{server.http_url}/v1/realtime/calls", data=form, headers=headers)
        else:
            data = offer if body == "OFFER" else body
            headers["Content-Type"] = content_type
            reply = await http.post(f"{server.http_url}/v1/realtime/calls", data=data, headers=headers)
        error = (await reply.json())["error"]
    assert reply.status == status, error
    assert error["code"] == code and error["param"] == param and error["message"]
    assert server.sessions_active() == 0


@pytest.mark.parametrize(
    ("wrap", "says"),
    [
        # A page's common slip: fetch(url, {body: JSON.stringify(pc.localDescription)}).
        (lambda offer: json.dumps({"type": "offer", "sdp": offer}), "pc.localDescription.sdp"),
        (lambda offer: "hello", "the body is not SDP"),
    ],
    ids=["json-description", "not-sdp"],
)
async def test_a_body_that_is_not_sdp_is_named_so(engine, wrap, says):
    """Was "it has no data channel (m=application)": aiortc parses any text as an empty description,
    which sent the developer looking for a data channel their offer has."""
    server = await engine()
    client = CallClient()
    offer = await client.offer()
    await client.close()
    headers = {"Authorization": "Bearer sk-test", "Content-Type": "application/sdp"}
    async with aiohttp.ClientSession() as http:
        reply = await http.post(f"{server.http_url}/v1/realtime/calls", data=wrap(offer), headers=headers)
        error = (await reply.json())["error"]
    assert (reply.status, error["param"], error["type"]) == (400, "sdp", "invalid_request_error")
    assert says in error["message"] and "data channel" not in error["message"], error
    assert server.sessions_active() == 0


async def test_a_sideband_websocket_sees_and_steers_the_call(engine):
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        async with aiohttp.ClientSession() as http:
            url = f"{server.url}/realtime?call_id={client.call_id}"
            async with http.ws_connect(url, headers={"Authorization": "Bearer sk-server"}) as ws:
                first = json.loads((await ws.receive()).data)
                assert first["type"] == "session.created"
                assert first["session"]["id"] == client.events[0]["session"]["id"]
                ws_events: list[dict] = []
                await ws.send_json(
                    {"type": "session.update", "session": {"type": "realtime", "instructions": "Sideband."}}
                )
                story_item = {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "Tell me a story."}],
                }
                await ws.send_json({"type": "conversation.item.create", "item": story_item})
                await ws.send_json({"type": "response.create"})
                async with asyncio.timeout(30):
                    while not ws_events or ws_events[-1]["type"] != "response.done":
                        msg = await ws.receive()
                        assert msg.type == aiohttp.WSMsgType.TEXT, msg
                        ws_events.append(json.loads(msg.data))
                updated = await client.wait_for("session.updated")
                await client.wait_for("output_audio_buffer.started")  # the call plays the sideband's reply
    finally:
        await client.close()
    assert updated["session"]["instructions"] == "Sideband."
    assert client.events and client.binary_messages == 0  # the data channel carries text messages
    ws_kinds = [e["type"] for e in ws_events]
    assert "session.updated" in ws_kinds and "response.output_audio_transcript.delta" in ws_kinds
    assert "response.output_audio.delta" not in ws_kinds  # audio is the track's


@pytest.mark.parametrize(
    ("key", "call", "code", "close"),
    [("sk-server", "rtc_nope", "call_not_found", 4000), ("ek_123", None, "invalid_api_key", 3000)],
)
async def test_sideband_refusals(engine, key, call, code, close):
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        async with aiohttp.ClientSession() as http:
            url = f"{server.url}/realtime?call_id={call or client.call_id}"
            async with http.ws_connect(url, headers={"Authorization": f"Bearer {key}"}) as ws:
                error = json.loads((await ws.receive()).data)
                closing = await ws.receive()
    finally:
        await client.close()
    assert error["type"] == "error" and error["error"]["code"] == code
    assert closing.type == aiohttp.WSMsgType.CLOSE and closing.data == close


async def test_with_dtx_the_reply_plays_whole_and_silence_is_sparse(engine):
    server = await engine(webrtc_dtx=True)
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        quiet_from = asyncio.get_running_loop().time()
        await asyncio.sleep(1.0)
        quiet_frames = client.frames_heard  # 1 s of silence before any reply: a few keep-alives
        quiet_s = asyncio.get_running_loop().time() - quiet_from  # (more than 1 s on a loaded machine)
        story(client)
        await client.wait_for("response.done", timeout_s=40)
        await client.wait_for("output_audio_buffer.stopped", timeout_s=60)
    finally:
        await client.close()
    # not the 50 a second of the default (aiortc's jitter buffer holds the first few keep-alives back):
    # a keep-alive every 400 ms, and the frames before session.created, over the time that really passed
    assert quiet_frames <= 6 * max(1.0, quiet_s), (quiet_frames, quiet_s)
    transcript = next(e for e in client.events if e["type"] == "response.output_audio_transcript.done")
    words = len(transcript["transcript"].split())
    heard_s = len(client.heard) / 2 / RATE_HZ
    assert heard_s > words * 0.2  # the whole reply came through, frame by frame


async def test_a_g711_session_on_a_call_hears_the_microphone_and_plays_a_reply_in_its_own_format(
    engine, real_resources
):
    """The formats describe audio in events, not the Opus tracks (docs/webrtc.md): the microphone reaches
    a µ-law session as PCM16, and a reply a ``response.create`` asks for in µ-law (the session's output
    being PCM16) is decoded for the track as µ-law; it was taken for PCM16, in the session's format, and
    the track played noise."""
    session = {
        "type": "realtime",
        "audio": {
            "input": {
                "format": {"type": "audio/pcmu"},
                "transcription": {"model": "whisper-1"},
                "turn_detection": {
                    "type": "server_vad",
                    "silence_duration_ms": 500,
                    "create_response": False,
                },
            }
        },
    }
    server = await engine()
    client = CallClient()
    pcm, _ = question()
    try:
        await client.connect(server.http_url, session=session)
        await client.wait_for("session.created")
        client.mic.say(pcm)
        user = await client.wait_for("conversation.item.input_audio_transcription.completed", timeout_s=40)
        client.send(
            {"type": "response.create", "response": {"audio": {"output": {"format": {"type": "audio/pcmu"}}}}}
        )
        done = await client.wait_for("response.done", timeout_s=40)
        await client.wait_for("output_audio_buffer.stopped", timeout_s=30)
    finally:
        await client.close()
    assert "capital" in user["transcript"].lower() and "france" in user["transcript"].lower()
    assert done["response"]["audio"]["output"]["format"] == {"type": "audio/pcmu"}
    transcript = next(e for e in client.events if e["type"] == "response.output_audio_transcript.done")
    heard = real_resources.transcriber.transcribe(bytes(client.heard), language="en", prompt=None).text
    assert word_error_rate(transcript["transcript"], heard) <= 0.35, (transcript["transcript"], heard)
