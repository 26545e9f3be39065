"""A page whose microphone sends Opus DTX (its answer SDP asks ``usedtx=1``, as bandwidth-minded voice
apps munge it): chromium then sends one packet per 400 ms while the user is quiet. The engine appends
the time no packet covered as silence (``rtc/inbound.py``), so the turn ends when the speech does.
Decoded as they came, the gaps vanished: with ``silence_duration_ms`` 500 ``speech_stopped`` came
~2.6 s after the speech ended instead of at once, and ``audio_start_ms`` skipped the quiet before it."""

from __future__ import annotations

import pytest

from tests.integration.browser.conftest import engine_page

pytestmark = pytest.mark.slow  # no model (server_vad needs none), but a browser and real-time speech

CALL = """async (engine) => {
  const pc = new RTCPeerConnection();
  const channel = pc.createDataChannel("oai-events");
  const events = [];
  const seen = (type) => new Promise((resolve) => {
    const look = () => {
      const e = events.find((e) => e.type === type);
      if (e) resolve(e); else setTimeout(look, 20);
    };
    look();
  });
  channel.onmessage = (m) => { const e = JSON.parse(m.data); e.at = performance.now(); events.push(e); };
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
  pc.addTrack(microphone.getAudioTracks()[0]);
  await pc.setLocalDescription(await pc.createOffer());
  const minted = await fetch(`${engine}/v1/realtime/client_secrets`, {
    method: "POST",
    headers: { "Authorization": "Bearer sk-page", "Content-Type": "application/json" },
    body: JSON.stringify({ session: { type: "realtime", model: "gpt-realtime", audio: { input: {
      turn_detection: { type: "server_vad", silence_duration_ms: 500, create_response: false } } } } }),
  });
  const answer = await fetch(`${engine}/v1/realtime/calls`, {
    method: "POST",
    body: pc.localDescription.sdp,
    headers: { "Authorization": `Bearer ${(await minted.json()).value}`, "Content-Type": "application/sdp" },
  });
  // The engine's answer asks Opus in-band FEC only; the page asks for DTX as its receiver too.
  // Whatever Opus parameters the answer has (aiortc's plane: useinbandfec=1; pion's adds minptime=10).
  const sdp = (await answer.text()).replace(/a=fmtp:(\\d+) ([^\\r]*useinbandfec=1[^\\r]*)\\r\\n/,
    (_, pt, params) => `a=fmtp:${pt} ${params};usedtx=1\\r\\n`);
  await pc.setRemoteDescription({ type: "answer", sdp });
  const opened = performance.now();
  const sent = async () => {
    let packets = 0;
    (await pc.getStats()).forEach((r) => { if (r.type === "outbound-rtp") packets = r.packetsSent; });
    return packets;
  };
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const quietPackets = await sent();  // the microphone's lead silence: DTX packets only
  const started = await seen("input_audio_buffer.speech_started");
  const stopped = await seen("input_audio_buffer.speech_stopped");
  pc.close();
  return {
    quietPackets, sinceOpenMs: started.at - opened,
    audioStartMs: started.audio_start_ms, audioEndMs: stopped.audio_end_ms,
    wallMs: stopped.at - started.at,
  };
}"""


async def test_a_dtx_microphones_quiet_is_silence_to_turn_detection(engine, chromium_path, question_once_wav):
    server = await engine()
    async with engine_page(chromium_path, question_once_wav, server.http_url) as page:
        seen = await page.evaluate(CALL, server.http_url)
    await server.wait_until_idle()
    # DTX was on: ~1 s of quiet took a few packets, not 50 (else this test proves nothing).
    assert seen["quietPackets"] < 25, seen
    # The session's clock kept the quiet before the question: within 1 s of the time it took.
    assert seen["audioStartMs"] > seen["sinceOpenMs"] - 1000, seen
    # The turn ended as its audio did: the wall time between the two events is the audio's, the
    # 500 ms of silence included (it was ~2.6 s more), give or take a loaded machine.
    assert seen["wallMs"] - (seen["audioEndMs"] - seen["audioStartMs"]) < 1200, seen
