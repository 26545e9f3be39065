"""The plain-append fast path (issue 15) answers exactly as the general path it bypasses.

A plain ``input_audio_buffer.append`` goes from the socket to the session without an event object or
the session's dispatch: ``parse_plain_append`` → ``SessionLoop._receive_audio`` →
``RealtimeSession.receive_audio``. Each test feeds the same input through both paths and compares
everything that comes out: events (with their seeded ids), effects, errors.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from aiohttp import WSMsgType

from mockengine.audio import vad
from mockengine.audio.g711 import from_pcm16_24k
from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import BASE62, IdFactory, _seeded_chars
from mockengine.protocol import client_events as ce
from mockengine.protocol.client_events import parse_client_event, parse_plain_append
from mockengine.protocol.errors import ProtocolError
from mockengine.realtime.effects import Step
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.server import session_loop
from mockengine.server.realtime_ws import SessionRunner
from mockengine.server.trace import Tracer
from mockengine.settings import Settings
from mockengine.virtual_time import VirtualTimeDriver
from tests.conftest import FAKE_TRANSCRIPT, make_fake_resources
from tests.unit.test_hot_path import APPEND_FRAMES

VOICED = synthetic_voiced_pcm16(1200)
PAUSE = bytes(48 * 900)


def _append(pcm: bytes, event_id: str | None = None) -> str:
    event: dict[str, Any] = {"type": "input_audio_buffer.append", "audio": base64.b64encode(pcm).decode()}
    if event_id is not None:
        event["event_id"] = event_id
    return json.dumps(event)


def _outcome(parse: Any, raw: str) -> Any:
    try:
        return parse(raw)
    except ProtocolError as exc:
        return ("error", exc.payload(), exc.event_id)


def _as_event(raw: str) -> Any:
    plain = parse_plain_append(raw)
    return None if plain is None else ce.InputAudioBufferAppend(*plain)


@pytest.mark.parametrize("raw", [*APPEND_FRAMES, _append(b"\x01\x02" * 480, "evt_9"), _append(b"")])
def test_parse_plain_append_is_what_the_general_parser_makes_of_a_plain_append(raw: str) -> None:
    fast = _outcome(_as_event, raw)
    if fast is not None:  # not plain: the general parser alone decides
        assert fast == _outcome(parse_client_event, raw)


def test_a_plain_append_with_broken_base64_is_refused_with_its_event_id() -> None:
    raw = '{"type": "input_audio_buffer.append", "audio": "AA!A", "event_id": "evt_bad"}'
    with pytest.raises(ProtocolError) as caught:
        parse_plain_append(raw)
    assert caught.value.event_id == "evt_bad"
    assert _outcome(_as_event, raw) == _outcome(parse_client_event, raw)


def _decode_audio_path(raw: str, input_format: str) -> tuple[bytes, str | None] | None:
    """``parse_plain_append`` as it was before the seventh pass (docs/cpu.md): the event id through
    ``_echoable_event_id`` and the audio through ``decode_audio``, whatever they hold."""
    append = ce._plain_append(raw)
    if append is None:
        return None
    event_id = ce._echoable_event_id(append.get("event_id"))
    try:
        return ce.decode_audio(append, input_format), event_id
    except ProtocolError as exc:
        exc.event_id = event_id
        exc.client_event_type = append["type"]
        raise


def _outcome_with_type(parse: Any, raw: str) -> Any:
    try:
        return parse(raw)
    except ProtocolError as exc:
        return ("error", exc.payload(), exc.event_id, exc.client_event_type)


@pytest.mark.parametrize(
    "raw",
    [
        _append(b"\x01\x02" * 480),
        _append(b"\x01\x02" * 480, "evt_9"),
        _append(b"\x01\x02" * 480, ""),
        _append(b""),
        _append(b"\xff" * 7, "evt_odd"),  # padded base64
        '{"type": "input_audio_buffer.append", "audio": "AA!A", "event_id": "evt_bad"}',
        '{"type": "input_audio_buffer.append", "audio": "AAAA===="}',  # padding pybase64 would take
        '{"type": "input_audio_buffer.append", "audio": "AAA"}',  # not a multiple of 4
        '{"type": "input_audio_buffer.append", "audio": "\u00e9\u00e9\u00e9\u00e9", "event_id": "e"}',
        '{"type": "input_audio_buffer.append", "audio": "' + "A" * (ce.MAX_APPEND_BYTES * 4 // 3 + 8) + '"}',
        '{"type": "input_audio_buffer.append", "audio": "AAAA", "event_id": 7}',  # not plain
    ],
)
@pytest.mark.parametrize("input_format", ["audio/pcm", "audio/pcmu"])
def test_parse_plain_append_gives_what_decode_audio_gives(raw: str, input_format: str) -> None:
    # Its inlined decode (no ``decode_audio``/``_require_str`` calls, no ``_echoable_event_id`` call for
    # an append without an id) gives the same audio, event id and errors as the calls it replaced.
    assert _outcome_with_type(lambda r: parse_plain_append(r, input_format), raw) == _outcome_with_type(
        lambda r: _decode_audio_path(r, input_format), raw
    )


_B64 = base64.b64encode(b"\x01\x02" * 480).decode()
_BARE_SHAPES = [
    json.dumps({"type": "input_audio_buffer.append", "audio": _B64}),
    json.dumps({"type": "input_audio_buffer.append", "audio": _B64}, separators=(",", ":")),  # JSON.stringify
    json.dumps({"audio": _B64, "type": "input_audio_buffer.append"}),
    json.dumps({"audio": _B64, "type": "input_audio_buffer.append"}, separators=(",", ":")),
    json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(b"\xff" * 7).decode()}),
    json.dumps({"type": "input_audio_buffer.append", "audio": ""}),
]


@pytest.mark.parametrize(
    "raw",
    [
        *_BARE_SHAPES,
        # Shapes the shortcut must leave to orjson (or refuse as the general parse does):
        '{"type":"input_audio_buffer.append","audio":"AAAA","type":"input_audio_buffer.append","audio":"BBBB"}',
        '{"type":"input_audio_buffer.append","audio":"AA\\/A"}',  # an escaped "/"
        '{"type":"input_audio_buffer.append","audio":"AA A"}',
        '{"type":"input_audio_buffer.append","audio":"AAAA===="}',
        '{"type":"input_audio_buffer.append","audio":"AA=A"}',
        '{"type":"input_audio_buffer.append","audio":"AAA"}',
        '{"type":"input_audio_buffer.append","audio":"AAAA","event_id":"evt_1"}',
        '{"type":"input_audio_buffer.append","audio":"AAAA"} ',
        '{"type":"input_audio_buffer.append","audio":"AAAA"}}',
        '{"type":"input_audio_buffer.append","audio":"AAAA", "x": "AAAA"}',
        '{"type":"input_audio_buffer.append","audio":"' + "A" * (ce.MAX_APPEND_BYTES * 4 // 3 + 8) + '"}',
        '{"audio":"AAAA","type":"input_audio_buffer.append","audio":"!!!!","type":"input_audio_buffer.append"}',
        '{"type":"input_audio_buffer.append","audio":"}',  # the prefix and the suffix overlap
        '{"audio":","type":"input_audio_buffer.append"}',
    ],
)
@pytest.mark.parametrize("input_format", ["audio/pcm", "audio/pcmu"])
def test_the_bare_append_shortcut_answers_as_the_general_parse(raw: str, input_format: str) -> None:
    # ``parse_plain_append`` first tries ``bare_append_audio`` (no orjson parse, tenth pass of
    # docs/cpu.md); with or without it every frame gives the same audio, event id and error.
    assert _outcome_with_type(lambda r: parse_plain_append(r, input_format), raw) == _outcome_with_type(
        lambda r: ce.parse_general_plain_append(r, input_format), raw
    )
    assert _outcome(_as_event, raw) in (None, _outcome(parse_client_event, raw))


# The shortcut in Python and, where ``mockengine.audio._fastpath`` is built, in C (twenty-first pass).
_BARE_IMPLS = [ce._bare_append_audio_py, ce.bare_append_audio]


def test_the_bare_append_shortcut_is_the_c_function_where_it_is_built() -> None:
    native = isinstance(ce.bare_append_audio, functools.partial)
    assert native == vad.NATIVE_AVAILABLE  # (one module: both or neither)
    if native:
        assert ce.bare_append_audio.args == (ce._BARE_APPENDS, ce._MAX_AUDIO_CHARS, ce._b64decode)


@pytest.mark.parametrize("impl", _BARE_IMPLS)
@pytest.mark.parametrize("raw", _BARE_SHAPES)
def test_the_bare_append_shortcut_takes_what_clients_send(
    raw: str, impl: Callable[[str], bytes | None]
) -> None:
    assert impl(raw) == base64.b64decode(json.loads(raw)["audio"])


def test_the_c_shortcut_answers_as_the_python_one_on_mangled_frames() -> None:
    # Frames a client might send or a fuzzer would: every shape, cut, grown, with a character replaced or
    # put in anywhere (quotes, backslashes, `=`, spaces, non-ASCII, a lone surrogate's escape), lengths
    # around the multiple of 4 and the longest audio taken.
    rng = random.Random(15)
    alphabet = 'AQ/+=9"\\ é€\x00\n}{:,'
    longest = "A" * ce._MAX_AUDIO_CHARS
    seeds = [*_BARE_SHAPES, '{"type":"input_audio_buffer.append","audio":"' + longest + '"}']
    seeds.append('{"type":"input_audio_buffer.append","audio":"' + longest + 'AAAA"}')
    for n in range(6_000):
        raw = rng.choice(seeds[:-2] if n % 500 else seeds)
        for _ in range(rng.randint(0, 3)):
            where = rng.randint(0, len(raw))
            match rng.randint(0, 3):
                case 0:
                    raw = raw[:where] + rng.choice(alphabet) + raw[where:]
                case 1:
                    raw = raw[:where] + rng.choice(alphabet) + raw[where + 1 :]
                case 2:
                    raw = raw[:where] + raw[where + 1 :]
                case _:
                    raw = raw[:where] if rng.random() < 0.5 else raw[where:]
        assert ce.bare_append_audio(raw) == ce._bare_append_audio_py(raw), raw[:120]


def test_the_c_shortcut_refuses_wrong_arguments_without_crashing() -> None:
    if not isinstance(ce.bare_append_audio, functools.partial):
        pytest.skip("mockengine.audio._fastpath is not built (test_..._is_the_c_function_... says why)")
    native = ce.bare_append_audio.func
    with pytest.raises(TypeError):
        ce.bare_append_audio(b'{"type":"input_audio_buffer.append","audio":"AAAA"}')  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        native([("{", "}")], 8, ce._b64decode, "{AAAA}")
    with pytest.raises(TypeError):
        native((("{", b"}"),), 8, ce._b64decode, "{AAAA}")
    with pytest.raises(TypeError):
        native((("{", "}"),), 8, ce._b64decode)
    # A decoder that fails otherwise than on the text: its error is not swallowed as "not an append".
    with pytest.raises(ZeroDivisionError):
        native((("{", "}"),), 8, lambda *_: 1 / 0, "{AAAA}")
    assert native((("{", "}"),), 8, ce._b64decode, "{AAAA}") == b"\x00\x00\x00"


@pytest.mark.parametrize("impl", _BARE_IMPLS)
def test_the_bare_append_shortcut_takes_canonical_base64_only(impl: Callable[[str], bytes | None]) -> None:
    # ``bare_append_audio`` (pybase64, ``validate`` passed by position since the eighteenth pass of
    # docs/cpu.md) takes canonical text only (``=`` only in the last two places): over every text of 4
    # and 8 characters from ``A``, ``Q``, ``/`` and ``=`` it decodes exactly what the standard library
    # decodes from canonical text, and leaves everything else (``AAAA====``, which pybase64 alone would
    # take, ``AA=A``, …) to the general parse, which answers as before.
    alphabet = "AQ/="
    for size in (4, 8):
        for n in range(len(alphabet) ** size):
            text = "".join(alphabet[n // len(alphabet) ** k % len(alphabet)] for k in range(size))
            canonical = "=" not in text[:-2] and not text.endswith("=A") and not text.endswith("=Q")
            canonical = canonical and not text.endswith("=/")
            try:
                expected = base64.b64decode(text, validate=True) if canonical else None
            except ValueError:
                expected = None
            for raw in (
                json.dumps({"type": "input_audio_buffer.append", "audio": text}),
                json.dumps({"type": "input_audio_buffer.append", "audio": text}, separators=(",", ":")),
            ):
                assert impl(raw) == expected, text
                assert _outcome(parse_plain_append, raw) == _outcome(ce.parse_general_plain_append, raw)


class FastDriver(VirtualTimeDriver):
    """A driver whose appends take the session's fast path."""

    def stream(self, pcm16: bytes, chunk_ms: int = 20) -> None:
        step = chunk_ms * 48
        for offset in range(0, len(pcm16), step):
            chunk = pcm16[offset : offset + step]
            self.advance(self.now_ms + len(chunk) / 48)
            self.audio_sent_ms += len(chunk) // 48
            self._apply(self.session.receive_audio(chunk, None, self.now_ms))


