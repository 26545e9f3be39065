"""WebRTC calls on the pion media plane (``serve --media-plane pion``): aiortc as the client over the wire,
a real engine on loopback whose calls' media run in the Go sidecar (mockengine/rtc/pion/).

These need the sidecar built (`make pion`, from Debian's golang-go and golang-github-pion-webrtc.v3-dev).
Where it is not built they skip, saying so, and fail under CI=true (CI must build it)."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import logging
import os
import signal
import time
import weakref

import aiohttp
import pytest
from aiortc.rtcrtpsender import RTCRtpSender

from mockengine.rtc.media import RATE_HZ
from mockengine.rtc.pion.plane import BUILD_NEEDS, PION_PLANE, is_built, sidecar_binary
from mockengine.server.app import create_app
from mockengine.server.state import STATS
from mockengine.server.webrtc.calls import CALLS
from tests.eventually import eventually
from tests.integration import test_webrtc_calls as calls
from tests.integration import test_webrtc_event_too_large as too_large
from tests.integration import test_webrtc_faults as faults
from tests.integration import test_webrtc_microphone_tail as tail
from tests.integration import test_webrtc_peer_gone as peer_gone
from tests.integration import test_webrtc_retrieve_on_call as retrieve
from tests.speech import question, validate_server_event, word_error_rate
from tests.webrtc_client import CallClient, Microphone

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


@pytest.fixture
def pion_engine(engine):
    if not is_built():
        if os.environ.get("CI") != "true":
            pytest.skip(f"the pion sidecar is not built (make pion; {BUILD_NEEDS})")
        sidecar_binary()  # raises SidecarMissing, saying how to build it

    async def start(**overrides):
        return await engine(media_plane="pion", **overrides)

    return start


async def test_a_spoken_question_gets_a_spoken_answer_on_the_track(pion_engine, real_resources):
    server = await pion_engine()
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
    transcript = next(
        e for e in client.events[answer:] if e["type"] == "response.output_audio_transcript.done"
    )
    reply = bytes(client.heard[client.heard_at[answer][0] :])  # (before it: silence, or a cut answer)
    heard = real_resources.transcriber.transcribe(reply, language="en", prompt=None).text
    assert word_error_rate(transcript["transcript"], heard) <= 0.35, (transcript["transcript"], heard)
    assert len(client.heard) / 2 / RATE_HZ > 1.0
    assert server.app[PION_PLANE].ticks > 0


# The aiortc calls' tests, run on the pion plane: the same client, the same assertions.


async def test_barge_in_truncates_at_what_was_sent(pion_engine):
    await calls.test_barge_in_clears_the_track_and_truncates_at_what_was_sent(pion_engine)


async def test_output_audio_buffer_clear_from_the_client(pion_engine):
    await calls.test_output_audio_buffer_clear_from_the_client_cuts_the_reply(pion_engine)


async def test_output_audio_buffer_clear_alone(pion_engine):
    await calls.test_output_audio_buffer_clear_alone_stops_the_reply(pion_engine)


async def test_hangup_and_unknown_calls(pion_engine):
    await calls.test_hangup_ends_the_call_and_unknown_calls_are_404(pion_engine)


async def test_a_binary_message_is_refused(pion_engine):
    await calls.test_a_binary_message_on_the_channel_is_refused_as_a_binary_frame_is(
        pion_engine, b"\x00\x01 not json"
    )


async def test_sideband(pion_engine):
    await calls.test_a_sideband_websocket_sees_and_steers_the_call(pion_engine)


async def test_seeded_call_ids(pion_engine):
    await calls.test_calls_on_a_seeded_engine_each_have_their_own_rtc_id(pion_engine)


async def test_dtx(pion_engine):
    await calls.test_with_dtx_the_reply_plays_whole_and_silence_is_sparse(pion_engine)


async def test_fault_datachannel_close(pion_engine):
    await faults.test_datachannel_close_mid_response(pion_engine)


async def test_fault_media_stall(pion_engine):
    await faults.test_media_stall_keeps_the_connection_up_but_sends_nothing(pion_engine)


async def test_fault_media_stall_mid_reply(pion_engine):
    await faults.test_media_stall_mid_reply_still_ends_the_output_buffer(pion_engine)


async def test_fault_media_stall_mid_speech(pion_engine):
    await faults.test_media_stall_mid_speech_ends_the_turn_after_its_silence(pion_engine)


async def test_fault_server_hangup(pion_engine):
    await faults.test_server_hangup(pion_engine)


async def test_journal_and_counters(pion_engine, tmp_path):
    await faults.test_a_call_is_counted_and_journaled_like_a_websocket_session(pion_engine, tmp_path)


def _sections(sdp: str) -> list[list[str]]:
    sections: list[list[str]] = []
    for line in sdp.splitlines():
        if line.startswith("m="):
            sections.append([])
        if sections:
            sections[-1].append(line)
    return sections


async def test_the_answer_takes_one_microphone_answers_a_camera_inactive_and_asks_for_fec(pion_engine):
    """A camera's line and a second microphone are answered inactive (pion rejected a camera's line with
    port 0 and no ICE credentials, which an aiortc client cannot parse), the microphone's Opus with
    in-band FEC (pion copies the offer's parameters; an aiortc offer has none)."""
    server = await pion_engine()
    client = CallClient()
    client.pc.addTransceiver("video")
    client.pc.addTrack(Microphone())
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
    finally:
        await client.close()
    kinds = [(s[0].split()[0], next(x for x in s if x in DIRECTIONS)) for s in _sections(client.answer_sdp)]
    assert kinds == [
        ("m=audio", "a=sendrecv"),
        ("m=video", "a=inactive"),
        ("m=audio", "a=inactive"),
        ("m=application", "a=sendrecv"),
    ], client.answer_sdp
    microphone = _sections(client.answer_sdp)[0]
    opus = next(x for x in microphone if x.endswith("opus/48000/2")).removeprefix("a=rtpmap:").split()[0]
    assert f"a=fmtp:{opus} useinbandfec=1" in microphone, microphone
    assert "a=candidate:" in client.answer_sdp and " 127.0.0.1 " in client.answer_sdp


DIRECTIONS = ("a=sendrecv", "a=inactive", "a=recvonly", "a=sendonly")


@pytest.mark.parametrize("fault", ["", "?fault=withhold_session_created"])
@pytest.mark.parametrize("leave", ["close", "kill"])
async def test_a_call_whose_client_goes_away_ends_well_before_consent_expiry(
    pion_engine, caplog, leave, fault
):
    """As on the aiortc plane: a client that closes ends its call at once; a killed one's host refuses
    the sidecar's packets (ICMP port unreachable, read from the mux sockets' error queues) and the call
    ends ~2 s later for that reason. It was noticed by ICE only, 10 s after the kill."""
    await peer_gone.test_a_call_whose_client_goes_away_ends_well_before_consent_expiry(
        pion_engine, caplog, leave, fault
    )


async def test_a_killed_clients_refusals_do_not_touch_another_call(pion_engine, caplog):
    """Every call shares the sidecar's socket, and the kernel reports an ICMP error to that socket's next
    read or write whoever's it is (pion's SCTP ends its association on a failed write): the refusals a
    killed client's host sends end its call alone; a call beside it keeps its channel and its replies."""
    caplog.set_level(logging.INFO, logger="mockengine.webrtc")
    server = await pion_engine()
    other = CallClient()
    try:
        await other.connect(server.http_url)
        await other.wait_for("session.created")
        async with peer_gone.client_process(server, "kill", "") as (process, call_id):
            await asyncio.sleep(2.0)
            os.kill(process.pid, signal.SIGKILL)
            await eventually(lambda: call_id not in server.app[CALLS], timeout_s=peer_gone.GONE_WITHIN_S)
        await asyncio.sleep(2.0)  # the refusals of the sidecar's last packets to the dead port
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello."}]}
        other.send({"type": "conversation.item.create", "item": item})
        other.send({"type": "response.create"})
        done = await other.wait_for("response.done", timeout_s=30.0)
        assert other.call_id in server.app[CALLS] and server.app[STATS].sessions_active == 1
    finally:
        await other.close()
    assert done["response"]["status"] == "completed"
    assert "refuses the call's packets" in caplog.text


async def test_a_client_that_stops_answering_is_freed_at_consent_expiry(pion_engine, caplog):
    """A frozen client (no ICMP comes back; it may yet return) is freed at consent expiry, ~30 s, as on
    the aiortc plane, not 10 s after its last answer as pion's default-ish timeouts had it."""
    caplog.set_level(logging.INFO, logger="mockengine.webrtc")
    server = await pion_engine()
    async with peer_gone.client_process(server, "freeze", "") as (process, call_id):
        await asyncio.sleep(2.0)
        assert call_id in server.app[CALLS]
        os.kill(process.pid, signal.SIGSTOP)
        frozen = time.monotonic()
        try:
            await eventually(
                lambda: call_id not in server.app[CALLS], timeout_s=peer_gone.CONSENT_EXPIRY_S + 30
            )
        finally:
            os.kill(process.pid, signal.SIGCONT)
        freed_after_s = time.monotonic() - frozen
        print(f"frozen client freed after {freed_after_s:.1f} s")
        await eventually(lambda: server.app[STATS].sessions_active == 0, timeout_s=5.0)
    assert peer_gone.CONSENT_EXPIRY_S - 5 <= freed_after_s <= peer_gone.CONSENT_EXPIRY_S + 10
    assert "refuses the call's packets" not in caplog.text


async def test_a_bad_offer_is_a_400_and_frees_its_seat(pion_engine):
    await calls.test_bad_calls_get_rest_errors(
        pion_engine, "sk-test", "v=0\r\nthis is not sdp\r\n", "application/sdp", 400, None, "sdp"
    )


# Events over pion/sctp's own 64 KiB: build.sh raises its cap to aiortc's 256 KiB, so an event up to the
# offer's a=max-message-size goes whole, as on the aiortc plane; a larger one is handled as there.


async def test_an_event_over_64_kib_arrives_whole_as_on_the_aiortc_plane(pion_engine):
    """A 150 kB ``session.created`` (long instructions) within the aiortc client's 262,144 bytes: pion's
    SCTP refused it (over its 64 KiB), the engine then sent it as ``event_too_large``; now it arrives,
    and the channel carries the rest of the call."""
    server = await pion_engine()
    client = CallClient()
    instructions = "Be brief. " * 15_000
    try:
        await client.connect(server.http_url, session={"type": "realtime", "instructions": instructions})
        created = await client.wait_for("session.created", timeout_s=15.0)
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello."}]}
        client.send({"type": "conversation.item.create", "item": item})
        client.send({"type": "response.create"})
        done = await client.wait_for("response.done", timeout_s=30.0)
    finally:
        await client.close()
    assert created["session"]["instructions"] == instructions
    assert "error" not in client.kinds(), [e for e in client.events if e["type"] == "error"]
    assert done["response"]["status"] == "completed"


@pytest.mark.parametrize("instructions_chars", [100_000, 250_000])
async def test_a_client_event_over_64_kib_is_read_whole_as_on_the_aiortc_plane(
    pion_engine, instructions_chars
):
    """A ``session.update`` of ~100 kB (long instructions, many tools) and one near aiortc's 262,144
    bytes: the sidecar's answer named no ``a=max-message-size``, so the client sent at most 64 KiB
    (aiortc's send raised, as chromium's does), and pion/webrtc 3.1 read at most 65,535 bytes a message.
    Now the answer names 262144 as the aiortc plane's does and the update applies whole."""
    server = await pion_engine()
    client = CallClient()
    instructions = "Be brief. " * (instructions_chars // 10)
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        client.send({"type": "session.update", "session": {"type": "realtime", "instructions": instructions}})
        updated = await client.wait_for("session.updated", timeout_s=15.0)
        client.send({"type": "session.update", "session": {"type": "realtime", "instructions": "Hi."}})
        after = await client.wait_for("session.updated", after=client.kinds().index("session.updated") + 1)
    finally:
        await client.close()
    assert "a=max-message-size:262144" in client.answer_sdp.split("\r\n")
    assert updated["session"]["instructions"] == instructions
    assert after["session"]["instructions"] == "Hi."  # and the channel goes on
    assert "error" not in client.kinds(), [e for e in client.events if e["type"] == "error"]


async def test_an_event_over_the_offers_limit_is_an_error_and_the_call_goes_on(pion_engine):
    await too_large.test_an_event_over_the_peers_max_message_size_is_an_error_and_the_call_goes_on(
        pion_engine
    )


async def test_a_retrieved_item_too_large_comes_without_its_audio(pion_engine):
    await retrieve.test_a_retrieved_item_too_large_for_the_channel_comes_without_its_audio(pion_engine)


async def test_frames_held_back_leave_the_input_on_the_wall_clock(pion_engine):
    await tail.test_frames_held_back_past_the_quiet_timer_leave_the_input_on_the_wall_clock(pion_engine)


async def test_a_g711_only_offer_is_refused_saying_so_and_frees_its_seat(pion_engine):
    """The aiortc plane takes an offer whose microphone has only PCMU (aiortc's G.711 codecs); the sidecar
    negotiates Opus only, and refused it as pion words it ("RTPSender created with no codecs"). Now the
    400 says what is missing and where such a call is served; the seat is given back."""
    server = await pion_engine()
    client = CallClient()
    pcmu = [c for c in RTCRtpSender.getCapabilities("audio").codecs if c.mimeType == "audio/PCMU"]
    client.pc.getTransceivers()[0].setCodecPreferences(pcmu)
    try:
        with pytest.raises(AssertionError) as refused:
            await client.connect(server.http_url)
    finally:
        await client.close()
    status, body = str(refused.value).split(": ", 1)
    error = json.loads(body)["error"]
    assert status == "400" and error["type"] == "invalid_request_error" and error["param"] == "sdp", error
    assert "offers no Opus" in error["message"] and "aiortc" in error["message"], error
    assert server.app[STATS].sessions_active == 0 and not server.app[CALLS]
    opus_client = CallClient()  # and the next call, with Opus, is served
    try:
        await opus_client.connect(server.http_url)
        await opus_client.wait_for("session.created")
    finally:
        await opus_client.close()


@pytest.mark.parametrize("ending", ["hangup", "client_close"])
async def test_nothing_of_a_call_is_reachable_after_it_ends(pion_engine, ending):
    """As test_webrtc_memory_release's aiortc case: once a call has ended, its runner, session, track,
    channel and microphone decoder are unreachable, the seat given back."""
    server = await pion_engine()
    warm = CallClient()
    await warm.connect(server.http_url)
    await warm.wait_for("session.created")
    await warm.close()
    await server.wait_until_idle(timeout_s=20.0)

    client = CallClient()
    await client.connect(server.http_url)
    await client.wait_for("session.created")
    pcm, _ = question()
    client.mic.say(pcm + bytes(48_000))
    await client.wait_for("response.done", timeout_s=40)
    runner = server.app[CALLS][client.call_id]
    parts = {
        "runner": runner,
        "session": runner.session,
        "track": runner.track,
        "channel": runner.channel,
        "sender": runner.sender,
        "microphone": runner.microphones[0],
    }
    refs = {name: weakref.ref(part) for name, part in parts.items() if part is not None}
    del runner, parts
    call_id = client.call_id
    if ending == "hangup":
        await _hang_up(server, call_id)
    else:
        await client.close()
    await eventually(lambda: call_id not in server.app[CALLS], timeout_s=20.0)
    await server.wait_until_idle(timeout_s=20.0)
    await client.close()
    del client

    def left() -> dict[str, list[str]]:
        gc.collect()
        alive = {}
        for name, ref in refs.items():
            part = ref()
            if part is not None:
                alive[name] = sorted({type(r).__name__ for r in gc.get_referrers(part)})
            del part
        return alive

    await eventually(lambda: not left(), timeout_s=10.0, message=lambda: f"still reachable: {left()}")
    assert server.sessions_active() == 0


async def _hang_up(server, call_id: str) -> None:
    async with aiohttp.ClientSession() as http:
        url = f"{server.http_url}/v1/realtime/calls/{call_id}/hangup"
        reply = await http.post(url, headers={"Authorization": "Bearer sk-test"})
        assert reply.status == 200


# The engine stopping (SIGINT, SIGTERM) with calls live: the sidecar closed its calls' peer connections
# in goroutines and returned from main at once, and an 'H' (the engine's hangup on shutdown) did its
# close in a goroutine whose 'ended' write to the gone engine exited the process first: the page then
# saw nothing (1 in 2-4 stops in a browser) and waited for consent expiry. Several stops in a row, so a
# race shows.

STOPS = 4
CLOSE_SEEN_S = 10.0  # how long the client waits for the DTLS close; not a timing claim (it takes ms)


@pytest.mark.parametrize("how", ["engine_stops", "socket_closes", "sidecar_terminated"])
async def test_an_engine_stopping_closes_each_live_call_where_its_client_sees_it(
    aiohttp_server, resources, how
):
    """``engine_stops``: the engine's shutdown, as on SIGINT (it hangs its calls up, then closes the
    sidecar's socket); ``socket_closes``: the socket closes with the calls live (the engine killed);
    ``sidecar_terminated``: a SIGTERM for the sidecar alone (it died at once, Go's default)."""
    if not is_built():
        pytest.skip(f"the pion sidecar is not built (make pion; {BUILD_NEEDS})")
    settings = dataclasses.replace(resources.settings, media_plane="pion")
    unseen = []
    for stop in range(STOPS):
        app = create_app(settings, dataclasses.replace(resources, settings=settings))
        server = await aiohttp_server(app)
        clients = [CallClient(), CallClient()]
        try:
            for client in clients:
                await client.connect(f"http://127.0.0.1:{server.port}", session=SESSION)
                await client.wait_for("session.created")
            closed = [asyncio.Event() for _ in clients]
            for client, event in zip(clients, closed, strict=True):
                client.channel.on("close", event.set)
            if how == "engine_stops":
                await server.close()
            elif how == "socket_closes":
                await app[PION_PLANE].stop()
            else:
                os.kill(app[PION_PLANE].process.pid, signal.SIGTERM)
            for number, event in enumerate(closed):
                try:
                    await asyncio.wait_for(event.wait(), CLOSE_SEEN_S)
                except TimeoutError:
                    unseen.append((stop, number))
        finally:
            await asyncio.gather(*(client.close() for client in clients))
    assert not unseen, f"(stop, call) whose client saw no close of its channel: {unseen}"
