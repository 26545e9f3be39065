"""Push-to-talk as pages do it: the microphone's sender stops sending when the button is released
(``RTCRtpSender.replaceTrack(null)``), and chromium sends no more RTP at all. The user is quiet; the
real service ends the turn ``silence_duration_ms`` later. The engine heard no packets, hence no silence,
and the turn stayed open until the button was pressed again (``rtc/inbound.py``'s quiet timer now hands
that silence on in real time)."""

from __future__ import annotations

import pytest

from tests.integration.browser.conftest import engine_page

SILENCE_MS = 500
SERVER_VAD = {"type": "server_vad", "silence_duration_ms": SILENCE_MS, "create_response": False}
# semantic_vad runs whisper on the turn; at eagerness high a cut-off thought waits at most 2 s
SEMANTIC_VAD = {"type": "semantic_vad", "eagerness": "high", "create_response": False}

CALL = """async ({ engine, turnDetection }) => {
  const pc = new RTCPeerConnection();
  const channel = pc.createDataChannel("oai-events");
  const events = [];
  const seen = (type, waitMs) => new Promise((resolve) => {
    const until = performance.now() + waitMs;
    const look = () => {
      const e = events.find((e) => e.type === type);
      if (e || performance.now() > until) resolve(e || null); else setTimeout(look, 10);
    };
    look();
  });
  channel.onmessage = (m) => { const e = JSON.parse(m.data); e.at = performance.now(); events.push(e); };
  const microphone = (await navigator.mediaDevices.getUserMedia({ audio: true })).getAudioTracks()[0];
  const sender = pc.addTransceiver("audio", { direction: "sendrecv" }).sender;
  await sender.replaceTrack(microphone);  // the button is held from the start
  await pc.setLocalDescription(await pc.createOffer());
  const answer = await fetch(`${engine}/v1/realtime/calls`, {
    method: "POST",
    body: pc.localDescription.sdp,
    headers: { "Authorization": "Bearer sk-page", "Content-Type": "application/sdp" },
  });
  await pc.setRemoteDescription({ type: "answer", sdp: await answer.text() });
  await new Promise((resolve) => { channel.onopen = resolve; });
  channel.send(JSON.stringify({ type: "session.update", session: { type: "realtime", audio: { input: {
    turn_detection: turnDetection } } } }));
  const started = await seen("input_audio_buffer.speech_started", 30000);
  if (!started) return { started: null };
  // The user lets go of the button mid-question: nothing more is sent.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const packets = async () => {
    let sent = 0;
    (await pc.getStats()).forEach((r) => { if (r.type === "outbound-rtp") sent = r.packetsSent; });
    return sent;
  };
  const released = performance.now();  // (replaceTrack resolves later on a loaded machine)
  await sender.replaceTrack(null);
  const sentAtRelease = await packets();
  const stopped = await seen("input_audio_buffer.speech_stopped", 6000);
  const sentAfter = (await packets()) - sentAtRelease;
  pc.close();
  return {
    started: started.audio_start_ms,
    releaseToStoppedMs: stopped ? stopped.at - released : null,
    audioEndMs: stopped ? stopped.audio_end_ms : null,
    heldMs: released - started.at,
    sentAfter,
  };
}"""


async def _push_to_talk(engine, chromium_path, wav, turn_detection) -> dict:
    server = await engine()
    async with engine_page(chromium_path, wav, server.http_url) as page:
        seen = await page.evaluate(CALL, {"engine": server.http_url, "turnDetection": turn_detection})
    await server.wait_until_idle()
    print("push-to-talk:", turn_detection["type"], seen)
    assert seen["started"] is not None, seen
    assert seen["sentAfter"] < 10, seen  # chromium really stopped sending (else this proves nothing)
    # The turn ends after the quiet (before: no speech_stopped until the button was pressed again).
    assert seen["releaseToStoppedMs"] is not None, seen
    return seen


@pytest.mark.slow  # no model (server_vad needs none), but a browser and real-time speech
async def test_releasing_the_button_ends_the_turn_after_the_silence_duration(
    engine, chromium_path, question_once_wav
):
    seen = await _push_to_talk(engine, chromium_path, question_once_wav, SERVER_VAD)
    # (from the release: the last packets left a little before it; measured 486–501 ms)
    assert SILENCE_MS - 150 <= seen["releaseToStoppedMs"] < SILENCE_MS + 1200, seen
    # The quiet is on the session's clock: the turn's audio ends about the silence after the release
    # (audio_start_ms has the 300 ms prefix padding before the onset).
    held_ms = seen["audioEndMs"] - seen["started"]
    assert abs(held_ms - (seen["heldMs"] + SILENCE_MS)) < 800, seen


@pytest.mark.models  # semantic_vad's whisper
async def test_releasing_the_button_ends_a_semantic_vad_turn(engine, chromium_path, question_once_wav):
    seen = await _push_to_talk(engine, chromium_path, question_once_wav, SEMANTIC_VAD)
    assert seen["releaseToStoppedMs"] < 2000 + 1500, seen  # high's longest wait, and a loaded machine