def _session(max_input_buffer_ms: int = 900_000) -> RealtimeSession:
    return RealtimeSession(
        SessionOptions(
            model="gpt-realtime",
            pacing=Pacing(pace=0.0, first_delta_delay_ms=0),
            created_at_s=1_700_000_000,
            max_input_buffer_ms=max_input_buffer_ms,
        ),
        brain=ScriptedBrain(load_scenario(None), seed=3),
        ids=IdFactory(3),
        tokens=TokenCounter(None),
        describe_image=describe_image,
    )


def _conversation(driver_class: type[VirtualTimeDriver], chunk_ms: int) -> list[tuple[float, dict[str, Any]]]:
    replay = driver_class(_session(), FakeTranscriber(default=FAKE_TRANSCRIPT), FakeSynthesizer())
    replay.start()
    for turn in range(3):
        replay.stream(PAUSE + VOICED + PAUSE, chunk_ms)
        if turn == 1:  # barge in while the reply plays
            replay.stream(VOICED[: 48 * 400], chunk_ms)
    replay.run_until_idle()
    return replay.events


@pytest.mark.parametrize("chunk_ms", [20, 30, 7])
def test_receive_audio_emits_what_receive_emits_for_the_same_appends(chunk_ms: int) -> None:
    fast = _conversation(FastDriver, chunk_ms)
    assert fast == _conversation(VirtualTimeDriver, chunk_ms)
    kinds = {event["type"] for _, event in fast}
    assert {"input_audio_buffer.speech_started", "response.done", "response.output_audio.delta"} <= kinds


