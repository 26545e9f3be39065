"""Speech clips and a paced microphone that streams them into a session.

Audio on the wire is 24 kHz mono PCM16 (HRP ``voiceEngine.audio``). The microphone sends a 20 ms
``input_audio_buffer.append`` on a fixed schedule taken from ``loop.time()`` (so send jitter never
accumulates), silence when no clip is playing, exactly like a participant's open microphone. It counts the
samples appended so far: that count is the position ``audio_start_ms`` / ``audio_end_ms`` refer to.

``realtime_factor`` > 1 streams faster than real time (tests against a fake engine only); audio positions
stay in audio ms, only the wall-clock pace changes.
"""

from __future__ import annotations

import asyncio
import base64
import json
import wave
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import soxr

from .connection import Connection, JsonObject

WIRE_RATE_HZ = 24_000
BYTES_PER_MS = WIRE_RATE_HZ * 2 // 1000
CHUNK_MS = 20
CHUNK_SAMPLES = WIRE_RATE_HZ * CHUNK_MS // 1000
DEFAULT_CLIPS_DIR = Path(__file__).with_name("clips")
# Speech-onset detection on the clip itself: 10 ms frames, an RMS above 5 % of the loudest frame (and above
# a floor of about -50 dBFS, so a silent clip has no onset) counts as speech.
_FRAME_SAMPLES = WIRE_RATE_HZ // 100
_ONSET_RELATIVE = 0.05
_ONSET_FLOOR_RMS = 100.0


@dataclass(frozen=True)
class Clip:
    """A speech clip as streamed: ``pcm`` is 24 kHz mono PCM16 LE; onset/end are clip offsets (ms)."""

    name: str
    pcm: bytes
    speech_onset_ms: float
    speech_end_ms: float
    text: str = ""

    @property
    def duration_ms(self) -> float:
        return len(self.pcm) / BYTES_PER_MS


def pcm_duration_ms(pcm_bytes: int) -> float:
    """Duration (ms) of ``pcm_bytes`` bytes of 24 kHz PCM16 (HRP: bytes / 48)."""
    return pcm_bytes / BYTES_PER_MS


def load_clip(path: Path, name: str = "", text: str = "") -> Clip:
    """Read a PCM16 WAV (any rate, mono or stereo), resample to 24 kHz with soxr, find the speech span.

    Raises ValueError for a file that is not a WAV, a non-16-bit WAV or a clip without speech.
    """
    try:
        with wave.open(str(path), "rb") as wav:
            if wav.getsampwidth() != 2:
                raise ValueError(f"{path}: expected 16-bit PCM, got {wav.getsampwidth() * 8}-bit")
            rate_hz, channels = wav.getframerate(), wav.getnchannels()
            samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    except (wave.Error, EOFError) as exc:  # not a RIFF/WAVE file, or cut short
        raise ValueError(f"{path}: not a PCM WAV file ({str(exc) or 'it ends early'})") from None
    mono = samples.reshape(-1, channels).mean(axis=1) if channels > 1 else samples.astype(np.float64)
    if rate_hz != WIRE_RATE_HZ:
        mono = soxr.resample(mono, rate_hz, WIRE_RATE_HZ)
    pcm = np.clip(np.round(mono), -32768, 32767).astype("<i2")
    onset_ms, end_ms = speech_span_ms(pcm)
    return Clip(name or path.stem, pcm.tobytes(), onset_ms, end_ms, text)


def speech_span_ms(pcm: np.ndarray) -> tuple[float, float]:
    """(onset, end) of the loud part of 24 kHz int16 samples, in ms. Raises ValueError if all silent."""
    frames = len(pcm) // _FRAME_SAMPLES
    blocks = pcm[: frames * _FRAME_SAMPLES].astype(np.float64).reshape(frames, _FRAME_SAMPLES)
    rms = np.sqrt((blocks**2).mean(axis=1)) if frames else np.zeros(0)
    if not frames or rms.max() < _ONSET_FLOOR_RMS:
        raise ValueError("clip contains no speech")
    loud = np.flatnonzero(rms >= max(rms.max() * _ONSET_RELATIVE, _ONSET_FLOOR_RMS))
    return float(loud[0] * 10), float((loud[-1] + 1) * 10)


def load_clips(directory: Path = DEFAULT_CLIPS_DIR) -> dict[str, Clip]:
    """All clips of ``directory``: the entries of ``clips.json`` if present, else every ``*.wav``.

    ``clips.json`` is ``{"clips": {name: {"file", "text", "duration_ms"}}}`` or ``{name: {...}}``.
    """
    index = directory / "clips.json"
    if not index.exists():
        return {p.stem: load_clip(p) for p in sorted(directory.glob("*.wav"))}
    meta = json.loads(index.read_text(encoding="utf-8"))
    entries = meta.get("clips", meta)
    return {
        name: load_clip(directory / str(entry.get("file", f"{name}.wav")), name, str(entry.get("text", "")))
        for name, entry in entries.items()
        if isinstance(entry, dict)
    }


