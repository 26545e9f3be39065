"""A page whose session makes a ``session.created`` larger than Chromium's data channel takes
(``a=max-message-size:262144`` in its offer): 400 kB of instructions in the call's ``session``. The page
got no event at all, not even a reply to a typed turn (the engine's writer had died on aiortc's refusal);
now it gets an ``event_too_large`` error and the call goes on (docs/webrtc.md)."""

from __future__ import annotations

import pytest

from tests.integration.browser.conftest import engine_page

pytestmark = pytest.mark.slow  # no model, but a browser

CALL = """async (engine) => {
  const pc = new RTCPeerConnection();
  const channel = pc.createDataChannel("oai-events");
  const events = (window.events = []);
  channel.onmessage = (message) => events.push(JSON.parse(message.data));
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
  pc.addTrack(microphone.getAudioTracks()[0]);
  await pc.setLocalDescription(await pc.createOffer());
  const form = new FormData();
  form.set("sdp", pc.localDescription.sdp);
  form.set("session", JSON.stringify({ type: "realtime", instructions: "Be brief. ".repeat(40000) }));
  const answer = await fetch(`${engine}/v1/realtime/calls`, {
    method: "POST", body: form, headers: { Authorization: "Bearer sk-page" },
  });
  await pc.setRemoteDescription({ type: "answer", sdp: await answer.text() });
  if (channel.readyState !== "open") await new Promise((open) => channel.addEventListener("open", open));
  window.say = (text) => {
    const item = { type: "message", role: "user", content: [{ type: "input_text", text }] };
    channel.send(JSON.stringify({ type: "conversation.item.create", item }));
    channel.send(JSON.stringify({ type: "response.create" }));
  };
  return pc.sctp.maxMessageSize;
}"""


async def test_an_event_too_large_for_chromiums_channel_is_an_error_and_the_call_goes_on(
    engine, chromium_path, fake_mic_wav
):
    server = await engine()
    async with engine_page(chromium_path, fake_mic_wav, server.http_url) as page:
        assert await page.evaluate(CALL, server.http_url) == 262144
        seen = "(kind) => window.events.some((e) => e.type === kind)"
        await page.wait_for_function(seen, arg="error", timeout=15_000)
        await page.evaluate("window.say('Hello.')")
        await page.wait_for_function(seen, arg="response.done", timeout=30_000)
        events = await page.evaluate("window.events")
    error = next(e for e in events if e["type"] == "error")["error"]
    assert error["code"] == "event_too_large" and "session.created" in error["message"], error
    assert "session.created" not in [e["type"] for e in events]