def test_receive_audio_decodes_the_session_input_format_like_receive() -> None:
    update = {"type": "realtime", "audio": {"input": {"format": {"type": "audio/pcmu"}}}}
    ulaw = from_pcm16_24k(PAUSE + VOICED + PAUSE, "audio/pcmu")
    steps = []
    for fast in (True, False):
        session = _session()
        session.start()
        session.receive(ce.SessionUpdate(update), 0.0)
        out = []
        for i in range(0, len(ulaw), 160):
            chunk = ulaw[i : i + 160]
            step = (
                session.receive_audio(chunk, None, i / 8.0)
                if fast
                else session.receive(ce.InputAudioBufferAppend(chunk), i / 8.0)
            )
            out.append((step.events, step.effects))
        steps.append(out)
    assert steps[0] == steps[1]
    assert any(events for events, _ in steps[0])


def test_a_full_input_buffer_gives_the_same_error_with_the_append_event_id() -> None:
    fast, slow = _session(max_input_buffer_ms=100), _session(max_input_buffer_ms=100)
    session_update = ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": None}}})
    for session in (fast, slow):
        session.start()
        session.receive(session_update, 0.0)
    chunk = bytes(48 * 60)
    results: list[tuple[Step, Step]] = []
    for n in range(3):
        results.append(
            (
                fast.receive_audio(chunk, f"evt_{n}", n * 60.0),
                slow.receive(ce.InputAudioBufferAppend(chunk, f"evt_{n}"), n * 60.0),
            )
        )
    assert all(a == b for a, b in results)
    error = results[-1][0].events[0]
    assert error["type"] == "error" and error["error"]["event_id"] == "evt_2"


