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


class NoWordCut(ValueError):
    """A piper sentence that cannot be cut between the words of its two parts (see
    :meth:`Synthesizer.speak_inside`); such an item is spoken "separate" instead, and says so."""


def _piper_words(piper: Any, text: str) -> int | None:
    """How many words piper's phonemization of ``text`` has (space phonemes + 1; a trailing space,
    as after a final comma, is no word); None if it makes other than one sentence."""
    sentences = piper.phonemize(text)
    if len(sentences) != 1:
        return None
    return "".join(sentences[0]).strip(WORD_BOUNDARY).count(WORD_BOUNDARY) + 1


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
# finished sentence); "inside": the whole sentence spoken as one utterance and cut where the pause
# goes, so the words before the pause carry the sentence-internal intonation of the whole. espeak-ng:
# an SSML <break> where the pause is, cut at that break (round 17). piper (round 18): no break tag, so
# the sentence is spoken without one and cut where piper's phoneme alignment ends the first part's
# last word (needs the ``onnx`` package, the ``bench`` extra).
SYNTHESIS_MODES = ("separate", "inside")
MIN_BREAK_MS = 400  # the silence espeak-ng leaves for a <break> of >= 600 ms is longer than any other gap
# A piper cut falls inside connected speech; a short ramp on each side of it keeps the cut from
# clicking (a step of a voiced waveform into silence is a broadband click whisper may hear as a
# consonant). 3 ms is shorter than any phoneme.
PIPER_CUT_RAMP_MS = 3
WORD_BOUNDARY = " "  # piper's phonemization (espeak-ng's) separates words by a space phoneme


