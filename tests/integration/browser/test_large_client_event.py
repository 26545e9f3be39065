"""A page that sends a ``session.update`` of ~100 kB on the ``oai-events`` channel (long instructions, or
many tools with long schemas): chromium sends a message only up to the answer's
``a=max-message-size`` (64 KiB when the answer names none, RFC 8841 §6). The aiortc plane's answer
names 262144 and the update applies. The pion plane's named none, so chromium's ``send`` threw
("Trying to send message larger than max-message-size"), and pion/webrtc 3.1's data channel read at
most 65535 bytes a message anyway (``dataChannelBufferSize``); the sidecar's answer now names 262144
and its build raises that buffer to match (mockengine/rtc/pion/build.sh)."""

from __future__ import annotations

import pytest

from tests.integration.browser.conftest import engine_page
from tests.integration.browser.test_agents_sdk import skip_without_pion

pytestmark = pytest.mark.slow  # no model, but a browser

CALL = """async (engine) => {
  const pc = new RTCPeerConnection();
  const channel = pc.createDataChannel("oai-events");
  const events = [];
  channel.onmessage = (message) => events.push(JSON.parse(message.data));
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
  pc.addTrack(microphone.getAudioTracks()[0]);
  await pc.setLocalDescription(await pc.createOffer());
  const answer = await fetch(`${engine}/v1/realtime/calls`, {
    method: "POST", body: pc.localDescription.sdp,
    headers: { Authorization: "Bearer sk-page", "Content-Type": "application/sdp" },
  });
  await pc.setRemoteDescription({ type: "answer", sdp: await answer.text() });
  if (channel.readyState !== "open") await new Promise((open) => channel.addEventListener("open", open));
  const instructions = "Be brief. ".repeat(10000);
  const update = { type: "session.update", session: { type: "realtime", instructions,
    audio: { input: { turn_detection: null } } } };
  let sendError = null;
  try { channel.send(JSON.stringify(update)); } catch (error) { sendError = String(error); }
  const started = performance.now();
  const updated = () => events.find((e) => e.type === "session.updated");
  while (!sendError && !updated() && performance.now() - started < 15000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  pc.close();
  return { sendError, instructionsLength: updated() ? updated().session.instructions.length : null };
}"""


@pytest.mark.parametrize(
    "media_plane",
    ["aiortc", "pion"],
)
async def test_a_session_update_larger_than_64_kib_from_a_browser(
    engine, chromium_path, fake_mic_wav, media_plane
):
    skip_without_pion(media_plane)
    server = await engine(media_plane=media_plane)
    async with engine_page(chromium_path, fake_mic_wav, server.http_url) as page:
        seen = await page.evaluate(CALL, server.http_url)
    await server.wait_until_idle()
    assert seen == {"sendError": None, "instructionsLength": 100_000}, seen
