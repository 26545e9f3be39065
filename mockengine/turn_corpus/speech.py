"""Speech for the turn corpus: the voices, and one clip made from a planned item.

espeak-ng (Debian package ``espeak-ng``) and piper with its noise scales at zero are deterministic, so
the same plan gives the same bytes (checked by ``tests/integration/test_turn_corpus.py``).
"""

from __future__ import annotations

import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import numpy as np
import soxr

RATE_HZ = 24_000
SAMPLES_PER_MS = RATE_HZ // 1000
TRIM_THRESHOLD = 100  # -50 dBFS
LEAD_MS = 300


@dataclass(frozen=True)
class Voice:
    """``engine`` "espeak" (``name`` = -v, ``rate`` = words per minute) or "piper" (``rate`` = length
    scale, > 1 slower)."""

    engine: str
    name: str
    rate: float

    @property
    def tag(self) -> str:
        return f"{self.engine}:{self.name}@{self.rate:g}"

    @classmethod
    def from_tag(cls, tag: str) -> Voice:
        """The voice of a label's ``voice`` field (``engine:name@rate``)."""
        engine, _, rest = tag.partition(":")
        name, _, rate = rest.rpartition("@")
        return cls(engine, name, float(rate))


VOICES = (
    Voice("espeak", "en-us+m3", 160),
    Voice("piper", "joe", 1.0),
    Voice("espeak", "en-us", 175),
    Voice("piper", "joe", 1.25),
    Voice("espeak", "en-us+m1", 145),
    Voice("piper", "joe", 0.85),
    Voice("espeak", "en-us+f3", 165),
)


# How a mid-thought item's parts are spoken (the item's ``synthesis`` field; absent = "separate"):
# "separate": each part its own utterance, joined by silence (a voice closes the first part as a
# finished sentence); "inside": one espeak-ng SSML utterance with a <break> where the pause is, cut at
# that break, so the words before the pause carry the sentence-internal intonation of the whole.
SYNTHESIS_MODES = ("separate", "inside")
MIN_BREAK_MS = 400  # the silence espeak-ng leaves for a <break> of >= 600 ms is longer than any other gap


