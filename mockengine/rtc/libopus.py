"""Opus straight to PCM16 24 kHz mono: libopus's own decoder at the session's rate.

libopus decodes natively at 8, 12, 16, 24 or 48 kHz, mono or stereo, whatever the sender encoded. PyAV
(FFmpeg's libopus wrapper) always asks it for 48 kHz, so the microphone then needs a resampler: a
py-spy profile of the engine under 10 talking calls had the decode and that resample at ~22 % of its
busy time (~77 µs a frame; this decoder ~31 µs). :class:`OpusDecoder` calls libopus through ctypes:
the copy bundled with PyAV's wheel (``av.libs``, always there with the ``av`` dependency) or else the
system's ``libopus.so.0``. :func:`opus_decoder` returns None when neither loads, and the caller keeps
PyAV's decoder and resampler.

:class:`OpusEncoder` is the reply track's encoder on the same library, set up as PyAV's (FFmpeg's
``libopusenc``) sets it up for the engine's options (24 kHz mono, 32 kb/s, ``voip``, complexity 10,
unconstrained VBR, no FEC, no DTX): the packets are byte for byte PyAV's (a test compares them). It
costs ~25 % less a frame than PyAV's (no ``AudioFrame`` per frame, and ctypes releases the GIL while
libopus runs), and a fresh stretch is ``OPUS_RESET_STATE`` (~2 µs) instead of a new codec context
(~400 µs to open and free).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import logging
import os
from functools import cache

import av

RATE_HZ = 24_000
MAX_FRAME_SAMPLES = RATE_HZ * 120 // 1000  # the longest Opus packet: 120 ms
log = logging.getLogger("mockengine.rtc")


@cache
def _library() -> ctypes.CDLL | None:
    package = os.path.dirname(av.__file__)
    bundled = glob.glob(os.path.join(package, os.pardir, "av.libs", "libopus*.so*"))
    bundled += glob.glob(os.path.join(package, ".dylibs", "libopus*.dylib"))
    system = ctypes.util.find_library("opus")
    for path in [*sorted(bundled), *([system] if system else [])]:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if _declare_decoder(lib):
            _declare_encoder(lib)  # a library without the encoder still decodes
            return lib
    return None


def _declare_decoder(lib: ctypes.CDLL) -> bool:
    if not all(hasattr(lib, name) for name in _DECODER_SYMBOLS):
        return False
    lib.opus_decoder_create.restype = ctypes.c_void_p
    lib.opus_decoder_create.argtypes = [ctypes.c_int32, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
    lib.opus_decode.restype = ctypes.c_int
    lib.opus_decode.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.c_int32,
        ctypes.c_void_p,
        ctypes.c_int,
        ctypes.c_int,
    ]
    lib.opus_decoder_destroy.argtypes = [ctypes.c_void_p]
    return True


def _declare_encoder(lib: ctypes.CDLL) -> bool:
    if not _has_encoder(lib):
        return False
    lib.opus_encoder_create.restype = ctypes.c_void_p
    c_int, c_int32, c_void_p = ctypes.c_int, ctypes.c_int32, ctypes.c_void_p
    lib.opus_encoder_create.argtypes = [c_int32, c_int, c_int, ctypes.POINTER(c_int)]
    lib.opus_encode.restype = ctypes.c_int32
    lib.opus_encode.argtypes = [c_void_p, ctypes.c_char_p, c_int, c_void_p, c_int32]
    lib.opus_encoder_destroy.argtypes = [ctypes.c_void_p]
    # Variadic: only the fixed arguments are declared, so ctypes passes the rest as variadic ones.
    lib.opus_encoder_ctl.restype = ctypes.c_int
    lib.opus_encoder_ctl.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return True


def _has_encoder(lib: ctypes.CDLL) -> bool:
    return all(hasattr(lib, name) for name in _ENCODER_SYMBOLS)


_DECODER_SYMBOLS = ("opus_decoder_create", "opus_decode", "opus_decoder_destroy")
_ENCODER_SYMBOLS = ("opus_encoder_create", "opus_encode", "opus_encoder_destroy", "opus_encoder_ctl")


class OpusError(ValueError):
    """libopus refused a packet (its negative error code is in the message)."""


class OpusDecoder:
    """One stream's decoder state: ``decode(packet)`` → PCM16 24 kHz mono bytes."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self._lib = lib
        error = ctypes.c_int()
        self._state = lib.opus_decoder_create(RATE_HZ, 1, ctypes.byref(error))
        if error.value != 0 or not self._state:
            raise OpusError(f"opus_decoder_create failed ({error.value})")
        self._out = ctypes.create_string_buffer(MAX_FRAME_SAMPLES * 2)

    def decode(self, packet: bytes) -> bytes:
        samples = self._lib.opus_decode(self._state, packet, len(packet), self._out, MAX_FRAME_SAMPLES, 0)
        if samples < 0:
            raise OpusError(f"opus_decode failed ({samples})")
        return ctypes.string_at(self._out, samples * 2)

    def conceal(self, samples: int, next_packet: bytes) -> bytes:
        """PCM16 24 kHz mono for ``samples`` (a multiple of 2.5 ms, up to 120 ms) of lost frames, before
        ``next_packet`` is decoded: libopus's packet loss concealment for all but the last frame's time,
        which it recovers from ``next_packet``'s in-band FEC (LBRR) where that carries it, and conceals
        as well where not (``opus_decode`` with ``decode_fec`` 1, as NetEq asks it). Raises
        :class:`OpusError` when libopus refuses (e.g. a length not a multiple of 2.5 ms)."""
        got = self._lib.opus_decode(self._state, next_packet, len(next_packet), self._out, samples, 1)
        if got < 0:
            raise OpusError(f"opus_decode (FEC/PLC) failed ({got})")
        return ctypes.string_at(self._out, got * 2)

    def __del__(self) -> None:
        state, self._state = getattr(self, "_state", None), None
        if state:
            self._lib.opus_decoder_destroy(state)


