"""The reply track is Opus chromium decodes and plays: the engine hands aiortc its own encoded packets
(24 kHz mono libopus, a reused silent packet between replies; mockengine/rtc/opus.py), so a real
WebRTC stack's receive statistics are the proof that what goes on the wire is playable audio."""

from __future__ import annotations

import asyncio

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
  // Generous deadlines: how fast a loaded machine speaks is not what is tested here.
  const inboundNow = async () => {
    let inbound = null;
    (await pc.getStats()).forEach((s) => {
      if (s.type === "inbound-rtp" && s.kind === "audio") inbound = s;
    });
    return inbound;
  };
  let deadline = Date.now() + 180000;
  while (!events.includes("output_audio_buffer.stopped") && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Then 50 more packets (1 s of silence after the reply at 20 ms each) have arrived and been played.
  const atStop = ((await inboundNow()) || {packetsReceived: 0}).packetsReceived;
  deadline = Date.now() + 60000;
  let inbound = await inboundNow();
  while ((!inbound || inbound.packetsReceived < atStop + 50) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    inbound = await inboundNow();
  }
  pc.close();
  return {events, inbound};
}
"""

STALL_MS = 20  # a frame: the engine's loop late by more than this delays a packet past its playout slot


async def _measure_stalls(stalled_ms: list[float]) -> None:
    """Add up how long this event loop (the engine's: it paces the outgoing RTP) could not run for
    more than a frame: a packet it sends late is concealed by the browser for as long, whatever its
    bytes. On a quiet machine this stays near 0; on a loaded one it explains the concealment."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(0.005)
        late_ms = (loop.time() - before - 0.005) * 1000
        if late_ms > STALL_MS:
            stalled_ms.append(late_ms)


async def test_chromium_decodes_and_plays_the_reply_track(engine, chromium_path, fake_mic_wav):
    server = await engine()
    stalls: list[float] = []
    monitor = asyncio.create_task(_measure_stalls(stalls))
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path, args=chromium_args(fake_mic_wav))
        try:
            page = await browser.new_page()
            await page.goto(f"{server.http_url}/")  # same origin as the engine
            stalls.clear()  # from the call on
            result = await page.evaluate(CALL_AND_MEASURE, server.http_url)
        finally:
            monitor.cancel()
            await browser.close()
    await server.wait_until_idle()
    assert "output_audio_buffer.stopped" in result["events"], result["events"]
    inbound = result["inbound"]
    assert inbound is not None and inbound["packetsReceived"] > 50, inbound
    # Every packet sent arrived (loopback; the sender never skips one, it sends late ones at once).
    assert inbound.get("packetsLost", 0) == 0, inbound
    # Decoded and played (48 kHz output samples), with energy: speech, not silence or concealment only.
    assert inbound["totalSamplesReceived"] > 48_000, inbound
    assert inbound["totalAudioEnergy"] > 0.01, inbound
    # Concealed or dropped as too late only as far as the engine's own stalls explain (twice their
    # length: the jitter buffer also grows after one); with no stall these are 20 % and 0 packets.
    stalled_ms = sum(stalls)
    detail = {**inbound, "engine_stalls_ms": [round(s) for s in stalls]}
    assert inbound.get("packetsDiscarded", 0) <= 2 * stalled_ms / STALL_MS, detail
    assert inbound["concealedSamples"] < inbound["totalSamplesReceived"] * 0.2 + 2 * 48 * stalled_ms, detail