class _Socket:
    closed = False

    async def send_frame(self, data: bytes, opcode: WSMsgType) -> None:
        await asyncio.sleep(0)


async def _outbox_after(frames: list[str], monkeypatch: pytest.MonkeyPatch, fast: bool) -> list[bytes]:
    if not fast:
        monkeypatch.setattr(session_loop, "parse_plain_append", lambda _raw, _input_format: None)
    settings = Settings()
    runner = SessionRunner(_Socket(), _session(), make_fake_resources(settings), Tracer(None))  # type: ignore[arg-type]
    runner.apply(runner.session.start())
    runner._held_total_ms = -runner.loop.time() * 1000.0  # the session clock starts at 0 …
    frozen_ms = 0.0
    runner.now_ms = lambda: frozen_ms  # type: ignore[method-assign]  # … and stands still
    for raw in frames:
        runner.on_client_text(raw)
    texts = []
    while not runner.outbox.empty():
        queued = runner.outbox.get_nowait()
        assert queued is not None
        texts.append(queued[1])
    if runner.timer is not None:
        runner.timer.cancel()
    monkeypatch.undo()
    return texts


async def test_the_runner_sends_the_same_events_for_plain_appends(monkeypatch: pytest.MonkeyPatch) -> None:
    pcm = PAUSE + VOICED + PAUSE
    frames = [_append(pcm[i : i + 960], f"evt_{i}" if i % 7 == 0 else None) for i in range(0, len(pcm), 960)]
    frames.insert(20, '{"type": "input_audio_buffer.append", "audio": "AA!A", "event_id": "evt_bad"}')
    frames.insert(30, '{"type": "input_audio_buffer.commit", "event_id": "evt_c"}')
    fast = await _outbox_after(frames, monkeypatch, fast=True)
    slow = await _outbox_after(frames, monkeypatch, fast=False)
    assert fast == slow
    kinds = [json.loads(text)["type"] for text in fast]
    assert "error" in kinds and "input_audio_buffer.speech_started" in kinds


