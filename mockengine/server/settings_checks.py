"""What is wrong with a ``Settings`` whose every field parsed: the checks ``serve`` makes at start-up,
shared with ``mockengine.testing.EngineThread`` (and so the pytest plugin's marker), so a value
``serve`` refuses is refused there too instead of being served (``@pytest.mark.mockengine(
audio_delta_ms=5000)`` ran an engine with deltas past HRP's 2000 ms cap, ``cors_origins=["nope"]`` one
no page could call, ``replay_speed=2`` with no recording one that ignored it).

Each check returns one sentence naming the setting by ``label(field)`` (``serve``'s ``--option``, or the
field's own name for the marker), or None when nothing is wrong.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from mockengine.settings import Settings, env_variable, option

if TYPE_CHECKING:
    from mockengine.brain.selection import ScenarioLibrary

Label = Callable[[str], str]


def source_label(given: Collection[str], environ: Mapping[str, str] | None = None) -> Label:
    """``serve``'s label for a field, naming where its value came from: its option when given on the
    command line (a field in ``given``) or left at its default, else its environment variable and option,
    ``MOCKENGINE_MAX_SESSIONS (--max-sessions)``. ``MOCKENGINE_MAX_SESSIONS=-1`` was reported as a bad
    ``--max-sessions``, an option the command line never held."""
    environ = os.environ if environ is None else environ

    def label(field: str) -> str:
        variable = env_variable(field)
        if field not in given and variable in environ:
            return f"{variable} ({option(field)})"
        return option(field)

    return label


# Settings that must be at least this. Below it an option would not be refused but misbehave:
# `--admission-max-queue -1` refused every session, `--tts-cache-mb -1` crashed with a traceback once the
# models had loaded, `--tts-threads 0` quietly meant 1.
MINIMUMS: tuple[tuple[str, float], ...] = (
    ("audio_pace", 0),
    ("first_delta_delay_ms", 0),
    ("text_tokens_per_s", 0),
    ("max_sessions", 0),
    ("max_input_buffer_s", 1),
    ("max_conversation_items", 1),
    ("max_conversation_audio_s", 1),
    ("session_max_s", 1),
    ("heartbeat_s", 0),
    ("mcp_timeout_s", 0.001),
    ("shutdown_grace_s", 0),
    ("tts_threads", 1),
    ("workers", 1),
    ("reclaim_interval_s", 0),
    ("tts_cache_mb", 0),
    ("stt_cache_mb", 0),
    ("admission_max_loop_lag_ms", 0),
    ("admission_max_queue", 0),
    ("max_pending_transcriptions", 0),
    ("replay_speed", 0),
    ("narrowband_beam_size", 1),
)
# The smallest --max-frame-bytes a session still works with: 64 KiB holds the largest event an ordinary
# client sends (one second of 24 kHz pcm16 in one input_audio_buffer.append is 64,000 base64 characters
# plus its envelope; a session.update with instructions and tools is a few KiB). `--max-frame-bytes 10`
# was taken, and every session then closed 1009 on its first event.
MIN_FRAME_BYTES = 64 * 1024
# The smallest --max-send-backlog-bytes: a reply's events queued in one step (200 ms audio deltas of
# ~13 KB of base64 each, held at a quarter of the bound) stay under it for a client that reads.
# `--max-send-backlog-bytes 1` was taken, and every session closed 1008 ("slow reader") on its fourth
# event.
MIN_SEND_BACKLOG_BYTES = 64 * 1024
PYTHON_MALLOCS = ("malloc", "pymalloc")  # server/allocator.CHOICES (not imported: it loads the C library)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# What a browser sends as Origin (RFC 6454 serialization): scheme://host[:port], nothing after but an
# optional "/" (cors.is_allowed drops it). `--cors-origin nope` was taken and could match no page.
ORIGIN = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://([^/?#@\s:\[\]]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?/?$")


MEDIA_PLANES = ("aiortc", "pion")


def value_problem(settings: Settings, label: Label = option) -> str | None:
    """A value out of its range or not one of its choices."""
    from mockengine.rtc.pion.plane import BUILD_NEEDS
    from mockengine.rtc.pion.plane import is_built as pion_is_built
    from mockengine.server.event_loop import LOOPS

    if settings.auth_failure not in ("close", "http"):
        return f"{label('auth_failure')} must be 'close' or 'http'"
    if not 1 <= settings.audio_delta_ms <= 2000:
        return f"{label('audio_delta_ms')} must be between 1 and 2000 (HRP maxAudioDeltaMs)"
    if not 0 <= settings.port <= 65535:  # the socket layer would take 70000 as 70000 - 65536
        return f"{label('port')} must be between 0 and 65535, not {settings.port}"
    for field in dataclasses.fields(settings):
        # nan passes every range check below (nan < 0 is false) and inf most: `--shutdown-grace-s inf`
        # was served, and its stop ended in an OverflowError traceback (a thread's wait past time_t).
        value = getattr(settings, field.name)
        if isinstance(value, float) and not math.isfinite(value):
            return f"{label(field.name)} must be a finite number, not {value:g}"
    for name, minimum in MINIMUMS:
        value = getattr(settings, name)
        if value < minimum:
            return f"{label(name)} must be at least {minimum:g}, not {value:g}"
    if settings.max_frame_bytes < MIN_FRAME_BYTES:
        return (
            f"{label('max_frame_bytes')} must be at least {MIN_FRAME_BYTES} (64 KiB: one second of audio in "
            f"one append, a session.update with its tools), not {settings.max_frame_bytes}"
        )
    if settings.max_send_backlog_bytes < MIN_SEND_BACKLOG_BYTES:
        return (
            f"{label('max_send_backlog_bytes')} must be at least {MIN_SEND_BACKLOG_BYTES} (64 KiB: a reply's "
            f"events queued at once for a client that reads), not {settings.max_send_backlog_bytes}"
        )
    if settings.tls and bool(settings.tls_cert) != bool(settings.tls_key):  # as server/tls.py refuses it
        return f"{label('tls_cert')} and {label('tls_key')} go together"
    if settings.log_level.upper() not in LOG_LEVELS:
        return f"{label('log_level')} must be one of {', '.join(LOG_LEVELS)}, not {settings.log_level!r}"
    if settings.python_malloc not in PYTHON_MALLOCS:
        choices = ", ".join(PYTHON_MALLOCS)
        return f"{label('python_malloc')} must be one of {choices}, not {settings.python_malloc!r}"
    if settings.loop not in LOOPS:
        return f"{label('loop')} must be one of {', '.join(LOOPS)}, not {settings.loop!r}"
    if settings.media_plane not in MEDIA_PLANES:
        return (
            f"{label('media_plane')} must be one of {', '.join(MEDIA_PLANES)}, not {settings.media_plane!r}"
        )
    if not 0 <= settings.media_udp_port <= 65535:
        return f"{label('media_udp_port')} must be between 0 and 65535, not {settings.media_udp_port}"
    if settings.media_plane == "pion" and not pion_is_built():
        return f"{label('media_plane')} pion needs its sidecar built: `make pion` ({BUILD_NEEDS})"
    if settings.media_plane == "pion" and settings.media_udp_port and settings.workers > 1:
        workers = label("workers")
        return f"{label('media_udp_port')} is one port: with {workers} > 1 leave it 0 (a port per worker)"
    for origin in settings.cors_origins:
        # "null": the Origin of file:// pages and sandboxed frames, which a browser does send.
        if origin not in ("*", "null") and ORIGIN.match(origin) is None:
            return (
                f"{label('cors_origins')} must be '*' or an origin, scheme://host[:port] "
                f"(e.g. https://app.example.com:8443), not {origin!r}"
            )
    return None


def replay_problem(settings: Settings, given: Collection[str] = (), label: Label = option) -> str | None:
    """``replay_speed`` or ``replay_strict`` given (named in ``given``, or not at its default) with no
    recording to shape: neither ``replay_dir`` nor a scenario of ``kind: recording`` (which replays with
    both, so refusing them there left such a scenario always paced and never strict)."""
    if settings.replay_dir:
        return None
    defaults = Settings()
    for name in ("replay_speed", "replay_strict"):
        if name in given or getattr(settings, name) != getattr(defaults, name):
            if _has_recording_scenario(settings):
                return None
            recording = label("replay_dir") + (" DIR" if label("replay_dir").startswith("--") else "")
            return (
                f"{label(name)} applies only with {recording} or a scenario of kind: recording "
                "(a recording to answer from)"
            )
    return None


def recording_problem(settings: Settings, label: Label = option) -> str | None:
    """``replay_dir`` set but not a recording (or one session directory of it): no such directory, a
    file, or no readable ``recording.json`` of this format. Read from disk, so ``serve`` makes it with its
    other file checks, before the models load: it said so only after loading them, seconds in."""
    if not settings.replay_dir:
        return None
    # Here, not at the top: the CLI's parser imports this module, and a recording's reader is for
    # `serve --replay` only (tests/integration/test_cli.py: no subcommand module before it is used).
    from mockengine.recordings.format import RecordingError
    from mockengine.recordings.recording import check_recording

    path = Path(settings.replay_dir)
    name = label("replay_dir")
    if not path.exists():
        return f"{name} {path}: no such directory (record one with `mockengine record --out DIR`)"
    if not path.is_dir():
        return f"{name} {path}: a file, not a recording directory"
    try:
        check_recording(path)  # its lines and WAV references too: a hand edit gone wrong, named by line
    except RecordingError as exc:
        return f"{name} {exc}"
    return None


def _has_recording_scenario(settings: Settings) -> bool:
    """Whether a scenario the settings load (``scenario``, ``scenarios_dir``) is of ``kind: recording``.
    A scenario that does not load says False: serving reports that mistake itself, with its file."""
    from mockengine.brain.scenario import ScenarioError
    from mockengine.brain.selection import load_library

    try:
        library = load_library(settings.scenario, settings.scenarios_dirs, settings.scenario_keys)
    except (ScenarioError, OSError):
        return False
    return any(scenario.recording is not None for scenario in library.scenarios.values())


def faults_problem(settings: Settings, label: Label = option) -> str | None:
    """A fault profile (``faults_file``) or server-wide fault (``fault``) that does not load, named with
    where it came from: ``MOCKENGINE_FAULT=nope`` said only "unknown fault kind 'nope'"."""
    from mockengine.faults.spec import FaultSpecError, load_profile, parse_faults

    if settings.faults_file:
        try:
            load_profile(settings.faults_file)
        except FaultSpecError as exc:  # its message starts with the file
            return f"{label('faults_file')} {exc}"
    if settings.fault:
        try:
            parse_faults(settings.fault)
        except FaultSpecError as exc:
            return f"{label('fault')} {settings.fault!r}: {exc}"
    return None


def voices_problem(settings: Settings, label: Label = option) -> str | None:
    """A voice catalogue (``voices_file``) that does not load, named with where it came from."""
    from mockengine.engines.errors import VoiceCatalogError
    from mockengine.engines.voices import load_voice_catalog

    if not settings.voices_file:
        return None
    try:
        load_voice_catalog(settings.voices_file)
    except VoiceCatalogError as exc:  # "voice catalogue PATH: problem"
        return f"{label('voices_file')} {str(exc).removeprefix('voice catalogue ')}"
    return None


def _scenario_setting(source: str, settings: Settings) -> str:
    """The setting that loaded the scenario file ``source``: ``scenario`` when it is that file, else
    ``scenarios_dir`` (a file in one of its directories; the packaged scenarios are never named)."""
    given = Path(settings.scenario) if settings.scenario else None
    if given is not None and given.is_file() and given.resolve() == Path(source).resolve():
        return "scenario"
    return "scenarios_dir"


def checked_scenarios(settings: Settings, label: Label = option) -> tuple[ScenarioLibrary | None, str | None]:
    """The user's scenario library (``scenario``, ``scenarios_dir``, ``scenario_keys``) and None, or None
    and the sentence naming the setting that does not load with where it came from; (None, None) when no
    setting names one (the packaged scenarios load with the models). Loading the scenarios is quick (no
    model), so ``serve`` makes this check before the models load (a missing scenario file was reported
    seconds in, and as a path alone) and passes the library on to them: it is loaded once. A rule's
    ``fault:`` is checked here too (a misspelt fault kind or parameter was reported once the models had
    loaded), named by its file, line and rule."""
    from mockengine.brain.scenario import ScenarioError, relative_note
    from mockengine.brain.selection import load_library
    from mockengine.faults.spec import FaultSpecError, scenario_rule_faults

    if not (settings.scenario or settings.scenarios_dirs or settings.scenario_keys):
        return None, None  # the packaged ones only: nothing of the user's to name (and 0.2 s saved at start)
    try:
        library = load_library(settings.scenario, settings.scenarios_dirs, settings.scenario_keys)
    except (ScenarioError, OSError) as whole:
        failed: Exception = whole
    else:
        for scenario in library.scenarios.values():
            try:
                scenario_rule_faults([scenario])
            except FaultSpecError as exc:  # its message starts with the scenario's file
                return None, f"{label(_scenario_setting(scenario.source, settings))} {exc}"
        return library, None
    # Which setting it was: each again, in the order load_library reads them.
    for directory in settings.scenarios_dirs:
        if not Path(directory).is_dir():
            return None, (
                f"{label('scenarios_dir')} {directory}: not a directory of scenario files"
                f"{relative_note(directory)}"
            )
    stages = (
        ("scenarios_dir", (None, settings.scenarios_dirs, None)),
        ("scenario", (settings.scenario, settings.scenarios_dirs, None)),
    )
    for field, arguments in stages:
        try:
            load_library(*arguments)
        except (ScenarioError, OSError) as exc:
            return None, f"{label(field)} {exc}"
    return None, f"{label('scenario_keys')} {failed}"
