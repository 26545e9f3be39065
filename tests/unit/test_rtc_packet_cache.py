"""Reply packets encoded once and sent again (mockengine.rtc.packet_cache): a call replaying a stretch
another call played gets the same bytes its own encoder would have made, including after the
stretches part ways (no network)."""

from __future__ import annotations

import numpy as np
import pytest

from mockengine.rtc.opus import REPLAY_MAX_FRAMES, ReplyEncoder
from mockengine.rtc.packet_cache import ROOT, PacketCache, chain

FRAME = 480


def speech(seconds: float, seed: int) -> list[bytes]:
    """Noise-modulated tones: a different seed gives different audio from its first frame."""
    rng = np.random.default_rng(seed)
    n = int(24_000 * seconds)
    t = np.arange(n) / 24_000
    pcm = 6000 * np.sin(2 * np.pi * (180 + 40 * rng.random()) * t) + 800 * rng.standard_normal(n)
    samples = pcm.astype("<i2")
    return [samples[i : i + FRAME].tobytes() for i in range(0, n - FRAME + 1, FRAME)]


def play(encoder: ReplyEncoder, frames: list[bytes], silent_after: int = 5) -> list[bytes]:
    """The packets of ``frames`` then of ``silent_after`` silent frames, as the track would ask."""
    out = [bytes(encoder.encode(f, i * FRAME)) for i, f in enumerate(frames)]
    return out + [bytes(encoder.encode(None, (len(frames) + i) * FRAME)) for i in range(silent_after)]


def test_a_second_call_playing_the_same_reply_gets_the_first_ones_packets_from_the_cache():
    cache = PacketCache()
    reply = speech(1.0, seed=1)
    first = play(ReplyEncoder(FRAME, cache), reply)
    assert cache.hits == 0
    second = play(ReplyEncoder(FRAME, cache), reply)
    assert second == first
    assert cache.hits == len(reply) + 3  # every audio frame and the encoder's three flush frames


def test_cached_packets_are_what_the_calls_own_encoder_makes_even_after_the_replies_part():
    cache = PacketCache()
    shared, tail_a, tail_b = speech(0.4, seed=2), speech(0.3, seed=3), speech(0.3, seed=4)
    play(ReplyEncoder(FRAME, cache), shared + tail_a)
    cached = play(ReplyEncoder(FRAME, cache), shared + tail_b)  # hits, then a miss: catch-up
    uncached = play(ReplyEncoder(FRAME, None), shared + tail_b)
    assert cached == uncached
    assert cache.hits == len(shared)


def test_each_stretch_after_silence_starts_from_a_fresh_encoder():
    cache = PacketCache()
    encoder = ReplyEncoder(FRAME, cache)
    reply = speech(0.3, seed=5)
    first = play(encoder, reply)
    again = play(encoder, reply)  # the same call, the same reply later: from the cache
    assert again == first and cache.hits == len(reply) + 3


def test_a_miss_after_a_long_run_of_hits_starts_a_new_stretch_instead_of_catching_up():
    cache = PacketCache()
    shared = speech((REPLAY_MAX_FRAMES + 10) * 0.02, seed=6)
    play(ReplyEncoder(FRAME, cache), shared + speech(0.2, seed=7))
    tail = speech(0.2, seed=8)
    encoder = ReplyEncoder(FRAME, cache)
    packets = play(encoder, shared + tail, silent_after=0)
    fresh = play(ReplyEncoder(FRAME, None), tail, silent_after=0)
    assert packets[len(shared) :] == fresh  # the tail as a stretch of its own
    assert len(encoder._behind) == 0 and encoder._key == _key_after(tail)


def test_a_long_reply_from_the_cache_keeps_at_most_the_catch_up_window_and_nothing_after_it():
    """The frames kept for a catch-up are bounded by REPLAY_MAX_FRAMES however long the cached reply,
    and released when the stretch ends (a CI run saw 1.8 s of one reply's audio kept into the silence)."""
    cache = PacketCache()
    reply = speech((REPLAY_MAX_FRAMES * 3) * 0.02, seed=11)
    first = play(ReplyEncoder(FRAME, cache), reply)
    encoder = ReplyEncoder(FRAME, cache)
    kept = []
    for index, frame in enumerate(reply):
        encoder.encode(frame, index * FRAME)
        kept.append(len(encoder._behind or ()))
    assert max(kept) == REPLAY_MAX_FRAMES and encoder._behind is None
    tail = [bytes(encoder.encode(None, (len(reply) + i) * FRAME)) for i in range(5)]
    assert tail == first[len(reply) :]  # the flush, from the cache too
    assert encoder._behind == []