APPLICATION_VOIP = 2048
RESET_STATE = 4028
MAX_PACKET_BYTES = 1500
# (request, value) as FFmpeg's libopusenc sets them for the engine's options (opus.py's _encoder).
_ENCODER_SETTINGS = (
    (4002, 32_000),  # OPUS_SET_BITRATE
    (4010, 10),  # OPUS_SET_COMPLEXITY (FFmpeg's default compression_level)
    (4006, 1),  # OPUS_SET_VBR
    (4020, 0),  # OPUS_SET_VBR_CONSTRAINT: FFmpeg's vbr "on" is unconstrained
    (4014, 0),  # OPUS_SET_PACKET_LOSS_PERC
    (4012, 0),  # OPUS_SET_INBAND_FEC
    (4016, 0),  # OPUS_SET_DTX
    (4046, 0),  # OPUS_SET_PHASE_INVERSION_DISABLED
)


class OpusEncoder:
    """One stream's encoder: ``encode(pcm16)`` of one frame of PCM16 24 kHz mono → one Opus packet.

    Raises :class:`OpusError` when libopus refuses a call (e.g. a setting an older library does not
    implement). One thread only uses an encoder (the event loop's): libopus's state is not shared.
    :meth:`close` frees it; a closed encoder raises :class:`OpusError`.
    """

    def __init__(self, lib: ctypes.CDLL) -> None:
        self._lib = lib
        error = ctypes.c_int()
        self._state = lib.opus_encoder_create(RATE_HZ, 1, APPLICATION_VOIP, ctypes.byref(error))
        if error.value != 0 or not self._state:
            raise OpusError(f"opus_encoder_create failed ({error.value})")
        try:
            for request, value in _ENCODER_SETTINGS:
                self._ctl(request, ctypes.c_int32(value))
        except OpusError:
            self.close()
            raise
        self._out = ctypes.create_string_buffer(MAX_PACKET_BYTES)

    def _ctl(self, request: int, *args: object) -> None:
        result = self._lib.opus_encoder_ctl(self._live_state(), request, *args)
        if result != 0:
            raise OpusError(f"opus_encoder_ctl({request}) failed ({result})")

    def _live_state(self) -> int:
        if not self._state:
            raise OpusError("the encoder is closed")
        return self._state

    def encode(self, pcm16: bytes) -> bytes:
        size = self._lib.opus_encode(self._live_state(), pcm16, len(pcm16) // 2, self._out, MAX_PACKET_BYTES)
        if size < 0:
            raise OpusError(f"opus_encode failed ({size})")
        return ctypes.string_at(self._out, size)

    def reset(self) -> None:
        """Back to the state of a freshly created encoder (libopus's ``OPUS_RESET_STATE``)."""
        self._ctl(RESET_STATE)

    def close(self) -> None:
        """Free libopus's state now (idempotent)."""
        state, self._state = getattr(self, "_state", None), None
        if state:
            self._lib.opus_encoder_destroy(state)

    def __del__(self) -> None:
        self.close()


def opus_encoder() -> OpusEncoder | None:
    """A 24 kHz mono encoder on libopus set up as the reply track's, or None where none loads, the library
    has no encoder or refuses one of the settings (an older libopus): the caller then uses PyAV's."""
    lib = _library()
    if lib is None or not _has_encoder(lib):
        return None
    try:
        return OpusEncoder(lib)
    except OpusError as exc:
        log.warning("libopus's encoder is not usable (%s): PyAV encodes the reply track", exc)
        return None


def opus_decoder() -> OpusDecoder | None:
    """A 24 kHz mono decoder on libopus, or None where no libopus can be loaded."""
    lib = _library()
    return OpusDecoder(lib) if lib is not None else None
