"""The engine's microphone path without aiortc's decoder thread: Opus frames decoded on ``put`` into
PCM16 24 kHz mono, and the thread that aiortc starts blocked until the receiver stops (no network)."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

from mockengine.rtc.inbound import InlineDecoder, _MicrophoneBuffer, decode_inline, discard_inbound
from mockengine.rtc.libopus import opus_decoder
from mockengine.rtc.opus import ReplyEncoder
from tests.webrtc_client import close_pcs


def opus_frames(pcm16: np.ndarray) -> list[bytes]:
    encoder = ReplyEncoder(480)
    return [bytes(encoder.encode(pcm16[i : i + 480].tobytes(), i)) for i in range(0, len(pcm16), 480)]


def test_libopus_loads_from_pyavs_wheel_or_the_system():
    if sys.platform.startswith("linux"):  # PyAV's manylinux wheel bundles libopus (av.libs)
        assert opus_decoder() is not None


@pytest.mark.parametrize("native", [True, False], ids=["libopus-24k", "pyav-resampled"])
def test_opus_frames_come_out_as_24_khz_pcm16_at_once(native):
    sine = (np.sin(np.arange(24 * 400) * 2 * np.pi * 440 / 24_000) * 8000).astype("<i2")
    out: list[bytes] = []
    decoder = InlineDecoder(out.append, native=native)
    opus = SimpleNamespace(name="opus")
    for payload in opus_frames(sine):
        decoder.put((opus, SimpleNamespace(data=payload, timestamp=0)))
    pcm = np.frombuffer(b"".join(out), dtype="<i2")
    assert abs(len(pcm) - len(sine)) <= 480  # the resampler holds back a little, no more
    assert np.abs(pcm[4800:]).max() > 4000  # the tone, at its level
    spectrum = np.abs(np.fft.rfft(pcm[4800:9600]))
    assert abs(np.argmax(spectrum) * 24_000 / 4800 - 440) <= 10  # at its pitch: 24 kHz out


def test_a_bad_frame_is_skipped_and_the_next_one_decodes():
    out: list[bytes] = []
    decoder = InlineDecoder(out.append)
    opus = SimpleNamespace(name="opus")
    decoder.put((opus, SimpleNamespace(data=b"\xff" * 3, timestamp=0)))
    for payload in opus_frames(np.zeros(24 * 100, dtype="<i2")):
        decoder.put((opus, SimpleNamespace(data=payload, timestamp=0)))
    assert out


@pytest.mark.parametrize("install", [decode_inline, discard_inbound])
def test_aiortcs_thread_waits_until_the_receiver_stops(install):
    from aiortc import RTCRtpReceiver

    receiver = RTCRtpReceiver("audio", SimpleNamespace(_register_rtp_receiver=None, state="new"))
    if install is decode_inline:
        install(receiver, lambda _pcm: None)
    else:
        install(receiver)
    queue = receiver._RTCRtpReceiver__decoder_queue  # what aiortc's decoder_worker reads
    got: list[object] = []
    worker = threading.Thread(target=lambda: got.append(queue.get()))
    worker.start()
    worker.join(0.2)
    assert worker.is_alive()  # blocked: no frame ever goes through the thread
    queue.put(None)  # RTCRtpReceiver.stop → __stop_decoder
    worker.join(2)
    assert not worker.is_alive() and got == [None]


def test_a_calls_microphone_rtp_is_handled_in_the_datagram_callback():
    import asyncio

    from aiortc import RTCPeerConnection

    from mockengine.rtc.rtp_inline import receive_rtp_inline

    async def install() -> tuple[bool, object, object]:
        pc = RTCPeerConnection()
        receiver = pc.addTransceiver("audio").receiver
        connection = receiver.transport.transport._connection
        before = connection.data_received
        try:
            return receive_rtp_inline(receiver), before, connection.data_received
        finally:
            await close_pcs(pc)

    installed, before, after = asyncio.run(install())
    assert installed and after is not before  # aioice's queue is no longer the first stop
    fake = SimpleNamespace(transport=SimpleNamespace(_register_rtp_receiver=None, state="new"))
    assert receive_rtp_inline(fake) is False  # not aiortc's layout: its own path stays


def test_a_drivers_rtp_is_counted_and_dropped_before_srtp_and_the_rest_queued():
    from aiortc.rtp import RtpPacket

    from mockengine.rtc.rtp_inline import _RX_BYTES, _RX_PACKETS, drop_rtp_inline

    queued: list[bytes] = []
    connection = SimpleNamespace(data_received=lambda data, _component: queued.append(data))
    dtls = SimpleNamespace(transport=SimpleNamespace(_connection=connection), _rx_srtp=None)
    setattr(dtls, _RX_BYTES, 0)
    setattr(dtls, _RX_PACKETS, 0)
    assert drop_rtp_inline(SimpleNamespace(transport=dtls))
    rtp = RtpPacket(payload_type=111, sequence_number=1, timestamp=960, ssrc=7, payload=b"\x08" * 40)
    rtcp = bytes([0x80, 200, 0, 6]) + bytes(24)  # a sender report (RFC 3550 §6.4.1)
    connection.data_received(rtp.serialize(), 1)  # before the DTLS handshake: aiortc's path
    dtls._rx_srtp = object()  # (never called: the packet is not unprotected)
    connection.data_received(rtp.serialize(), 1)
    connection.data_received(rtcp, 1)
    connection.data_received(b"\x16\xfe\xfd" + bytes(20), 1)  # a DTLS record
    assert queued == [rtp.serialize(), rtcp, b"\x16\xfe\xfd" + bytes(20)]
    assert getattr(dtls, _RX_PACKETS) == 1 and getattr(dtls, _RX_BYTES) == len(rtp.serialize())


PATHS = pytest.mark.parametrize("native", [True, False], ids=["libopus-24k", "pyav-resampled"])


def _decoded_with_timestamps(timestamps: list[int], native: bool = True) -> list[int]:
    """Lengths (bytes) of what the decoder hands on for 20 ms Opus frames at these RTP timestamps."""
    out: list[bytes] = []
    decoder = InlineDecoder(out.append, native=native)
    opus = SimpleNamespace(name="opus")
    payloads = opus_frames(np.zeros(480 * len(timestamps), dtype="<i2"))
    for payload, timestamp in zip(payloads, timestamps, strict=True):
        decoder.put((opus, SimpleNamespace(data=payload, timestamp=timestamp)))
    return [len(pcm) for pcm in out]


def _silence_handed_on(timestamps: list[int], native: bool) -> list[int]:
    """The lengths (bytes) of the silences handed on between frames (all-zero pieces that are not a
    frame's own 20 ms), whichever decoder runs; PyAV's resampler makes its frames' lengths vary."""
    lengths = _decoded_with_timestamps(timestamps, native)
    frame_bytes = 960
    return [n for n in lengths if abs(n - frame_bytes) > 100]


@PATHS
def test_frames_that_follow_on_are_handed_on_as_they_are(native):
    assert _silence_handed_on([0, 960, 1920], native) == []
    if native:
        assert _decoded_with_timestamps([0, 960, 1920]) == [960, 960, 960]  # 20 ms of 24 kHz PCM16 each


@PATHS
def test_the_rtp_time_no_frame_covered_is_handed_on_as_silence_first(native):
    # Opus DTX: the next packet 400 ms after the last one (48 kHz RTP clock); a lost packet: 20 ms.
    # (PyAV's fallback path filled no gap: the silence vanished and the VAD heard a 20th of the quiet.)
    assert _silence_handed_on([0, 960, 960 + 19_200], native) == [18_240]
    if native:
        assert _decoded_with_timestamps([0, 960, 960 + 19_200]) == [960, 960, 18_240, 960]
        assert _decoded_with_timestamps([0, 1920]) == [960, 960, 960]
    else:
        assert (
            sum(_decoded_with_timestamps([0, 1920], native))
            == sum(_decoded_with_timestamps([0, 960], native)) + 960
        )


@PATHS
def test_the_timestamps_wrapping_is_not_a_gap(native):
    assert _silence_handed_on([2**32 - 960, 0, 960], native) == []


@PATHS
def test_a_late_frame_or_a_new_timeline_is_not_filled(native):
    assert _silence_handed_on([1920, 960, 2880], native) == []  # reordered: nothing owed
    assert _silence_handed_on([0, 960 + 48_000 * 60], native) == []  # a minute on: a new timeline


@PATHS
async def test_a_sender_that_stops_sending_is_heard_as_silence_in_real_time(native):
    """Push-to-talk's ``replaceTrack(null)``: frames stop and none shows the gap. The quiet is handed on
    as it passes (not when a next frame comes), and the frame after it owes only what was not."""
    out: list[tuple[float, bytes]] = []
    loop = asyncio.get_running_loop()
    decoder = InlineDecoder(lambda pcm: out.append((loop.time(), pcm)), native=native)
    opus = SimpleNamespace(name="opus")
    payloads = opus_frames(np.zeros(480 * 4, dtype="<i2"))
    began = loop.time()
    for index, payload in enumerate(payloads[:3]):
        decoder.put((opus, SimpleNamespace(data=payload, timestamp=index * 960)))
    await asyncio.sleep(0.6)
    quiet = [(at, pcm) for at, pcm in out if not any(pcm) and len(pcm) % 960 == 0 and at - began > 0.05]
    handed_ms = sum(len(pcm) for _, pcm in quiet) / 48
    # ~550 ms of quiet, handed on as it passed: never more than the wall time since the last frame came,
    # read at the last hand-on (a fixed 620 failed when this shared loop overslept its 0.6 s by 80 ms).
    assert 400 <= handed_ms <= (quiet[-1][0] - began) * 1000, (handed_ms, quiet[-1][0] - began)
    assert quiet[0][0] - began < 0.3  # from ~100 ms on, not at the end
    # The next frame, 1 s of RTP time after the last: only the part not handed on yet is owed.
    before = len(out)
    decoder.put((opus, SimpleNamespace(data=payloads[3], timestamp=3 * 960 + 48_000)))
    owed_ms = sum(len(pcm) for _, pcm in out[before:]) / 48 - 20
    assert abs(handed_ms + owed_ms - 1000) <= 40, (handed_ms, owed_ms)
    decoder.put(None)  # the receiver stops: so does the timer
    settled = len(out)
    await asyncio.sleep(0.2)
    assert len(out) == settled


async def test_frames_dropped_by_a_media_stall_are_heard_as_silence():
    """media_stall: the packets are lost, so the quiet timer hands on silence in their place (the
    frames themselves are not decoded)."""
    out: list[bytes] = []
    decoder = InlineDecoder(out.append)
    opus = SimpleNamespace(name="opus")
    tone = (np.sin(np.arange(480 * 30) * 2 * np.pi * 440 / 24_000) * 8000).astype("<i2")
    payloads = opus_frames(tone)
    decoder.put((opus, SimpleNamespace(data=payloads[0], timestamp=0)))
    decoder.drop_frames()
    for index, payload in enumerate(payloads[1:20], start=1):  # 380 ms of speech, lost
        decoder.put((opus, SimpleNamespace(data=payload, timestamp=index * 960)))
        await asyncio.sleep(0.02)
    after_first = b"".join(out[1:])
    assert len(after_first) >= 200 * 48  # ~380 ms of quiet handed on, in real time
    assert not any(after_first)  # silence: none of the tone
    decoder.put(None)


# -- the jitter buffer's frames, late frames (a receiver's path: _MicrophoneBuffer → InlineDecoder) ----


def _tone_payloads(frames: int, quiet_from: int) -> list[bytes]:
    """Opus frames of a 440 Hz tone, digital silence from frame ``quiet_from`` on."""
    tone = (np.sin(np.arange(480 * frames) * 2 * np.pi * 440 / 24_000) * 8000).astype("<i2")
    tone[480 * quiet_from :] = 0
    return opus_frames(tone)


class _Receiver:
    """What aiortc's receiver does with each packet of the microphone, with the engine's buffer and
    decoder: the buffer takes the packet, and a frame it releases goes to the decoder's ``put``."""

    def __init__(self) -> None:
        self.out: list[tuple[float, bytes]] = []  # (loop time, piece) as handed on
        self.opus = SimpleNamespace(name="opus")
        self.decoder = InlineDecoder(self._sink, codec_of=lambda _payload_type: self.opus)
        self.decoder.buffer = _MicrophoneBuffer(self.decoder.packet_arrived)
        self.payloads = _tone_payloads(60, quiet_from=30)

    def _sink(self, pcm16: bytes) -> None:
        self.out.append((time.monotonic(), pcm16))  # (the event loop's clock)

    def packet(self, index: int, *, timestamp: int | None = None) -> None:
        from aiortc.rtp import RtpPacket

        packet = RtpPacket(
            payload_type=111,
            sequence_number=index,
            timestamp=index * 960 if timestamp is None else timestamp,
            payload=self.payloads[index],
        )
        packet._data = packet.payload  # type: ignore[attr-defined]  # (depayloaded: Opus is its payload)
        assert self.decoder.buffer is not None
        _, frame = self.decoder.buffer.add(packet)
        if frame is not None:
            self.decoder.put((self.opus, frame))

    def pieces(self) -> list[str]:
        """What was handed on, in order: "f" a frame of the tone, "s" silence (or a quiet frame)."""
        return ["f" if _loud(pcm) else "s" for _, pcm in self.out]

    def ms(self, kind: str) -> float:
        return sum(len(pcm) for _, pcm in self.out if _loud(pcm) == (kind == "f")) / 48


def _loud(pcm16: bytes) -> bool:
    return int(np.abs(np.frombuffer(pcm16, dtype="<i2")).max(initial=0)) > 600


async def test_each_packet_is_handed_on_as_it_comes_the_last_before_the_quiet_too():
    """Push-to-talk's release: aiortc's buffer released a frame once a packet of the next one came, so
    the last frame waited for a packet that never came, and the silence took its place."""
    receiver = _Receiver()
    for index in range(5):
        receiver.packet(index)
    assert receiver.pieces() == ["f"] * 5  # none waits for a next packet
    await asyncio.sleep(0.25)
    pieces = receiver.pieces()
    assert pieces[:5] == ["f"] * 5 and set(pieces[5:]) == {"s"}, pieces
    receiver.decoder.put(None)


def test_swapped_packets_are_put_back_in_order():
    receiver = _Receiver()
    for index in (0, 2, 1, 3):
        receiver.packet(index)
    starts = [pcm[:8] for _, pcm in receiver.out]
    reference = _Receiver()
    for index in range(4):
        reference.packet(index)
    assert starts == [pcm[:8] for _, pcm in reference.out] and receiver.pieces() == ["f"] * 4


async def test_packets_held_behind_a_lost_one_are_handed_on_before_the_quiet():
    receiver = _Receiver()
    for index in (0, 1, 3):  # 2 is lost (or late); 3 waits behind its place
        receiver.packet(index)
    assert receiver.pieces() == ["f", "f"]
    await asyncio.sleep(0.25)
    pieces = receiver.pieces()
    # then the lost packet's 20 ms (concealed by libopus) with 3, and the quiet
    assert pieces[:3] == ["f", "f", "f"] and set(pieces[3:]) == {"s"}, pieces
    assert len(receiver.out[2][1]) == 2 * 960
    receiver.decoder.put(None)


def test_a_lost_packet_holds_up_three_packets_not_a_full_buffer():
    """aiortc's buffer waited for a lost packet until 16 were behind it, then let one frame out per
    packet: the input stayed 300 ms late for the rest of the call."""
    receiver = _Receiver()
    for index in (0, 1, 3, 4):
        receiver.packet(index)
    assert receiver.pieces() == ["f", "f"]  # 3 and 4 wait: 2 may be late
    receiver.packet(5)
    assert receiver.pieces() == ["f"] * 5  # 2 given up: its gap (concealed) with 3, then 4, 5 at once
    assert len(receiver.out[2][1]) == 2 * 960
    receiver.packet(2)  # too late: its place was given up (the timeline does not go back)
    receiver.packet(6)
    assert receiver.pieces() == ["f"] * 6 and len(b"".join(pcm for _, pcm in receiver.out)) == 7 * 960


async def _late_burst(receiver: _Receiver, *, burst: bool) -> float:
    """5 frames of a tone in real time, 300 ms with no packet, then 15 frames either at once (held back
    by the link: ``burst``) or in real time (a sender that resumed, its timestamps where it stopped),
    then 10 in real time, then 15 quiet ones in real time. Returns the wall time since the first frame
    (s)."""
    began = time.monotonic()
    for index in range(5):
        receiver.packet(index)
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.3)
    for index in range(5, 20):
        receiver.packet(index)
        if not burst:
            await asyncio.sleep(0.02)
    for index in range(20, 45):
        receiver.packet(index)
        await asyncio.sleep(0.02)
    elapsed = time.monotonic() - began
    receiver.decoder.put(None)
    return elapsed


