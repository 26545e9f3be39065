"""What the shell keeps per response (``faults/ws.py``'s delta counts, failures and rule-armed faults,
the WebRTC call's ``ReplyDecoder`` streams and ``CallFaults`` counts) goes however the response ends:
its ``response.done``, or the session ending before one went out (the client leaving, a hang-up, a
fault closing it mid-reply). Kept, it grew with the session's length (a failure, a rule's fault per
reply) or outlived the reply it was for. Engines on loopback with the fake models."""

from __future__ import annotations

import dataclasses
import json

import aiohttp
import pytest

from mockengine.brain.selection import load_library
from mockengine.faults.state import FAULTS
from mockengine.faults.ws import SessionFaults
from mockengine.server.app import create_app
from mockengine.server.webrtc.calls import CALLS
from tests.eventually import eventually
from tests.integration.test_faults_ws import PROMPT, ask, events_until_close, open_session
from tests.webrtc_client import CallClient

RULES = """
name: armed
rules:
  - id: every_reply
    when: {heard_contains: hello}
    say: Hello to you too.
    fault: {kind: error_mid_response, k: 1000}
"""


def live_faults(app, session_id: str) -> SessionFaults:
    return app[FAULTS].live[session_id][0].faults


def kept(faults: SessionFaults) -> dict:
    return {
        "deltas": faults.deltas,
        "audio_deltas": faults.audio_deltas,
        "failures": faults.failures,
        "armed for one response": [r for r in faults.only_response if r is not None],
    }


EMPTY = {"deltas": {}, "audio_deltas": {}, "failures": {}, "armed for one response": []}


async def test_refused_responses_leave_no_failure_behind(engine):
    """``rate_limits`` refuses every response past the first: each failure was kept for the session."""
    server = await engine(audio_pace=0.0)
    async with aiohttp.ClientSession() as http:
        ws, session_id = await open_session(http, server.url, "&fault=rate_limits:responses=1,limit=1000")
        faults = live_faults(server.app, session_id)
        statuses = []
        for _ in range(4):
            await ask(ws, "Hi.", modalities=("text",))
            # rate_limits.updated goes out after response.done, so the writer has acted on the done.
            events, _ = await events_until_close(ws, stop_at="rate_limits.updated")
            statuses.append(next(e for e in events if e["type"] == "response.done")["response"]["status"])
            assert kept(faults) == EMPTY
        assert statuses == ["completed", "failed", "failed", "failed"]
        await ws.close()


async def test_a_rules_fault_for_one_reply_goes_with_that_reply(aiohttp_server, resources, tmp_path):
    """A rule's per-response fault is armed at each firing, for that reply alone: it stayed armed
    (one more entry a reply) after its reply was done."""
    (tmp_path / "armed.yaml").write_text(RULES)
    settings = dataclasses.replace(resources.settings, audio_pace=0.0)
    resources = dataclasses.replace(
        resources, settings=settings, scenarios=load_library(None, [str(tmp_path)])
    )
    app = create_app(settings, resources)
    server = await aiohttp_server(app)
    async with aiohttp.ClientSession() as http:
        base = f"ws://127.0.0.1:{server.port}/v1"
        ws, session_id = await open_session(http, base, "&scenario=armed")
        faults = live_faults(app, session_id)
        for _ in range(3):
            await ask(ws, "Hello there.")
            events, _ = await events_until_close(ws, stop_at="rate_limits.updated")
            assert any(e["type"] == "response.output_audio.delta" for e in events)
            assert kept(faults) == EMPTY
        assert app[FAULTS].snapshot()["live_sessions"] == [session_id]
        await ws.close()


@pytest.mark.parametrize("ending", ["client closes", "close_after_audio_delta"])
async def test_a_reply_cut_by_the_sessions_end_leaves_nothing_behind(engine, ending):
    server = await engine(audio_pace=1.0)
    query = "&fault=close_after_audio_delta:k=2" if ending == "close_after_audio_delta" else ""
    async with aiohttp.ClientSession() as http:
        ws, session_id = await open_session(http, server.url, query)
        faults = live_faults(server.app, session_id)
        await ask(ws, PROMPT)
        while True:  # until the reply is under way
            event = json.loads((await ws.receive(timeout=30)).data)
            assert event["type"] != "response.done"
            if event["type"] == "response.output_audio.delta":
                break
        if ending == "client closes":
            await ws.close()
        else:
            _, closing = await events_until_close(ws, stop_at=None)
            assert closing.type in (
                aiohttp.WSMsgType.CLOSE,
                aiohttp.WSMsgType.CLOSED,
                aiohttp.WSMsgType.ERROR,
            )
    await eventually(lambda: session_id not in server.app[FAULTS].live, message="session still live")
    assert kept(faults) == EMPTY


def story(client: CallClient) -> None:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": PROMPT}]}
    client.send({"type": "conversation.item.create", "item": item})
    client.send({"type": "response.create"})


@pytest.mark.parametrize("format_type", ["audio/pcm", "audio/pcmu"])
async def test_a_call_hung_up_mid_reply_keeps_nothing_of_that_reply(engine, format_type):
    """The reply's decoding stream (one a response, opened at response.created), its delta counts in
    the session's faults and the call's, all went only at a response.done the hang-up never sent."""
    server = await engine(audio_pace=1.0)
    client = CallClient()
    session = {"type": "realtime", "audio": {"output": {"format": {"type": format_type}}}}
    try:
        await client.connect(server.http_url, session=session)
        await client.wait_for("session.created")
        runner = server.app[CALLS][client.call_id]
        story(client)
        await client.wait_for("output_audio_buffer.started", timeout_s=30)
        assert "response.done" not in client.kinds()  # the reply is still streaming: cut by the hang-up
        async with aiohttp.ClientSession() as http:
            auth = {"Authorization": "Bearer sk-test"}
            async with http.post(f"{server.http_url}{client.location}/hangup", headers=auth) as hung:
                assert hung.status == 200
        await eventually(lambda: client.call_id not in server.app[CALLS], message="call still live")
    finally:
        await client.close()
    assert kept(runner.faults) == EMPTY
    assert runner.call_faults.audio_deltas == {}
    assert runner.reply_decoder.open_response_ids == ()


def test_a_journaled_g711_reply_keeps_no_decoder_once_done(tmp_path):
    """A journal writes a G.711 reply's deltas into ``<response_id>.wav`` through one decoder a response;
    response.done closed the WAV but kept the decoder, one more for every reply of the session."""
    from mockengine.server.journal import BackgroundWriter, SessionJournal

    writer = BackgroundWriter()
    journal = SessionJournal(writer, tmp_path / "sess")
    response = {"id": "resp_1", "audio": {"output": {"format": {"type": "audio/pcmu"}}}}
    delta = {"type": "response.output_audio.delta", "response_id": "resp_1", "delta": "//////////8="}
    for event in ({"type": "response.created", "response": response}, delta, delta):
        journal.server(json.dumps(event), "audio/pcmu", "audio/pcm")
    writer.drain()
    files = journal._files  # the writer thread's side: the only place the decoders are seen
    assert files is not None and list(files.decoders) == ["resp_1.wav"]
    journal.server(
        json.dumps({"type": "response.done", "response": {"id": "resp_1"}}), "audio/pcmu", "audio/pcm"
    )
    writer.drain()
    assert files.decoders == {} and files.wavs == {} and files.response_formats == {}
    journal.close()
    writer.close()
