"""The labelled turn-detection corpus (issue 18): texts and labels in code, audio made on demand.

What it holds: complete statements, questions, one-word answers, and mid-thought utterances whose speaker
pauses 0.6-2 s after an article, a preposition, a conjunction, a filler ("um", "like"), inside a list, or
after an opener ("I think", "let me see"). Each text is spoken by two of :data:`VOICES` (espeak-ng voices
and the bundled piper joe voice at three length scales). A mid-thought first part is either spoken as
its own sentence (``style="separate"``: a synthetic voice closes it with a falling, final intonation,
the hard case) or with a trailing comma (``style="continuing"``: continuation intonation, as people
sound when they hold the floor); the style is picked by hash.

The split is mechanical and made BEFORE any tuning: :func:`split_of` hashes the text (both voices of a
text fall in the same half, so the held-out half has no sentence the rules were tuned on). Round 1 set
``turn_scoring`` on the ``tune`` half and scored ``heldout`` once; its failing cases were then named, so
``heldout`` is burned and round 2 tunes on ``tune`` + ``heldout``. Round 2's held-out split is
``heldout_r2`` (:mod:`.heldout_r2`: new texts and two new voice settings, written before round 2's tuning
and scored once at its end).

Audio: espeak-ng (Debian package ``espeak-ng``) and piper with its noise scales at zero are
deterministic, so the clips are not committed: :func:`build` writes them (24 kHz mono PCM16 WAV) and
``labels.json`` into ``.cache/turn-corpus/<fingerprint>/`` on first use (about a minute).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import soxr

from mockengine.turn_corpus import heldout_r2 as r2_texts

RATE_HZ = 24_000
SAMPLES_PER_MS = RATE_HZ // 1000
TRIM_THRESHOLD = 100  # -50 dBFS
LEAD_MS = 300
PAUSES_MS = (600, 800, 1000, 1200, 1500, 2000)
CACHE_ROOT = Path(__file__).resolve().parents[2] / ".cache" / "turn-corpus"
FORMAT_VERSION = 1


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


VOICES = (
    Voice("espeak", "en-us+m3", 160),
    Voice("piper", "joe", 1.0),
    Voice("espeak", "en-us", 175),
    Voice("piper", "joe", 1.25),
    Voice("espeak", "en-us+m1", 145),
    Voice("piper", "joe", 0.85),
    Voice("espeak", "en-us+f3", 165),
)
R2_VOICES = VOICES + tuple(Voice(*voice) for voice in r2_texts.NEW_VOICES)

COMPLETE = (
    "My favourite colour is blue.",
    "I went to the store yesterday.",
    "We ate pasta for dinner.",
    "My sister lives in Chicago.",
    "That sounds like a great plan.",
    "I really enjoyed the movie.",
    "The meeting starts at ten.",
    "I would like some coffee please.",
    "My dog loves the snow.",
    "I finished the book last week.",
    "I think we should go home now.",
    "I agree with you completely.",
    "The train was late again this morning.",
    "We booked a table for four people.",
    "She plays the piano every evening.",
    "The kids are asleep upstairs.",
    "I left my keys at the office.",
    "Our flight lands at noon.",
    "The soup needs more salt.",
    "He fixed the bike on Sunday.",
    "It rained all weekend.",
    "I moved here two years ago.",
    "The garden looks wonderful.",
    "We should leave before the traffic starts.",
)
# Also spoken into the recorded test speech (tools/make_speech.py): editing these changes both.
EVERYDAY_QUESTIONS = (
    "What is the capital of France?",
    "How are you doing today?",
    "Could you tell me a story?",
    "Do you like music?",
    "Where do you live?",
    "What time is it?",
    "Can you help me with my homework?",
    "Is it going to rain tomorrow?",
    "Why is the sky blue?",
    "Have you ever been to Paris?",
    "Would you like to go for a walk?",
)
QUESTIONS = (
    *EVERYDAY_QUESTIONS,
    "When does the shop open?",
    "Who won the game last night?",
    "How much does it cost?",
    "Are you coming to the party?",
    "Which one do you prefer?",
)
ONE_WORD = (
    "Yes.",
    "No.",
    "Sure.",
    "Thanks.",
    "Okay.",
    "Maybe.",
    "Tuesday.",
    "Seven.",
    "Absolutely.",
    "Hello.",
)
# (category, words before the pause, words after it)
MID_THOUGHT = (
    ("article", "I was going to ask you about the", "meeting tomorrow."),
    ("article", "I would probably choose the", "blue one."),
    ("article", "Can you pass me a", "glass of water?"),
    ("article", "We need to buy a", "new fridge."),
    ("article", "She gave me an", "old map of the city."),
    ("article", "Let's meet at the", "station after work."),
    ("article", "I think I left my", "phone in the car."),
    ("article", "He is looking for a", "cheaper flat."),
    ("article", "They finally fixed the", "heating at school."),
    ("article", "Put it on the", "table by the door."),
    ("preposition", "The best way to learn a language is to", "speak it every day."),
    ("preposition", "I wanted to tell you about", "my trip to Mexico."),
    ("preposition", "We are going with", "my parents."),
    ("preposition", "It depends on", "the weather."),
    ("preposition", "I usually have breakfast with", "my brother."),
    ("preposition", "The letter came from", "my old school."),
    ("preposition", "She is thinking of", "moving to Berlin."),
    ("preposition", "I bought this for", "my grandmother."),
    ("preposition", "We drove through", "the mountains all night."),
    ("preposition", "He was talking about", "his new job."),
    ("conjunction", "We could go out, but", "it might be cold."),
    ("conjunction", "I stayed home because", "I was tired."),
    ("conjunction", "I called my friend and", "she said hello."),
    ("conjunction", "We could order pizza or", "maybe some pasta."),
    ("conjunction", "The shop was closed so", "we went home."),
    ("conjunction", "I like the city although", "it is very loud."),
    ("conjunction", "You can come if", "you finish early."),
    ("conjunction", "He missed the bus and", "walked to work."),
    ("conjunction", "I would help you but", "I am busy today."),
    ("conjunction", "Take an umbrella because", "it might rain."),
    ("filler", "I think that, um,", "we should go to the park."),
    ("filler", "The best part was, uh,", "the music at the end."),
    ("filler", "It was, like,", "really amazing."),
    ("filler", "She is, you know,", "my best friend."),
    ("filler", "So I was, um,", "wondering about the test."),
    ("filler", "My plan is, like,", "to leave on Friday."),
    ("filler", "We should, uh,", "call them back."),
    ("filler", "The problem is, um,", "nobody told me."),
    ("filler", "I saw, like,", "ten deer in the field."),
    ("filler", "He wants, um,", "a bigger office."),
    ("list", "We need eggs, milk,", "and some bread."),
    ("list", "I have been to Spain, Italy,", "and Greece."),
    ("list", "Bring your passport, your tickets,", "and a pen."),
    ("list", "The colours are red, green,", "and yellow."),
    ("list", "For lunch we had soup, salad,", "and cake."),
    ("list", "She speaks English, French,", "and a little German."),
    ("list", "I packed shirts, socks,", "and two jackets."),
    ("list", "We visited Paris, Lyon,", "and Nice."),
    ("list", "You will need flour, sugar,", "and butter."),
    ("list", "The team has Anna, Tom,", "and Peter."),
    ("opener", "I think", "we should wait."),
    ("opener", "Let me see", "what I can do."),
    ("opener", "I think", "the red one is better."),
    ("opener", "Let me see, I", "need about an hour."),
    ("opener", "Well, I guess", "that works for me."),
    ("opener", "I was wondering if", "you are free tonight."),
    ("opener", "The thing is", "I lost the receipt."),
    ("opener", "Let me think", "about that for a second."),
    ("opener", "To be honest", "I did not like it."),
    ("opener", "What I mean is", "we need more time."),
)
MID_THOUGHT_CATEGORIES = ("article", "preposition", "conjunction", "filler", "list", "opener")


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def split_of(text_key: str) -> str:
    """``tune`` or ``heldout`` by the text's hash: fixed before tuning, never by hand."""
    return "tune" if _digest("split:" + text_key) % 2 == 0 else "heldout"


