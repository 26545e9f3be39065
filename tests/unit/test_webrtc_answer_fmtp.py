"""``with_opus_fec``: the engine's answer asks for Opus in-band FEC on the offer's payload type."""

from __future__ import annotations

from mockengine.rtc.answer_sdp import with_opus_fec

CHROME_STYLE_ANSWER = "\r\n".join(
    [
        "v=0",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111 0 8",
        "a=rtpmap:111 opus/48000/2",
        "a=rtcp-fb:111 transport-cc",
        "a=rtpmap:0 PCMU/8000",
        "a=rtpmap:8 PCMA/8000",
        "a=sendrecv",
        "m=application 9 UDP/DTLS/SCTP webrtc-datachannel",
        "a=sctp-port:5000",
        "",
    ]
)


def test_fmtp_follows_the_opus_rtpmap_on_its_payload_type():
    lines = with_opus_fec(CHROME_STYLE_ANSWER).split("\r\n")
    assert lines[lines.index("a=rtpmap:111 opus/48000/2") + 1] == "a=fmtp:111 useinbandfec=1"
    assert sum(line.startswith("a=fmtp:") for line in lines) == 1  # nothing for PCMU / PCMA
    assert lines[-1] == ""  # the trailing CRLF stays


def test_an_opus_fmtp_already_there_is_left_alone():
    sdp = CHROME_STYLE_ANSWER.replace("a=rtcp-fb:111", "a=fmtp:111 minptime=10\r\na=rtcp-fb:111")
    assert with_opus_fec(sdp) == sdp


def test_an_answer_without_opus_is_unchanged():
    sdp = "\r\n".join(["v=0", "m=audio 9 UDP/TLS/RTP/SAVPF 0", "a=rtpmap:0 PCMU/8000", ""])
    assert with_opus_fec(sdp) == sdp


def test_each_media_section_is_looked_at_on_its_own():
    second = "\r\n".join(["m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=rtpmap:111 opus/48000/2", "a=inactive", ""])
    sdp = CHROME_STYLE_ANSWER.replace("a=rtcp-fb:111", "a=fmtp:111 minptime=10\r\na=rtcp-fb:111") + second
    assert with_opus_fec(sdp) == sdp.replace(
        "a=rtpmap:111 opus/48000/2\r\na=inactive",
        "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 useinbandfec=1\r\na=inactive",
    )
