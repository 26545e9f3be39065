"""Reply audio's Opus packets, encoded once per process and sent again to every call that plays them.

Encoding is most of what the reply track costs: libopus takes ~60–300 µs for a 20 ms frame (PyAV, 24 kHz
mono, complexity 10, on the shared machine), 50 frames a second per playing call, while the same reply
sentences (piper's speech cache) go out to call after call. An Opus encoder is stateful, so a packet is
fixed not by its frame alone but by every frame its encoder saw before it. The reply encoder therefore
starts each stretch of audio (the first audio after settled silence) from a fresh encoder, and a packet
is keyed by the **chain** of frames since that start: ``key = BLAKE2b(previous key + frame)``. Two calls
that play the same reply from the start compute the same keys and get the packets a fresh encoder makes
for that audio — byte for byte what each would have encoded itself (libopus is deterministic).

:class:`PacketCache` is the process's store: an LRU bounded in bytes (``MAX_BYTES``; ~12 KiB per second
of distinct reply audio, so the default holds about five minutes of it).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

MAX_BYTES = 4 * 1024 * 1024
ENTRY_OVERHEAD_BYTES = 200  # the key, the payload object, the LRU's node (as sys.getsizeof counts)
ROOT = b"stretch"  # the key before a stretch's first frame: a fresh encoder


def chain(previous: bytes, frame: bytes) -> bytes:
    """The key of ``frame`` encoded after the frames ``previous`` stands for (16 bytes)."""
    return hashlib.blake2b(frame, digest_size=16, key=previous[:64]).digest()


class PacketCache:
    """Opus payloads by chain key, least recently used out first once over ``max_bytes``."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.size_bytes = 0
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[bytes, bytes] = OrderedDict()

    def get(self, key: bytes) -> bytes | None:
        payload = self._entries.get(key)
        if payload is None:
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return payload

    def put(self, key: bytes, payload: bytes) -> None:
        if self.max_bytes <= 0 or key in self._entries:
            return
        self._entries[key] = payload
        self.size_bytes += len(payload) + ENTRY_OVERHEAD_BYTES
        while self.size_bytes > self.max_bytes and self._entries:
            _, dropped = self._entries.popitem(last=False)
            self.size_bytes -= len(dropped) + ENTRY_OVERHEAD_BYTES

    def clear(self) -> None:
        self._entries.clear()
        self.size_bytes = 0


REPLY_PACKETS = PacketCache()