@dataclass
class Playback:
    """A clip queued on the microphone; filled in as it streams (positions in session audio ms)."""

    clip: Clip
    start_position_ms: float | None = None
    onset_wall_ms: float | None = None
    end_wall_ms: float | None = None
    cut_at_ms: float | None = None
    finished: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def onset_position_ms(self) -> float:
        """Session audio position of the clip's speech onset. Raises ValueError before it started."""
        if self.start_position_ms is None:
            raise ValueError(f"{self.clip.name} has not started")
        return self.start_position_ms + self.clip.speech_onset_ms

    @property
    def end_position_ms(self) -> float:
        """Session audio position where the clip's speech ended (or was cut)."""
        if self.start_position_ms is None:
            raise ValueError(f"{self.clip.name} has not started")
        return self.start_position_ms + min(self.clip.speech_end_ms, self.cut_at_ms or float("inf"))


class MicrophoneStopped(Exception):
    """The microphone stopped (the connection closed) before the awaited position was reached."""


class Microphone:
    """Streams 20 ms chunks at ``realtime_factor`` × real time: queued clips, else silence."""

    def __init__(self, conn: Connection, realtime_factor: float = 1.0) -> None:
        self._conn = conn
        self._period_s = CHUNK_MS / 1000.0 / realtime_factor
        self._queue: deque[Playback] = deque()
        self._offset = 0
        self._samples = 0
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._task: asyncio.Task[None] | None = None
        self._silence = _append_event(bytes(CHUNK_SAMPLES * 2))
        self._last_sent_ms = 0.0

    @property
    def position_ms(self) -> float:
        """Audio appended in this session so far, in ms."""
        return self._samples * 1000.0 / WIRE_RATE_HZ

    def start(self) -> None:
        self._task = asyncio.create_task(self._pump())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._release_waiters(MicrophoneStopped("microphone stopped"))

    def play(self, clip: Clip) -> Playback:
        """Queue ``clip`` after whatever is playing; returns its tracker."""
        playback = Playback(clip)
        self._queue.append(playback)
        return playback

    def stop_speech(self) -> None:
        """Cut the playing clip at the current position and drop queued ones: silence from the next chunk."""
        if self._queue:
            playing = self._queue[0]
            playing.cut_at_ms = self._offset / BYTES_PER_MS
            if playing.end_wall_ms is None:
                playing.end_wall_ms = self._last_sent_ms
        for playback in self._queue:
            playback.finished.set()
        self._queue.clear()
        self._offset = 0

    async def wait_position(self, position_ms: float) -> None:
        """Return once at least ``position_ms`` of audio has been appended. Raises MicrophoneStopped."""
        target = int(position_ms * WIRE_RATE_HZ / 1000.0)
        if self._samples >= target:
            return
        if self._task is None or self._task.done():
            raise MicrophoneStopped("microphone is not running")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((target, future))
        await future

    async def send_marked(self, event: JsonObject) -> tuple[float, float]:
        """Send ``event`` between two audio chunks; returns (send time ms, exact audio position ms)."""
        async with self._conn.send_lock:
            position_ms = self.position_ms
            return await self._conn.send_unlocked(event), position_ms

    async def _pump(self) -> None:
        loop = asyncio.get_running_loop()
        due_s = loop.time()
        try:
            while True:
                await asyncio.sleep(max(0.0, due_s - loop.time()))
                due_s += self._period_s
                async with self._conn.send_lock:
                    await self._send_chunk()
                self._wake_waiters()
        except (ConnectionError, RuntimeError) as exc:
            self._release_waiters(MicrophoneStopped(f"microphone stopped: {exc!r}"))

    async def _send_chunk(self) -> None:
        if not self._queue:
            self._last_sent_ms = await self._conn.send_unlocked(self._silence)
            self._samples += CHUNK_SAMPLES
            return
        playback = self._queue[0]
        if playback.start_position_ms is None:
            playback.start_position_ms = self.position_ms
        chunk = playback.clip.pcm[self._offset : self._offset + CHUNK_SAMPLES * 2]
        sent_ms = await self._conn.send_unlocked(_append_event(chunk.ljust(CHUNK_SAMPLES * 2, b"\0")))
        self._last_sent_ms = sent_ms
        self._mark_speech_edges(playback, sent_ms, len(chunk))
        self._samples += CHUNK_SAMPLES
        self._offset += len(chunk)
        if self._offset >= len(playback.clip.pcm):
            self._queue.popleft()
            self._offset = 0
            playback.finished.set()

    def _mark_speech_edges(self, playback: Playback, sent_ms: float, chunk_bytes: int) -> None:
        chunk_end_ms = (self._offset + chunk_bytes) / BYTES_PER_MS
        if playback.onset_wall_ms is None and chunk_end_ms > playback.clip.speech_onset_ms:
            playback.onset_wall_ms = sent_ms
        if playback.end_wall_ms is None and chunk_end_ms >= playback.clip.speech_end_ms:
            playback.end_wall_ms = sent_ms

    def _wake_waiters(self) -> None:
        pending = []
        for target, future in self._waiters:
            if self._samples >= target:
                if not future.done():
                    future.set_result(None)
            else:
                pending.append((target, future))
        self._waiters = pending

    def _release_waiters(self, error: Exception) -> None:
        for _, future in self._waiters:
            if not future.done():
                future.set_exception(error)
        self._waiters = []


def _append_event(pcm: bytes) -> JsonObject:
    return {"type": "input_audio_buffer.append", "audio": base64.b64encode(pcm).decode("ascii")}