async def test_frames_that_come_late_are_kept_and_the_input_is_back_on_the_clock_after_the_quiet():
    """A link holds the packets back for 300 ms and delivers them at once: the quiet timer handed on
    silence for that time. Appended after it, they put the input (and every later turn's
    ``audio_start_ms``) ~250 ms ahead of the wall clock for the rest of the call. They are kept whole
    (speech), and the lead is taken from the quiet that follows."""
    receiver = _Receiver()
    elapsed_ms = await _late_burst(receiver, burst=True) * 1000
    loud = [pcm for _, pcm in receiver.out if _loud(pcm)]
    assert len(loud) >= 30 and all(len(pcm) == 960 for pcm in loud[:30])  # every tone frame, whole
    assert receiver.ms("s") >= 150  # the quiet timer's silence while no packet came
    handed_ms = receiver.ms("f") + receiver.ms("s")
    # Not ahead of the clock any more, within the jitter tolerance (it stayed ~250 ms ahead). Only the
    # lead is asserted: on a loaded machine this test's own sleeps overshoot, and time a sender's
    # contiguous timestamps do not cover (gaps under the quiet timer's 100 ms) puts the input behind the
    # wall clock whatever the engine does (2 runs in 9 were ~300 ms behind under load).
    assert handed_ms - elapsed_ms <= 100, (handed_ms, elapsed_ms, receiver.ms("s"))