def _key_after(frames: list[bytes]) -> bytes:
    key = ROOT
    for frame in frames:
        key = chain(key, frame)
    return key


def test_a_cut_sends_silence_at_once_and_the_next_reply_starts_afresh():
    from mockengine.rtc.opus import silent_payload

    cache = PacketCache()
    encoder = ReplyEncoder(FRAME, cache)
    play(encoder, speech(0.2, seed=9), silent_after=0)
    encoder.cut()
    assert bytes(encoder.encode(None, 0)) == silent_payload(FRAME)
    reply = speech(0.2, seed=10)
    assert play(encoder, reply) == play(ReplyEncoder(FRAME, None), reply)


def test_the_cache_is_bounded_in_bytes_least_recently_used_out_first():
    cache = PacketCache(max_bytes=3 * 300)
    keys = [chain(ROOT, bytes([i])) for i in range(4)]
    for key in keys[:3]:
        cache.put(key, bytes(80))
    assert cache.get(keys[0]) is not None  # now the most recently used
    cache.put(keys[3], bytes(80))
    assert cache.size_bytes <= cache.max_bytes
    assert cache.get(keys[1]) is None and cache.get(keys[0]) is not None
    assert PacketCache(max_bytes=0).get(keys[0]) is None


def test_libopus_through_ctypes_makes_pyavs_packets_and_a_reset_is_a_fresh_encoder():
    """The native encoder (mockengine.rtc.libopus) is only a cheaper way to the same bytes: two
    stretches on one call, the second after the encoder was reset, against PyAV's encoder (no cache)."""
    from mockengine.rtc.libopus import opus_encoder

    assert opus_encoder() is not None  # PyAV's wheel bundles libopus
    first, second = speech(0.6, seed=11), speech(0.4, seed=12)
    native, pyav = ReplyEncoder(FRAME, None), ReplyEncoder(FRAME, None, native=False)
    assert play(native, first) + play(native, second) == play(pyav, first) + play(pyav, second)
    assert native._native is not None and pyav._native is None  # each took the path it names
    fresh = ReplyEncoder(FRAME, None)
    assert play(fresh, second) == play(native, second)  # the third stretch: reset == fresh


def test_a_setting_libopus_refuses_falls_back_to_pyavs_encoder(monkeypatch):
    """An older libopus (e.g. before 1.2: no OPUS_SET_PHASE_INVERSION_DISABLED) refuses a setting: the
    reply track still plays, through PyAV's encoder, the same bytes."""
    from mockengine.rtc import libopus

    monkeypatch.setattr(libopus, "_ENCODER_SETTINGS", (*libopus._ENCODER_SETTINGS, (4999, 0)))
    assert libopus.opus_encoder() is None
    reply = speech(0.3, seed=5)
    fallback = ReplyEncoder(FRAME, None)
    assert play(fallback, reply) == play(ReplyEncoder(FRAME, None, native=False), reply)
    assert fallback._native is None


def test_a_library_without_the_encoder_still_decodes(monkeypatch):
    """A libopus build that lacks the encoder's symbols keeps the native decoder; the encoder is PyAV's."""
    import ctypes

    from mockengine.rtc import libopus

    class DecoderOnly(ctypes.CDLL):
        def __getattr__(self, name: str):
            if name.startswith("opus_encode"):
                raise AttributeError(name)
            return super().__getattr__(name)

    monkeypatch.setattr(libopus.ctypes, "CDLL", DecoderOnly)
    lib = libopus._library.__wrapped__()
    assert isinstance(lib, DecoderOnly)
    monkeypatch.setattr(libopus, "_library", lambda: lib)
    assert libopus.opus_encoder() is None
    decoder = libopus.opus_decoder()
    assert decoder is not None
    packet = ReplyEncoder(FRAME, None, native=False).payload(speech(0.02, seed=3)[0], 0)
    assert len(decoder.decode(packet)) == FRAME * 2


def test_a_closed_encoder_is_freed_and_refuses_to_encode():
    from mockengine.rtc.libopus import OpusError, opus_encoder

    encoder = opus_encoder()
    assert encoder is not None
    encoder.close()
    encoder.close()  # idempotent
    with pytest.raises(OpusError):
        encoder.encode(bytes(FRAME * 2))
    reply = ReplyEncoder(FRAME, None)
    first = play(reply, speech(0.1, seed=2))
    reply.close()
    assert reply._native is None
    assert play(reply, speech(0.1, seed=2)) == first  # a new encoder after the close
