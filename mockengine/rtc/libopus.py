"""Opus straight to PCM16 24 kHz mono: libopus's own decoder at the session's rate.

libopus decodes natively at 8, 12, 16, 24 or 48 kHz, mono or stereo, whatever the sender encoded. PyAV
(FFmpeg's libopus wrapper) always asks it for 48 kHz, so the microphone then needs a resampler: a
py-spy profile of the engine under 10 talking calls had the decode and that resample at ~22 % of its
busy time (~77 µs a frame; this decoder ~31 µs). :class:`OpusDecoder` calls libopus through ctypes:
the copy bundled with PyAV's wheel (``av.libs``, always there with the ``av`` dependency) or else the
system's ``libopus.so.0``. :func:`opus_decoder` returns None when neither loads, and the caller keeps
PyAV's decoder and resampler.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from functools import cache

import av

RATE_HZ = 24_000
MAX_FRAME_SAMPLES = RATE_HZ * 120 // 1000  # the longest Opus packet: 120 ms


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
        if hasattr(lib, "opus_decoder_create") and hasattr(lib, "opus_decode"):
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
            return lib
    return None


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

    def __del__(self) -> None:
        state, self._state = getattr(self, "_state", None), None
        if state:
            self._lib.opus_decoder_destroy(state)


def opus_decoder() -> OpusDecoder | None:
    """A 24 kHz mono decoder on libopus, or None where no libopus can be loaded."""
    lib = _library()
    return OpusDecoder(lib) if lib is not None else None
