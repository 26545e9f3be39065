"""The heavy, shared parts of a running engine: models, the brain's scenario, the worker pool.

Loaded once at start-up (``load_resources``); every session shares them. Models load from the
installed packages or the paths in settings — never from the network.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from mockengine.brain.scenario import Scenario
from mockengine.brain.selection import ScenarioLibrary, SelectingBrain, load_library
from mockengine.engines.blas import limit_blas_threads
from mockengine.engines.cache import MIB, ByteLRU, CachingTranscriber
from mockengine.engines.errors import ModelNotFound
from mockengine.engines.fakes import FAKE_TRANSCRIPT, FakeSynthesizer, FakeTranscriber
from mockengine.engines.stt import Transcriber, WhisperTranscriber
from mockengine.engines.tokens import TokenCounter
from mockengine.engines.tts import PiperSynthesizer, Synthesizer
from mockengine.engines.voices import BUNDLED_PIPER_VOICE, VOICE_NAMES, load_voice_catalog
from mockengine.server.executors import MeteredExecutor
from mockengine.server.metrics import cache_observer, count_fingerprint_search
from mockengine.server.thread_names import os_thread_named
from mockengine.settings import Settings

log = logging.getLogger("mockengine")


@dataclass
class Resources:
    settings: Settings
    transcriber: Transcriber
    synthesizer: Synthesizer
    tokens: TokenCounter
    scenarios: ScenarioLibrary
    # whisper runs one call at a time (its lock), so it gets one thread; piper gets the rest. Sharing one
    # pool let transcriptions waiting on whisper's lock hold every thread while speech waited.
    stt_executor: MeteredExecutor
    tts_executor: MeteredExecutor
    # semantic_vad's pause probes (``settings.turn_whisper_model``); None: ``transcriber`` hears them.
    # It shares the stt executor (one whisper call at a time on the machine).
    turn_transcriber: Transcriber | None = None
    load_seconds: float = 0.0
    model_info: dict[str, Any] = field(default_factory=dict)
    # Bounded caches by name ("transcripts", "speech"), for /healthz and the bench.
    caches: dict[str, ByteLRU[Any]] = field(default_factory=dict)
    # The participant's replies (server/brain_lane.py): pure Python, so one thread; off the event loop.
    brain_executor: MeteredExecutor = field(default_factory=lambda: MeteredExecutor("brain", 1))

    def brain(
        self,
        seed: int | None,
        *,
        model: str | None = None,
        api_key: str | None = None,
        scenario: str | None = None,
        role: str | None = None,
    ) -> SelectingBrain:
        """The brain for one Realtime session or one Chat Completions request.

        ``model`` (the requested model name), ``api_key`` (the bearer key) and ``scenario`` (a name asked
        for explicitly, e.g. the ``?scenario=`` query parameter) select the scenario, as described in
        ``mockengine.brain.selection``; ``role`` fixes the participant's role. A marker in the
        instructions / system prompt is read per reply by the brain itself. Raises ``UnknownScenario``
        (a client error) for a name no loaded scenario has.
        """
        chosen = self.scenarios.select(scenario=scenario, api_key=api_key, model=model)
        return SelectingBrain(self.scenarios, chosen, seed, role)

    @property
    def scenario(self) -> Scenario:
        """The server's default scenario."""
        return self.scenarios.default_scenario

    def with_settings(self, settings: Settings) -> Resources:
        """These models with other settings (tests, the pytest plugin); the scenario library is reloaded
        when a scenario setting changed. Raises ``ScenarioError`` for a broken scenario file."""
        changed = resources_scenario_settings(settings) != resources_scenario_settings(self.settings)
        scenarios = (
            load_library(settings.scenario, settings.scenarios_dirs, settings.scenario_keys)
            if changed
            else self.scenarios
        )
        info = {**self.model_info, "scenario": scenarios.default, "scenarios": scenarios.names()}
        return dataclasses.replace(self, settings=settings, scenarios=scenarios, model_info=info)

    def close(self) -> None:
        self.stt_executor.shutdown(wait=False, cancel_futures=True)
        self.tts_executor.shutdown(wait=False, cancel_futures=True)
        self.brain_executor.shutdown(wait=False, cancel_futures=True)


def resources_scenario_settings(settings: Settings) -> tuple[str | None, str | None, str | None]:
    return settings.scenario, settings.scenarios_dir, settings.scenario_keys