def make_clip(item: dict[str, Any], synth: Synthesizer, work: Path) -> dict[str, Any]:
    """Speak a planned item into ``work/<id>.wav``; return its label (positions in ms of the clip).

    ``item["synthesis"] == "inside"`` (espeak voices, two parts only) speaks the parts as one sentence
    (:meth:`Synthesizer.speak_inside`); ValueError for a piper voice or an unknown mode."""
    voice = Voice.from_tag(item["voice"])
    parts = list(item["parts"])
    if item["style"] == "continuing" and not parts[0].endswith(","):
        parts[0] = parts[0] + ","
    mode = item.get("synthesis", "separate")
    if mode not in SYNTHESIS_MODES:
        raise ValueError(f"synthesis {mode!r}: choose from {', '.join(SYNTHESIS_MODES)}")
    spoken = synth.speak_inside(parts, voice, item["pause_ms"]) if mode == "inside" else None
    pieces = [np.zeros(LEAD_MS * SAMPLES_PER_MS, dtype=np.int16)]
    segments = []
    cursor_ms = LEAD_MS
    for position, text in enumerate(parts):
        if position:
            pieces.append(np.zeros(item["pause_ms"] * SAMPLES_PER_MS, dtype=np.int16))
            cursor_ms += item["pause_ms"]
        speech = spoken[position] if spoken is not None else trim(synth.speak(text, voice))
        pieces.append(speech)
        length_ms = speech.size // SAMPLES_PER_MS
        segments.append({"text": text, "start_ms": cursor_ms, "end_ms": cursor_ms + length_ms})
        cursor_ms += length_ms
    file_name = f"{item['id']}.wav"
    with wave.open(str(work / file_name), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(RATE_HZ)
        handle.writeframes(np.concatenate(pieces).astype("<i2").tobytes())
    return {
        **item,
        "file": file_name,
        "text": " ".join(item["parts"]),
        "segments": segments,
        "speech_end_ms": segments[-1]["end_ms"],
        "duration_ms": cursor_ms,
    }


def trim(samples: np.ndarray) -> np.ndarray:
    """Cut edge silence; bounds snap outward to whole ms so label positions are exact integers."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > TRIM_THRESHOLD)
    if loud.size == 0:
        raise ValueError("the synthesizer produced no audible speech")
    start = int(loud[0]) // SAMPLES_PER_MS * SAMPLES_PER_MS
    end = -(-(int(loud[-1]) + 1) // SAMPLES_PER_MS) * SAMPLES_PER_MS
    segment = samples[start:end]
    return np.concatenate([segment, np.zeros(end - start - segment.size, dtype=np.int16)])


class Synthesizer:
    """espeak-ng per call; the piper voice loaded once, on first use."""

    def __init__(self) -> None:
        self._piper: Any = None

    def speak(self, text: str, voice: Voice) -> np.ndarray:
        audio, rate_hz = self._espeak(text, voice) if voice.engine == "espeak" else self._joe(text, voice)
        return self._pcm16(audio, rate_hz)

    def speak_inside(self, parts: list[str], voice: Voice, pause_ms: int) -> list[np.ndarray]:
        """``parts`` (two) spoken as ONE espeak-ng sentence with an SSML ``<break>`` of ``pause_ms``
        between them, cut at that break: [words before, words after], each trimmed like :func:`trim`
        (the caller joins them with exactly ``pause_ms`` of silence). The break is the clip's longest
        silent gap; ValueError if it is shorter than :data:`MIN_BREAK_MS` (the break was not honoured),
        for a piper voice (piper has no break and this piper gives no word alignment without the onnx
        package) or for other than two parts."""
        if voice.engine != "espeak":
            raise ValueError(f"synthesis 'inside' needs an espeak voice, not {voice.tag}")
        if len(parts) != 2:
            raise ValueError(f"synthesis 'inside' speaks two parts, not {len(parts)}")
        ssml = f'<speak>{escape(parts[0])} <break time="{pause_ms}ms"/> {escape(parts[1])}</speak>'
        audio, rate_hz = self._espeak(ssml, voice, ssml=True)
        samples = self._pcm16(audio, rate_hz)
        loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > TRIM_THRESHOLD)
        if loud.size < 2:
            raise ValueError("the synthesizer produced no audible speech")
        gap = int(np.argmax(np.diff(loud)))
        if (loud[gap + 1] - loud[gap]) < MIN_BREAK_MS * SAMPLES_PER_MS:
            raise ValueError(f"no break of {pause_ms} ms found in espeak-ng's speech of {parts!r}")
        return [trim(samples[: loud[gap] + 1]), trim(samples[loud[gap + 1] :])]

    @staticmethod
    def _pcm16(audio: np.ndarray, rate_hz: int) -> np.ndarray:
        resampled = soxr.resample(audio, rate_hz, RATE_HZ)
        return np.clip(np.round(resampled * 32768.0), -32768, 32767).astype(np.int16)

    @staticmethod
    def _espeak(text: str, voice: Voice, ssml: bool = False) -> tuple[np.ndarray, int]:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "speech.wav"
            markup = ["-m"] if ssml else []
            command = [
                "espeak-ng",
                *markup,
                "-v",
                voice.name,
                "-s",
                str(int(voice.rate)),
                "-w",
                str(path),
                text,
            ]
            subprocess.run(command, check=True, capture_output=True)
            with wave.open(str(path), "rb") as handle:
                raw = np.frombuffer(handle.readframes(handle.getnframes()), dtype="<i2")
                return raw.astype(np.float32) / 32768.0, handle.getframerate()

    def _joe(self, text: str, voice: Voice) -> tuple[np.ndarray, int]:
        from piper import PiperVoice, SynthesisConfig

        from mockengine.engines.tts import resolve_piper_voice

        if self._piper is None:
            onnx, config = resolve_piper_voice(None)
            self._piper = PiperVoice.load(onnx, config_path=config)
        syn = SynthesisConfig(length_scale=voice.rate, noise_scale=0.0, noise_w_scale=0.0)
        chunks = [chunk.audio_float_array for chunk in self._piper.synthesize(text, syn)]
        return np.concatenate(chunks).astype(np.float32), int(self._piper.config.sample_rate)
