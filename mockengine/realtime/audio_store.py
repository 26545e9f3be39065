"""Where a session's item audio lives: the newest in memory, older audio in a per-session spill file.

A conversation keeps the audio of its items (user turns, replies, client audio) for
``conversation.item.retrieve`` and truncation (reference §7). Kept as raw PCM16 24 kHz in memory that is
48 kB per second of audio, per session: a 45-minute study held ~100 MB per participant. So the session
keeps only the newest ``audio_memory_ms`` of item audio in memory (:meth:`AudioSpill.keep_newest`) and
moves older items' audio, byte for byte, to an anonymous temporary file: created unlinked
(``tempfile.TemporaryFile``), so the kernel deletes it when the session closes it — or when the process
dies. Retrieve and truncate read the same bytes back (:class:`SpilledAudio` behaves as a read-only
bytes-like value: ``len``, ``bytes()``, slices).

Cost: the spill file grows by what moves out (bounded by ``max_conversation_audio_s``, whose oldest items
are dropped and their bytes never read again); reads are ``os.pread`` calls of one item's audio, served
from the page cache for recent audio.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from typing import IO, Protocol


class _HasAudio(Protocol):
    audio: bytes | bytearray | SpilledAudio


class SpilledAudio:
    """Item audio written to a spill file: ``length`` bytes at ``offset``; read back on demand."""

    __slots__ = ("_file", "offset", "length")

    def __init__(self, file: IO[bytes], offset: int, length: int) -> None:
        self._file = file
        self.offset = offset
        self.length = length

    def __len__(self) -> int:
        return self.length

    def __bytes__(self) -> bytes:
        return os.pread(self._file.fileno(), self.length, self.offset)

    def __getitem__(self, key: slice) -> SpilledAudio:
        """A prefix (``audio[:n]``, what truncation keeps) without reading: the same file, shorter."""
        if not isinstance(key, slice) or key.start not in (None, 0) or key.step not in (None, 1):
            raise TypeError("spilled audio takes only prefix slices ([:n])")
        stop = self.length if key.stop is None else max(0, min(key.stop, self.length))
        return SpilledAudio(self._file, self.offset, stop)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (bytes, bytearray, SpilledAudio)):
            return bytes(self) == bytes(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class AudioSpill:
    """One session's spill file (made on first use) and the rule that fills it."""

    def __init__(self, memory_bytes: int, directory: str | None = None) -> None:
        self.memory_bytes = memory_bytes  # < 0: never spill
        self.directory = directory
        self._file: IO[bytes] | None = None
        self._size = 0

    @property
    def spilled_bytes(self) -> int:
        """Bytes written to the spill file so far (disk, not memory)."""
        return self._size

    def keep_newest(self, items_newest_first: Iterable[_HasAudio], reserve_bytes: int = 0) -> None:
        """Spill the audio of the older items once the newer ones (and ``reserve_bytes`` about to be
        added) fill the memory budget. Items in ``items_newest_first`` must not be still growing."""
        if self.memory_bytes < 0:
            return
        in_memory = reserve_bytes
        for item in items_newest_first:
            if isinstance(item.audio, SpilledAudio) or not item.audio:
                continue
            in_memory += len(item.audio)
            if in_memory > self.memory_bytes:
                item.audio = self._write(bytes(item.audio))
                in_memory -= len(item.audio)

    def _write(self, data: bytes) -> SpilledAudio:
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="mockengine-audio-", dir=self.directory)  # noqa: SIM115 (closed in close())
        offset = self._size
        os.pwrite(self._file.fileno(), data, offset)
        self._size += len(data)
        return SpilledAudio(self._file, offset, len(data))

    def close(self) -> None:
        """Delete the spill file (it was never linked: closing frees its blocks)."""
        if self._file is not None:
            self._file.close()
            self._file = None
