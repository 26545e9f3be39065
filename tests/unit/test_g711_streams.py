"""G.711 audio is one stream both ways, however a telephone bridge cuts it: the 20 ms frames a Twilio
Media Streams bridge appends (twilio-samples/speech-assistant-openai-realtime-api-python forwards each
160-byte μ-law `media` payload as one `input_audio_buffer.append`) and the deltas it forwards back.

Each frame and each delta used to be resampled as a clip of its own, which put soxr's edge transient at
every boundary: clicks 50 times a second in the caller's audio (up to 14 395 from the clip decoded whole,
on a spoken question peaking at 20 159) and every 200 ms in the reply (up to 7 040)."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np

from mockengine.audio.g711 import G711InputStream, from_pcm16_24k
from mockengine.engines.fakes import FakeSynthesizer
from mockengine.protocol import client_events as ce
from mockengine.recordings.recording import RecordedSession
from mockengine.recordings.restamp import IdMap, Restamper
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
    assert len(framed) == len(ulaw) * 3 * 2  # 3 samples of PCM16 24 kHz per G.711 byte, none held back


def test_odd_sized_appends_are_the_same_stream_too() -> None:
    ulaw = caller_ulaw()
    sizes = [1, 159, 161, 3, 320, 7]
    pieces, offset = [], 0
    while offset < len(ulaw):
        size = sizes[len(pieces) % len(sizes)]
        pieces.append(ulaw[offset : offset + size])
        offset += size
    assert committed_pcm(pieces) == committed_pcm([ulaw])


def test_a_format_change_starts_afresh_and_pcm_passes() -> None:
    stream = G711InputStream()
    ulaw, alaw = b"\x00\x7f" * 400, b"\xd5\x55" * 400
    switched = stream.decode(ulaw, "audio/pcmu") + stream.decode(alaw, "audio/pcma")
    assert len(switched) == (len(ulaw) + len(alaw)) * 3 * 2
    assert switched[len(ulaw) * 6 :] == G711InputStream().decode(alaw, "audio/pcma")
    pcm_tail = b"\x01\x00" * 10
    assert stream.decode(pcm_tail, "audio/pcm") == pcm_tail


def test_nothing_above_the_g711_band_is_added() -> None:
    """An interpolator that is no low-pass (soxr's quick cubic one) mirrors the 0–4 kHz band above 4 kHz,
    energy a telephone line never carries."""
    ulaw = caller_ulaw()
    pcm = np.frombuffer(G711InputStream().decode(ulaw, "audio/pcmu"), "<i2").astype(float)
    power = np.abs(np.fft.rfft(pcm)) ** 2
    above_4k = power[int(len(power) * 4_400 / 12_000) :].sum()
    assert above_4k / power.sum() < 1e-4


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


def test_a_replayed_reply_in_g711_is_its_recorded_wav_encoded_whole() -> None:
    """A replay into a G.711 session re-encodes the recording's reply (journaled as PCM16 24 kHz, one WAV
    per response, 200 ms per delta reference). Each delta encoded as a clip of its own put soxr's edge
    transient at every 200 ms boundary; slices of the WAV encoded once join into it exactly."""
    reply = load_wav_24k(DATA / "question.wav")
    reply = reply[: len(reply) // 9600 * 9600]  # whole 200 ms deltas
    session = RecordedSession("s", Path("."), [], started_at_s=1_700_000_000.0, wavs={"resp_1.wav": reply})
    restamper = Restamper(session, IdMap(1), 1_800_000_000.0)
    deltas = []
    for start_ms in range(0, len(reply) // 48, 200):
        recorded = {"type": "response.output_audio.delta", "response_id": "resp_1", "item_id": "item_1"}
        recorded["delta"] = {"wav": "resp_1.wav", "start_ms": start_ms, "duration_ms": 200}
        deltas.append(base64.b64decode(restamper.event(recorded, "audio/pcmu")["delta"]))
    assert len(deltas) > 3 and all(len(d) == 1600 for d in deltas)
    assert b"".join(deltas) == from_pcm16_24k(reply, "audio/pcmu")
    pcm_delta = restamper.event(recorded, "audio/pcm")["delta"]  # PCM16 still the recorded bytes
    assert base64.b64decode(pcm_delta) == reply[-9600:]
