"""A WebRTC call from a Chromium page that is closed ends in seconds, not after ICE consent expiry.

Closing a tab shuts its renderer down without closing its peer connections: nothing more arrives from
it, not an RTCP BYE, an SCTP ABORT or a DTLS alert (navigating away, by contrast, closes them). The
engine then held the call ~31 s, until consent freshness failed; it now ends it when the page's port
refuses its packets (``rtc/peer_gone.py``)."""

from __future__ import annotations

import pytest

from mockengine.server.webrtc.calls import CALLS
from tests.eventually import eventually
from tests.integration.browser.conftest import engine_page

pytestmark = pytest.mark.slow  # no model, but a browser

GONE_WITHIN_S = 15.0  # consent expiry would take 30 s; the engine takes ~2 s

CALL = """async (engine) => {
  const pc = new RTCPeerConnection();
  const channel = pc.createDataChannel("oai-events");
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
  pc.addTrack(microphone.getAudioTracks()[0]);
  await pc.setLocalDescription(await pc.createOffer());
  const answer = await fetch(`${engine}/v1/realtime/calls`, {
    method: "POST",
    body: pc.localDescription.sdp,
    headers: { "Authorization": "Bearer sk-page", "Content-Type": "application/sdp" },
  });
  await pc.setRemoteDescription({ type: "answer", sdp: await answer.text() });
  if (channel.readyState !== "open") {
    await new Promise((open) => channel.addEventListener("open", open));
  }
  return answer.status;
}"""


@pytest.mark.parametrize("leave", ["close_page", "navigate_away"])
async def test_a_call_from_a_page_that_goes_away_ends_promptly(engine, chromium_path, fake_mic_wav, leave):
    server = await engine()
    async with engine_page(chromium_path, fake_mic_wav, server.http_url) as page:
        assert await page.evaluate(CALL, server.http_url) == 201
        assert server.sessions_active() == 1
        if leave == "close_page":
            await page.close()
        else:
            await page.goto("about:blank")
        await eventually(lambda: server.sessions_active() == 0, timeout_s=GONE_WITHIN_S)
        assert not server.app[CALLS]
