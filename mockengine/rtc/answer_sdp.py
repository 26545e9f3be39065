"""The engine's SDP answer to a WebRTC offer, as both media planes (aiortc in the engine, the pion
sidecar) send it."""

from __future__ import annotations

OPUS_FMTP = "useinbandfec=1"
"""The Opus parameters of the engine's answer (RFC 7587 §6.1): the engine decodes in-band FEC
(``mockengine/rtc/inbound.py`` recovers a lost frame from the next packet's LBRR), and a browser puts
FEC in its packets only when the answer asks for it. libwebrtc's and Pion's answers carry it by default;
aiortc's Opus has no parameters, so its answer carried no fmtp line and chromium sent no FEC."""


def with_opus_fec(sdp: str) -> str:
    """``sdp`` (an answer) with ``a=fmtp:<pt> useinbandfec=1`` after each ``opus/48000/2`` rtpmap whose
    media section has no fmtp line for that payload type; anything else (an Opus fmtp already there
    included) unchanged."""
    lines = sdp.split("\r\n")
    out: list[str] = []
    section: list[str] = []
    for line in [*lines, "m="]:  # a sentinel ends the last section
        if line.startswith("m="):
            fmtp = {
                held.split(" ", 1)[0].removeprefix("a=fmtp:")
                for held in section
                if held.startswith("a=fmtp:")
            }
            for held in section:
                out.append(held)
                if held.startswith("a=rtpmap:") and held.lower().endswith(" opus/48000/2"):
                    payload_type = held.removeprefix("a=rtpmap:").split(" ", 1)[0]
                    if payload_type not in fmtp:
                        out.append(f"a=fmtp:{payload_type} {OPUS_FMTP}")
            section = []
        section.append(line)
    return "\r\n".join(out)