def make_clip(item: dict[str, Any], synth: Synthesizer, work: Path) -> dict[str, Any]:
    """Speak a planned item into ``work/<id>.wav``; return its label (positions in ms of the clip).

    ``item["synthesis"] == "inside"`` (two parts only) speaks the parts as one sentence
    (:meth:`Synthesizer.speak_inside`); a piper sentence that cannot be cut between its parts' words
    (:class:`NoWordCut`) is spoken "separate" instead, its label saying so (``synthesis`` "separate",
    ``inside_skipped`` the reason). ValueError for an unknown mode or an espeak break not honoured."""
    voice = Voice.from_tag(item["voice"])
    parts = list(item["parts"])
    if item["style"] == "continuing" and not parts[0].endswith(","):
        parts[0] = parts[0] + ","
    mode = item.get("synthesis", "separate")
    if mode not in SYNTHESIS_MODES:
        raise ValueError(f"synthesis {mode!r}: choose from {', '.join(SYNTHESIS_MODES)}")
    spoken = None
    skipped = None
    if mode == "inside":
        try:
            spoken = synth.speak_inside(parts, voice, item["pause_ms"])
        except NoWordCut as error:  # piper only; ~2 % of items (measured, round 18)
            skipped = str(error)
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
    fallback = {"synthesis": "separate", "inside_skipped": skipped} if skipped else {}
    return {
        **item,
        **fallback,
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
        self._aligned_piper: Any = None

    def speak(self, text: str, voice: Voice) -> np.ndarray:
        audio, rate_hz = self._espeak(text, voice) if voice.engine == "espeak" else self._joe(text, voice)
        return self._pcm16(audio, rate_hz)

    def speak_inside(self, parts: list[str], voice: Voice, pause_ms: int) -> list[np.ndarray]:
        """``parts`` (two) spoken as ONE sentence and cut where the pause goes: [words before, words
        after], each trimmed like :func:`trim` (the caller joins them with exactly ``pause_ms`` of
        silence). espeak-ng: an SSML ``<break>`` of ``pause_ms`` between the parts, cut at the clip's
        longest silent gap (ValueError if it is shorter than :data:`MIN_BREAK_MS`: the break was not
        honoured). piper: :meth:`_joe_inside`. ValueError for other than two parts."""
        if len(parts) != 2:
            raise ValueError(f"synthesis 'inside' speaks two parts, not {len(parts)}")
        if voice.engine == "piper":
            return self._joe_inside(parts, voice)
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

    def _joe_inside(self, parts: list[str], voice: Voice) -> list[np.ndarray]:
        """The piper half of :meth:`speak_inside`. piper has no break tag, so the two parts are spoken
        as one sentence with no pause ("first second", no punctuation added between them) and cut
        where the first part's last word ends. piper phonemizes with espeak-ng, which separates its
        phonological words by a space phoneme but runs a clitic into its neighbour ("for the" is one
        word, "fɚðə"); so the words are counted as piper speaks them: each part phonemized alone must
        give as many words as it has inside the sentence (no word runs across the cut), and the cut is
        the start of the space phoneme after the first part's words, in samples from piper's
        alignment. A ramp of :data:`PIPER_CUT_RAMP_MS` on each side of the cut, then each side trimmed
        like :func:`trim`.

        :class:`NoWordCut` (a ValueError) when the sentence cannot be cut there: a word runs across
        the cut ("We should | have won": "ʃˌʊdəv"), a hyphen or abbreviation splits a word
        differently, piper made several sentences, or gave no alignment. RuntimeError when the
        ``onnx`` package is missing (piper needs it to expose the alignment; the ``bench`` extra)."""
        from piper import SynthesisConfig

        text = f"{parts[0]} {parts[1]}"
        piper = self._aligned_joe()
        before_words, after_words = (_piper_words(piper, part) for part in parts)
        syn = SynthesisConfig(length_scale=voice.rate, noise_scale=0.0, noise_w_scale=0.0)
        chunks = list(piper.synthesize(text, syn, include_alignments=True))
        if len(chunks) != 1:
            raise NoWordCut(f"piper spoke {text!r} as {len(chunks)} sentences, not one")
        chunk = chunks[0]
        alignments = chunk.phoneme_alignments
        if alignments is None:
            raise NoWordCut(f"piper gave no phoneme alignment for {text!r}")
        audio = chunk.audio_float_array
        lengths = [int(alignment.num_samples) for alignment in alignments]
        if sum(lengths) != audio.size:
            raise NoWordCut(f"piper's alignment covers {sum(lengths)} of {audio.size} samples")
        # piper's alignment is [BOS, *phonemes, EOS]; a space phoneme between words
        boundaries = [i for i, alignment in enumerate(alignments) if alignment.phoneme == WORD_BOUNDARY]
        if before_words is None or after_words is None or len(boundaries) + 1 != before_words + after_words:
            raise NoWordCut(
                f"piper spoke {len(boundaries) + 1} words in {text!r}, its parts alone "
                f"{before_words} + {after_words}: a word runs across the cut"
            )
        rate_hz = int(chunk.sample_rate)
        samples = self._pcm16(audio, rate_hz)
        cut = round(sum(lengths[: boundaries[before_words - 1]]) * RATE_HZ / rate_hz)
        ramp = np.linspace(1.0, 0.0, PIPER_CUT_RAMP_MS * SAMPLES_PER_MS + 1)[:-1]
        before = samples[:cut].astype(np.float64)
        after = samples[cut:].astype(np.float64)
        before[-ramp.size :] *= ramp
        after[: ramp.size] *= ramp[::-1]
        return [trim(np.round(before).astype(np.int16)), trim(np.round(after).astype(np.int16))]

    def _aligned_joe(self) -> Any:
        """piper's joe voice patched (in memory) to return its phoneme alignment; loaded once. Its
        audio is the same as the unpatched model's (the patch adds an output only); the "separate"
        clips still use the unpatched one."""
        if self._aligned_piper is None:
            try:
                import onnx  # noqa: F401  (piper only logs a warning without it and gives no alignment)
            except ImportError as error:
                raise RuntimeError(
                    "synthesis 'inside' of a piper voice needs the onnx package for piper's phoneme "
                    "alignment: install mockengine[bench]"
                ) from error
            from piper import PiperVoice

            from mockengine.engines.tts import resolve_piper_voice

            model, config = resolve_piper_voice(None)
            self._aligned_piper = PiperVoice.load(model, config_path=config, include_alignments=True)
        return self._aligned_piper

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