def load_resources(settings: Settings, scenarios: ScenarioLibrary | None = None) -> Resources:
    """Load whisper, piper (every voice profile) and the scenario library (``scenarios`` when the caller
    loaded it already, as ``serve`` does to report a bad one before the models). Raises ModelNotFound with
    the setting and the package to install when a model cannot be found."""
    started = time.perf_counter()
    limit_blas_threads(1)  # OpenBLAS's idle threads spin a core's fraction away (engines/blas.py)
    log.info("loading the models (whisper %s, piper, scenarios)", settings.whisper_model or "default")
    # the models' native pools are named for their model in /proc (server/thread_names.py)
    with os_thread_named("whisper"):
        transcriber = WhisperTranscriber(
            settings.whisper_model, narrowband_beam_size=settings.narrowband_beam_size
        )
    stt_cache: ByteLRU[Any] = ByteLRU(int(settings.stt_cache_mb * MIB), cache_observer("transcripts"))
    turn_transcriber, turn_cache = _turn_transcriber(settings)
    tts_cache: ByteLRU[bytes] = ByteLRU(int(settings.tts_cache_mb * MIB), cache_observer("speech"))
    catalog = load_voice_catalog(settings.voices_file)
    if settings.voice_model:
        catalog = {
            name: dataclasses.replace(p, model=settings.voice_model) if p.model == BUNDLED_PIPER_VOICE else p
            for name, p in catalog.items()
        }
    # Seeded engines zero piper's noise so reply audio repeats byte for byte (DESIGN §4).
    with os_thread_named("piper"):
        synthesizer = PiperSynthesizer(catalog, deterministic=settings.is_seeded, cache=tts_cache)
        synthesizer.preload()
    if scenarios is None:
        scenarios = load_library(settings.scenario, settings.scenarios_dirs, settings.scenario_keys)
    elapsed = time.perf_counter() - started
    log.info("models loaded in %.2f s (whisper: %s)", elapsed, transcriber.model_path)
    return Resources(
        settings=settings,
        transcriber=CachingTranscriber(
            transcriber,
            stt_cache,
            fingerprints=settings.stt_cache_fingerprint,
            on_search=count_fingerprint_search,
        ),
        turn_transcriber=turn_transcriber,
        synthesizer=synthesizer,
        tokens=transcriber.token_counter(),
        scenarios=scenarios,
        stt_executor=MeteredExecutor("stt", 1),
        tts_executor=MeteredExecutor("tts", settings.tts_threads),
        load_seconds=elapsed,
        caches={"transcripts": stt_cache, "speech": tts_cache, **turn_cache},
        model_info={
            "whisper": transcriber.model_path,
            "turn_whisper": _model_path(turn_transcriber) or transcriber.model_path,
            "voices": sorted(catalog),
            "scenario": scenarios.default,
            "scenarios": scenarios.names(),
        },
    )


def make_fake_resources(
    settings: Settings, transcript: str = FAKE_TRANSCRIPT, *, speech_cache: bool = False
) -> Resources:
    """A server's shared parts on the stand-in engines (``engines/fakes.py``): loads no model, starts in
    milliseconds. Every transcript is ``transcript``, speech a tone per sentence. The tests'
    ``fake_resources`` fixture and ``tools/append_bench.py`` (the engine it counts) use it.
    ``speech_cache``: the tones kept in a ``speech`` cache of ``settings.tts_cache_mb`` as piper's
    sentences are (``tools/append_bench.py``: what a warm engine does); off, every reply makes its tone."""
    scenarios = load_library(settings.scenario, settings.scenarios_dirs, settings.scenario_keys)
    tts_cache: ByteLRU[bytes] | None = None
    if speech_cache:
        tts_cache = ByteLRU(int(settings.tts_cache_mb * MIB), cache_observer("speech"))
    return Resources(
        settings=settings,
        transcriber=FakeTranscriber(default=transcript),
        synthesizer=FakeSynthesizer(cache=tts_cache),
        caches={} if tts_cache is None else {"speech": tts_cache},
        tokens=TokenCounter(None),
        scenarios=scenarios,
        stt_executor=MeteredExecutor("stt", 1),
        tts_executor=MeteredExecutor("tts", settings.tts_threads),
        model_info={"whisper": "fake", "voices": list(VOICE_NAMES), "scenario": scenarios.default},
    )


def _model_path(transcriber: CachingTranscriber | None) -> str | None:
    return None if transcriber is None else str(getattr(transcriber.inner, "model_path", None))


def _turn_transcriber(settings: Settings) -> tuple[CachingTranscriber | None, dict[str, ByteLRU[Any]]]:
    """semantic_vad's pause recogniser and its transcript cache (its own: another model's words for the
    same audio must not be served from the main cache), or (None, {}) for ``"same"``."""
    if settings.turn_whisper_model == "same":
        return None, {}
    try:
        with os_thread_named("turn_whisper"):
            model = WhisperTranscriber(
                settings.turn_whisper_model, narrowband_beam_size=settings.narrowband_beam_size
            )
    except ModelNotFound as exc:  # it named --whisper-model, the option that is fine
        raise ModelNotFound(
            what=exc.what,
            looked_for=exc.looked_for,
            setting="--turn-whisper-model",
            env="MOCKENGINE_TURN_WHISPER_MODEL",
            package=exc.package,
        ) from exc
    cache: ByteLRU[Any] = ByteLRU(int(settings.stt_cache_mb * MIB), cache_observer("turn_transcripts"))
    return CachingTranscriber(model, cache), {"turn_transcripts": cache}
