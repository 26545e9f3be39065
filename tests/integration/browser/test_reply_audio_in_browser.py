"""The reply track is Opus chromium decodes and plays: the engine hands aiortc its own encoded packets
(24 kHz mono libopus, a reused silent packet between replies; mockengine/rtc/opus.py), so a real
WebRTC stack's receive statistics are the proof that what goes on the wire is playable audio."""

from __future__ import annotations

import pytest
from playwright.async_api import async_playwright

from tests.integration.browser.conftest import chromium_args

pytestmark = pytest.mark.models

CALL_AND_MEASURE = """
async (base) => {
  const pc = new RTCPeerConnection();
  pc.addTransceiver("audio", {direction: "sendrecv"});
  const player = new Audio();
  pc.ontrack = (e) => { player.srcObject = e.streams[0] || new MediaStream([e.track]); player.play(); };
  const channel = pc.createDataChannel("oai-events");
  const events = [];
  channel.onmessage = (m) => events.push(JSON.parse(m.data).type);
  const opened = new Promise((resolve) => { channel.onopen = resolve; });
  await pc.setLocalDescription(await pc.createOffer());
  const answer = await fetch(`${base}/v1/realtime/calls`, {
    method: "POST", body: pc.localDescription.sdp,
    headers: {Authorization: "Bearer sk-test", "Content-Type": "application/sdp"},
  });
  await pc.setRemoteDescription({type: "answer", sdp: await answer.text()});
  await opened;
  channel.send(JSON.stringify({type: "conversation.item.create", item: {type: "message", role: "user",
    content: [{type: "input_text", text: "Tell me about the weather in Paris."}]}}));
  channel.send(JSON.stringify({type: "response.create"}));
  const deadline = Date.now() + 60000;
  while (!events.includes("output_audio_buffer.stopped") && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));  // silence after the reply, as packets
  let inbound = null;
  (await pc.getStats()).forEach((s) => { if (s.type === "inbound-rtp" && s.kind === "audio") inbound = s; });
  pc.close();
  return {events, inbound};
}
"""


async def test_chromium_decodes_and_plays_the_reply_track(engine, chromium_path, fake_mic_wav):
    server = await engine()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path, args=chromium_args(fake_mic_wav))
        try:
            page = await browser.new_page()
            await page.goto(f"{server.http_url}/")  # same origin as the engine
            result = await page.evaluate(CALL_AND_MEASURE, server.http_url)
        finally:
            await browser.close()
    await server.wait_until_idle()
    assert "output_audio_buffer.stopped" in result["events"], result["events"]
    inbound = result["inbound"]
    assert inbound is not None and inbound["packetsReceived"] > 50, inbound
    assert inbound.get("packetsLost", 0) == 0 and inbound.get("packetsDiscarded", 0) == 0, inbound
    # Decoded and played (48 kHz output samples), with energy: speech, not silence or concealment only.
    assert inbound["totalSamplesReceived"] > 48_000, inbound
    assert inbound["totalAudioEnergy"] > 0.01, inbound
    assert inbound["concealedSamples"] < inbound["totalSamplesReceived"] * 0.2, inbound
