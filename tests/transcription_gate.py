"""A transcriber that answers only when a test lets it: whisper slower than the turns, without timing."""

from __future__ import annotations

import threading

from mockengine.engines.fakes import FakeTranscriber
from mockengine.engines.stt import Transcript


class GatedTranscriber(FakeTranscriber):
    """``FakeTranscriber`` whose each call waits for one :meth:`allow` (or :meth:`open`): the test
    decides when whisper is done. ``entered`` counts the calls that have started."""

    def __init__(self, default: str = "hello there") -> None:
        super().__init__(default=default)
        self._gate = threading.Semaphore(0)
        self._is_open = False
        self.entered = 0

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        self.entered += 1  # (one whisper thread: no race)
        if not self._is_open:
            self._gate.acquire()
        return super().transcribe(pcm16_24k, language=language, prompt=prompt)

    def allow(self, calls: int = 1) -> None:
        for _ in range(calls):
            self._gate.release()

    def open(self) -> None:
        """Every call from now on answers at once (the one waiting too): a test's end, so no thread
        stays blocked."""
        self._is_open = True
        self._gate.release()
