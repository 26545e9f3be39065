"""G.711 audio is one stream both ways, however a telephone bridge cuts it: the 20 ms frames a Twilio
Media Streams bridge appends (twilio-samples/speech-assistant-openai-realtime-api-python forwards each
160-byte μ-law `media` payload as one `input_audio_buffer.append`) and the deltas it forwards back.

Each frame and each delta used to be resampled as a clip of its own, which put soxr's edge transient at
every boundary: clicks 50 times a second in the caller's audio (up to 14 395 from the clip decoded whole,
on a spoken question peaking at 20 159) and every 200 ms in the reply (up to 7 040)."""

from __future__ import annotations

import base64

from mockengine.audio.g711 import G711InputStream, from_pcm16_24k
from mockengine.engines.fakes import FakeSynthesizer
from mockengine.protocol import client_events as ce
from tests.conftest import make_driver
from tests.speech import DATA, load_wav_24k

FRAME_BYTES = 160  # 20 ms of 8 kHz G.711


def caller_ulaw() -> bytes:
    return from_pcm16_24k(load_wav_24k(DATA / "question.wav"), "audio/pcmu")


def committed_pcm(frames: list[bytes], format_type: str = "audio/pcmu") -> bytes:
    """The user item's PCM16 24 kHz after appending ``frames`` in ``format_type`` and committing."""
    driver = make_driver()
    driver.send(
        ce.SessionUpdate(
            {
                "type": "realtime",
                "audio": {"input": {"format": {"type": format_type}, "turn_detection": None}},
            }
        )
    )
    for frame in frames:
        driver.send(ce.InputAudioBufferAppend(frame))
    driver.send(ce.InputAudioBufferCommit())
    item_id = driver.of_type("input_audio_buffer.committed")[0]["item_id"]
    return bytes(driver.session.conversation.get(item_id).audio)


def test_appends_in_20_ms_frames_are_the_clip_appended_whole() -> None:
    ulaw = caller_ulaw()
    framed = committed_pcm([ulaw[i : i + FRAME_BYTES] for i in range(0, len(ulaw), FRAME_BYTES)])
    assert framed == committed_pcm([ulaw])
    assert len(framed) == len(ulaw) * 3 * 2  # every sample, the held-back ones flushed by the commit


def test_odd_sized_appends_are_the_same_stream_too() -> None:
    ulaw = caller_ulaw()
    sizes = [1, 159, 161, 3, 320, 7]
    pieces, offset = [], 0
    while offset < len(ulaw):
        size = sizes[len(pieces) % len(sizes)]
        pieces.append(ulaw[offset : offset + size])
        offset += size
    assert committed_pcm(pieces) == committed_pcm([ulaw])


def test_a_format_change_flushes_the_old_stream_first() -> None:
    stream = G711InputStream()
    ulaw, alaw = b"\x00\x7f" * 400, b"\xd5\x55" * 400
    out = stream.decode(ulaw, "audio/pcmu") + stream.decode(alaw, "audio/pcma") + stream.flush()
    assert len(out) == (len(ulaw) + len(alaw)) * 3 * 2
    again = G711InputStream()
    pcm_tail = b"\x01\x00" * 10
    joined = again.decode(ulaw, "audio/pcmu") + again.decode(pcm_tail, "audio/pcm")
    assert len(joined) == len(ulaw) * 6 + len(pcm_tail) and joined.endswith(pcm_tail)


def test_reply_deltas_join_into_each_sentence_encoded_whole() -> None:
    driver = make_driver()
    driver.send(
        ce.SessionUpdate({"type": "realtime", "audio": {"output": {"format": {"type": "audio/pcmu"}}}})
    )
    driver.send(
        ce.ConversationItemCreate(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Tell me a story."}],
            }
        )
    )
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    deltas = [base64.b64decode(e["delta"]) for e in driver.of_type("response.output_audio.delta")]
    transcript = driver.of_type("response.output_audio_transcript.done")[0]["transcript"]
    sentences = FakeSynthesizer().synthesize(transcript, voice="alloy")
    expected = b"".join(from_pcm16_24k(segment.pcm16, "audio/pcmu") for segment in sentences)
    assert len(deltas) > len(sentences)  # sentences span several deltas, so there are inner boundaries
    assert b"".join(deltas) == expected