def _texts(complete: Any, questions: Any, one_word: Any, mid: Any) -> list[tuple[str, str, tuple[str, ...]]]:
    texts: list[tuple[str, str, tuple[str, ...]]] = []
    texts += [("complete", "complete", (t,)) for t in complete]
    texts += [("question", "question", (t,)) for t in questions]
    texts += [("one_word", "complete", (t,)) for t in one_word]
    texts += [(c, "trailing", (a, b)) for c, a, b in mid]
    return texts


def plan() -> list[dict[str, Any]]:
    """Every utterance to make: id, category, kind, parts, voice, pause, style, split. Deterministic.

    The first corpus's texts are split by hash (``tune`` / ``heldout``); the round-2 texts of
    :mod:`.heldout_r2` form the ``heldout_r2`` split, spoken by :data:`R2_VOICES`."""
    first = _items(_texts(COMPLETE, QUESTIONS, ONE_WORD, MID_THOUGHT), VOICES, "")
    r2 = _texts(r2_texts.COMPLETE, r2_texts.QUESTIONS, r2_texts.ONE_WORD, r2_texts.MID_THOUGHT)
    return first + _items(r2, R2_VOICES, "r2-")


def _items(
    texts: list[tuple[str, str, tuple[str, ...]]], voices: tuple[Voice, ...], prefix: str
) -> list[dict[str, Any]]:
    items = []
    for index, (category, kind, parts) in enumerate(texts):
        key = " | ".join(parts)
        for copy in range(2):
            voice = voices[(index * 2 + copy) % len(voices)]
            seed = _digest(f"{key}#{copy}")
            items.append(
                {
                    "id": f"{prefix}{category}-{index:03d}-{copy}",
                    "category": category,
                    "kind": kind,
                    "parts": list(parts),
                    "voice": voice.tag,
                    "pause_ms": PAUSES_MS[seed % len(PAUSES_MS)] if kind == "trailing" else None,
                    "style": ("separate", "continuing")[seed // 7 % 2] if kind == "trailing" else None,
                    "split": "heldout_r2" if prefix else split_of(key),
                }
            )
    return items


def fingerprint() -> str:
    espeak = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True).stdout.strip()
    blob = json.dumps([FORMAT_VERSION, plan(), espeak], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def build(cache_root: Path = CACHE_ROOT) -> Path:
    """Make (once) and return the directory holding the clips and ``labels.json``.

    Raises FileNotFoundError with a clear message when espeak-ng is not installed.
    """
    if shutil.which("espeak-ng") is None:
        raise FileNotFoundError("espeak-ng is not installed (Debian package espeak-ng; .ci/run installs it)")
    directory = cache_root / fingerprint()
    if (directory / "labels.json").exists():
        return directory
    work = Path(tempfile.mkdtemp(dir=cache_root.parent if cache_root.parent.exists() else None))
    synth = _Synthesizer()
    labels = [_make(item, synth, work) for item in plan()]
    (work / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    directory.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(directory, ignore_errors=True)
    shutil.move(str(work), str(directory))
    return directory


def load(split: str | None = None, directory: Path | None = None) -> tuple[Path, list[dict[str, Any]]]:
    """The corpus directory and its labels, optionally one split ("tune" / "heldout" / "heldout_r2")."""
    root = directory or build()
    labels = json.loads((root / "labels.json").read_text())
    return root, [label for label in labels if split is None or label["split"] == split]


def read_pcm(directory: Path, label: dict[str, Any]) -> bytes:
    with wave.open(str(directory / label["file"]), "rb") as handle:
        return handle.readframes(handle.getnframes())


def _make(item: dict[str, Any], synth: _Synthesizer, work: Path) -> dict[str, Any]:
    voice = next(v for v in R2_VOICES if v.tag == item["voice"])
    parts = list(item["parts"])
    if item["style"] == "continuing" and not parts[0].endswith(","):
        parts[0] = parts[0] + ","
    pieces = [np.zeros(LEAD_MS * SAMPLES_PER_MS, dtype=np.int16)]
    segments = []
    cursor_ms = LEAD_MS
    for position, text in enumerate(parts):
        if position:
            pieces.append(np.zeros(item["pause_ms"] * SAMPLES_PER_MS, dtype=np.int16))
            cursor_ms += item["pause_ms"]
        speech = _trim(synth.speak(text, voice))
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


def _trim(samples: np.ndarray) -> np.ndarray:
    """Cut edge silence; bounds snap outward to whole ms so label positions are exact integers."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > TRIM_THRESHOLD)
    if loud.size == 0:
        raise ValueError("the synthesizer produced no audible speech")
    start = int(loud[0]) // SAMPLES_PER_MS * SAMPLES_PER_MS
    end = -(-(int(loud[-1]) + 1) // SAMPLES_PER_MS) * SAMPLES_PER_MS
    segment = samples[start:end]
    return np.concatenate([segment, np.zeros(end - start - segment.size, dtype=np.int16)])


class _Synthesizer:
    def __init__(self) -> None:
        self._piper: Any = None

    def speak(self, text: str, voice: Voice) -> np.ndarray:
        audio, rate_hz = self._espeak(text, voice) if voice.engine == "espeak" else self._joe(text, voice)
        resampled = soxr.resample(audio, rate_hz, RATE_HZ)
        return np.clip(np.round(resampled * 32768.0), -32768, 32767).astype(np.int16)

    @staticmethod
    def _espeak(text: str, voice: Voice) -> tuple[np.ndarray, int]:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "speech.wav"
            command = ["espeak-ng", "-v", voice.name, "-s", str(int(voice.rate)), "-w", str(path), text]
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
