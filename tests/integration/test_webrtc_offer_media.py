"""The media lines of an offer beyond the microphone are answered ``inactive``: a page that offers its
camera too (``getUserMedia({audio: true, video: true})``, every track added) or a second audio track
sends nothing there; the call has one microphone, its first audio line."""

from __future__ import annotations

import asyncio

from aiortc.mediastreams import VideoStreamTrack

from mockengine.server.webrtc.calls import CALLS
from tests.webrtc_client import CallClient, Microphone


def _media_sections(sdp: str) -> dict[str, list[str]]:
    """Each m= section's attribute lines, by media kind (``audio``, ``video``, ``application``)."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in sdp.splitlines():
        if line.startswith("m="):
            current = sections.setdefault(line[2:].split(" ", 1)[0], [])
        current.append(line)
    return sections


async def test_a_camera_offered_with_the_microphone_is_answered_inactive(engine):
    """Was answered ``recvonly``: the browser sent its camera and aiortc decoded every frame into a
    queue no one read (a 720p camera grew the engine by ~13 MB/s, and cost a decoder thread)."""
    server = await engine()
    client = CallClient()
    camera = VideoStreamTrack()
    client.pc.addTrack(camera)
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        sections = _media_sections(client.answer_sdp)
        assert "a=inactive" in sections["video"], sections["video"]
        assert "a=sendrecv" in sections["audio"]  # the call itself is as before
        call = server.app[CALLS][client.call_id]
        video = next(t for t in call.pc.getTransceivers() if t.kind == "video")
        assert video.currentDirection == "inactive"
        await asyncio.sleep(0.5)  # frames would have gone out by now (30 a second)
        sent = [s for s in (await client.pc.getStats()).values() if s.type == "outbound-rtp"]
        assert all(s.packetsSent == 0 for s in sent if s.kind == "video"), sent
    finally:
        camera.stop()
        await client.close()
    await server.wait_until_idle()


async def test_a_second_audio_track_is_answered_inactive(engine):
    """Was answered ``recvonly`` and decoded too: its frames were appended to the input buffer between
    the first track's, so the session's audio clock ran twice as fast (2 s of a call, 4 s of audio)."""
    server = await engine()
    client = CallClient()
    client.pc.addTrack(Microphone())
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        audio = [line for line in client.answer_sdp.splitlines() if line in ("a=sendrecv", "a=inactive")]
        assert audio == ["a=sendrecv", "a=inactive"], client.answer_sdp
        call = server.app[CALLS][client.call_id]
        directions = [t.currentDirection for t in call.pc.getTransceivers() if t.kind == "audio"]
        assert directions == ["sendrecv", "inactive"]
    finally:
        await client.close()
    await server.wait_until_idle()


async def test_the_answer_asks_for_opus_in_band_fec(engine):
    """The answer carried no Opus fmtp (aiortc's Opus has no parameters), so a browser put no in-band FEC
    in its packets and a lost packet could only be concealed, though the engine decodes FEC. Now the
    answer asks ``useinbandfec=1`` on the offer's Opus payload type, as libwebrtc's and Pion's answers do,
    and no DTX."""
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        audio = _media_sections(client.answer_sdp)["audio"]
        opus = [line.split(" ", 1)[0].removeprefix("a=rtpmap:") for line in audio if "opus/48000/2" in line]
        assert len(opus) == 1, audio
        assert f"a=fmtp:{opus[0]} useinbandfec=1" in audio, audio
        assert not any("usedtx" in line for line in audio)
        call = server.app[CALLS][client.call_id]
        assert call.pc.localDescription.sdp == client.answer_sdp  # what the engine set is what it sent
    finally:
        await client.close()
    await server.wait_until_idle()