async def test_a_sender_that_resumes_in_real_time_loses_nothing():
    """The same frames, the timestamps as contiguous (a sender whose clock stood still while it sent
    nothing), but arriving in real time: nothing came late, no quiet is cut either."""
    receiver = _Receiver()
    await _late_burst(receiver, burst=False)
    assert sum(len(pcm) for _, pcm in receiver.out if len(pcm) == 960) // 960 == 45  # every frame, whole


def _tone_with_a_gap(sequence_numbers: list[int], timestamps: list[int], native: bool = True) -> list[bytes]:
    """What the decoder hands on for 20 ms Opus frames of a 440 Hz tone (PCM16 level 8000; frame ``k``
    encoded from the tone's ``k``-th 20 ms), sent with these sequence numbers and RTP timestamps."""
    out: list[bytes] = []
    decoder = InlineDecoder(out.append, native=native)
    opus = SimpleNamespace(name="opus")
    payloads = _tone_payloads(20, quiet_from=20)
    for sequence, timestamp in zip(sequence_numbers, timestamps, strict=True):
        frame = SimpleNamespace(
            data=payloads[timestamp // 960], timestamp=timestamp, sequence_number=sequence
        )
        decoder.put((opus, frame))
    return out


def _rms(pcm16: bytes) -> float:
    return float(np.sqrt(np.mean(np.frombuffer(pcm16, dtype="<i2").astype(np.float64) ** 2)))


def test_a_lost_packet_is_concealed_by_libopus_not_zero_filled():
    """A tester heard whisper take "capital of France" at 10 % loss for "capital of romance": each lost
    packet was 20 ms of digital silence. NetEq conceals it (Opus's PLC, FEC from the next packet)."""
    kept = [k for k in range(12) if k != 6]  # packet 6 lost: sequence number 6 missing, 20 ms of RTP time
    out = _tone_with_a_gap(kept, [k * 960 for k in kept])
    assert [len(piece) for piece in out] == [960] * 6 + [1920] + [960] * 4  # the concealed 20 ms, then 7
    concealed = out[6][:960]
    tone = _rms(b"".join(out[2:6]))  # ~5660 (8000 / √2)
    assert 0.5 * tone < _rms(concealed) < 1.5 * tone, (_rms(concealed), tone)
    samples = np.frombuffer(concealed, dtype="<i2")
    assert np.count_nonzero(samples == 0) < 24  # no hole of zeros in it
    assert _tone_with_a_gap(kept, [k * 960 for k in kept]) == out  # deterministic: same packets, same PCM


def test_a_dtx_gap_and_a_long_loss_stay_silence():
    # DTX: the sender skipped 20 ms on purpose (no sequence number missing): silence, as before
    dtx = _tone_with_a_gap(list(range(11)), [k * 960 for k in range(12) if k != 6])
    assert [len(piece) for piece in dtx] == [960] * 6 + [960, 960] + [960] * 4
    assert not dtx[6].strip(b"\0")
    # 7 packets (140 ms) lost: longer than NetEq's concealment is worth, silence
    kept = [k for k in range(20) if not 5 <= k < 12]
    lost = _tone_with_a_gap(kept, [k * 960 for k in kept])
    assert len(lost[5]) == 7 * 960 and not lost[5].strip(b"\0")
    # 5 packets (100 ms) lost: concealed (PLC fades out as the loss goes on, but is no silence)
    kept = [k for k in range(20) if not 5 <= k < 10]
    concealed = _tone_with_a_gap(kept, [k * 960 for k in kept])
    assert len(concealed[5]) == 6 * 960 and _rms(concealed[5][:960]) > 1000


def test_the_pyav_fallback_still_zero_fills_a_lost_packet():
    """PyAV's decoder takes no empty packet to conceal with: the fallback keeps the silence."""
    kept = [k for k in range(12) if k != 6]
    out = b"".join(_tone_with_a_gap(kept, [k * 960 for k in kept], native=False))
    assert abs(len(out) - 12 * 960) <= 960 and _rms(out) > 1000


def _voice_payloads(frames: int, *, fec: bool) -> list[bytes]:
    """20 ms frames of a two-tone, gliding signal encoded by libopus (SILK at these settings: the mode
    that carries in-band FEC), with FEC on (``OPUS_SET_INBAND_FEC`` 1, 20 % expected loss) or off."""
    import ctypes

    from mockengine.rtc import libopus

    lib = libopus._library()
    assert lib is not None
    encoder = libopus.OpusEncoder(lib)
    if fec:
        encoder._ctl(4012, ctypes.c_int32(1))  # OPUS_SET_INBAND_FEC
        encoder._ctl(4014, ctypes.c_int32(20))  # OPUS_SET_PACKET_LOSS_PERC
    t = np.arange(480 * frames)
    wave = np.sin(t * 2 * np.pi * 220 / 24_000) + 0.5 * np.sin(t * 2 * np.pi * (330 + t / 100) / 24_000)
    pcm = (wave * 6000).astype("<i2")
    return [encoder.encode(pcm[i : i + 480].tobytes()) for i in range(0, len(pcm), 480)]


@pytest.mark.skipif(opus_decoder() is None, reason="no libopus to encode with")
def test_a_lost_packet_is_recovered_from_the_next_ones_in_band_fec():
    """chromium offers ``useinbandfec=1``: its packets carry the previous frame again at a lower rate
    (LBRR), and the decoder recovers the lost frame from the next packet, as NetEq does."""
    errors = {}
    for fec in (True, False):
        payloads = _voice_payloads(16, fec=fec)
        whole: list[bytes] = []
        gap: list[bytes] = []
        for out, lost in ((whole, None), (gap, 10)):
            decoder = InlineDecoder(out.append)
            opus = SimpleNamespace(name="opus")
            for k, payload in enumerate(payloads):
                if k != lost:
                    decoder.put((opus, SimpleNamespace(data=payload, timestamp=k * 960, sequence_number=k)))
        reference = np.frombuffer(whole[10], dtype="<i2").astype(np.float64)
        recovered = np.frombuffer(gap[10][:960], dtype="<i2").astype(np.float64)
        errors[fec] = float(np.sqrt(np.mean((recovered - reference) ** 2))) / _rms(whole[10])
    # measured: FEC's frame within ~3 % of the frame it stands for; PLC's guess ~80 % off
    assert errors[True] < 0.15 and errors[False] > 2 * errors[True], errors