def test_seeded_ids_are_the_characters_random_choice_gives() -> None:
    for seed in range(200):
        fast, slow = random.Random(f"{seed}:event_"), random.Random(f"{seed}:event_")
        for length in (21, 16, 8, 15, 1, 0):
            assert _seeded_chars(fast, length) == "".join(slow.choice(BASE62) for _ in range(length))
        assert fast.random() == slow.random()  # and the generator is left in the same state


def test_seeded_ids_drawn_ahead_are_those_drawn_one_at_a_time() -> None:
    """IdFactory draws each kind's characters ahead (a pool per kind): the ids, kinds interleaved, a
    client's id taken, are still those of ``random.choice`` on the kind's own stream, id after id."""
    for seed in range(60):
        ids, streams = IdFactory(seed), {}
        order = random.Random(seed)

        def slow(kind: str, length: int, seed: int = seed, streams: dict = streams) -> str:
            rng = streams.setdefault(kind, random.Random(f"{seed}:{kind}"))
            return kind + "".join(rng.choice(BASE62) for _ in range(length))

        upcoming = slow("item_", 21)
        ids.take(upcoming)  # the factory skips it, as it did: the next one instead
        assert ids.item() == slow("item_", 21)
        for _ in range(400):
            kind = order.choice(("event_", "item_", "resp_", "call_"))
            length = 16 if kind == "call_" else 21
            assert ids.new(kind, length) == slow(kind, length)
        rng = random.Random(f"{seed}:obfuscation")
        assert [ids.obfuscation() for _ in range(30)] == [
            "".join(rng.choice(BASE62) for _ in range(rng.randint(8, 15))) for _ in range(30)
        ]


def test_unseeded_obfuscation_lengths_are_each_of_8_to_15() -> None:
    ids = IdFactory()
    lengths = [len(ids.obfuscation()) for _ in range(4_000)]
    assert set(lengths) == set(range(8, 16))
    assert all(380 < lengths.count(n) < 620 for n in range(8, 16))  # ~500 each


def test_unseeded_ids_are_base62_of_the_wire_length_and_use_every_character() -> None:
    ids = IdFactory()
    events = [ids.event() for _ in range(2_000)]
    assert all(e.startswith("event_") and len(e) == 6 + 21 for e in events)
    assert len(set(events)) == len(events)
    assert set("".join(e[6:] for e in events)) == set(BASE62)  # 42,000 draws: each of 62 ~677 times
    assert len(ids.call()) == len("call_") + 16 and 8 <= len(ids.obfuscation()) <= 15
    assert IdFactory().event() != IdFactory().event()
