"""The user turn's state table (realtime/turn_state.py): driven directly, walked by real sessions, and
the only way a session changes its turn state."""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
import pkgutil
from collections.abc import Callable
from pathlib import Path

import pytest

import mockengine.realtime
from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.protocol import client_events as ce
from mockengine.realtime import turns
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.realtime.turn_state import (
    DETECTING_STATES,
    OPEN_TURN_STATES,
    TRANSITIONS,
    IllegalTurnTransition,
    TurnEvent,
    TurnState,
    next_turn_state,
)
from mockengine.virtual_time import VirtualTimeDriver
from tests.conftest import make_driver, make_session

SERVER_VAD = {"type": "server_vad"}
SEMANTIC_VAD = {"type": "semantic_vad", "eagerness": "high"}
SEMANTIC_LOW = {"type": "semantic_vad", "eagerness": "low"}
IDLE_TIMEOUT = {"type": "server_vad", "idle_timeout_ms": 5000}
PATIENT = {"type": "server_vad", "silence_duration_ms": 20_000}


def test_every_pair_in_the_table_goes_where_it_says_and_every_other_pair_raises() -> None:
    for state, event in itertools.product(TurnState, TurnEvent):
        expected = TRANSITIONS[state].get(event)
        if expected is None:
            with pytest.raises(IllegalTurnTransition, match=f"{event.name} in state {state.name}"):
                next_turn_state(state, event)
        else:
            assert next_turn_state(state, event) is expected


def test_every_state_is_reachable_and_can_get_back_to_no_open_turn() -> None:
    reached = {TurnState.MANUAL, TurnState.LISTENING}  # where a session starts
    while True:
        more = {after for state in reached for after in TRANSITIONS[state].values()} - reached
        if not more:
            break
        reached |= more
    assert reached == set(TurnState)
    for state in OPEN_TURN_STATES:  # a commit always closes the open turn
        assert TRANSITIONS[state][TurnEvent.COMMIT] not in OPEN_TURN_STATES


def _check_invariants(session: RealtimeSession) -> None:
    """What each state means for the data that goes with it."""
    user = session.turns
    assert (user.detector is not None) == (user.state in DETECTING_STATES), user.state
    assert (user.turn_item_id is not None) == (user.state in OPEN_TURN_STATES), user.state
    if user.detector is not None:
        assert user.detector.in_turn == (user.state is TurnState.IN_TURN), user.state


def _turn_detection(driver: VirtualTimeDriver, config: dict[str, object] | None) -> None:
    driver.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": config}}}))


def _script(driver: VirtualTimeDriver) -> list[tuple[str, list[Callable[[], None]]]]:
    """Steps that together take a session through every transition of the table."""

    def speak(ms: int = 600) -> Callable[[], None]:
        return lambda: driver.stream(synthetic_voiced_pcm16(ms))

    def silence(ms: int) -> Callable[[], None]:
        def run() -> None:
            driver.stream_silence(ms)
            driver.run_until_idle()

        return run

    def send(event: ce.ClientEvent) -> Callable[[], None]:
        return lambda: driver.send(event)

    def detect(config: dict[str, object] | None) -> Callable[[], None]:
        return lambda: _turn_detection(driver, config)

    def stale(config: dict[str, object]) -> Callable[[], None]:
        """A turn whose speech is older than the detector's history (a patient server_vad still in it
        after 10.5 s of silence), retyped: the new detector has nothing to take over and waits for an
        onset (HANDED_OVER)."""

        def run() -> None:
            _turn_detection(driver, PATIENT)
            driver.stream(synthetic_voiced_pcm16(600))
            driver.stream_silence(10_500)
            _turn_detection(driver, config)
            assert driver.session.turns.state is TurnState.HANDED_OVER

        return run

    commit, clear = send(ce.InputAudioBufferCommit()), send(ce.InputAudioBufferClear())
    retuned, longer = {**SERVER_VAD, "silence_duration_ms": 500}, {**SERVER_VAD, "silence_duration_ms": 300}
    return [
        ("listening: commit, clear, retuned", [silence(300), commit, silence(200), clear, detect(retuned)]),
        ("in turn: retuned, stopped", [speak(), detect(longer), silence(800)]),
        ("in turn: commit, clear", [speak(), commit, speak(), clear]),
        ("in turn: retyped, taken over at once", [speak(), detect(SEMANTIC_VAD), silence(3000)]),
        ("handed over: retuned, retyped", [stale(SEMANTIC_VAD), detect(SEMANTIC_LOW), detect(SERVER_VAD)]),
        ("handed over: speech goes on", [speak(300), silence(800)]),
        ("handed over: commit", [stale(SEMANTIC_VAD), commit]),
        ("handed over: clear", [stale(SEMANTIC_VAD), clear]),
        ("handed over: off; pause: commit", [stale(SEMANTIC_VAD), detect(None), commit]),
        ("manual: commit, clear, on", [speak(300), commit, speak(300), clear, detect(SERVER_VAD)]),
        ("listening: off, retyped", [detect(None), detect(SERVER_VAD), detect(SEMANTIC_VAD)]),
        ("in turn: off; pause: clear", [speak(), detect(None), clear]),
        ("pause: on", [detect(SERVER_VAD), speak(), detect(None), detect(SERVER_VAD), silence(800)]),
        # run_until_idle after the reply reaches its idle timer
        ("listening: idle timeout", [detect(IDLE_TIMEOUT), speak(), silence(600)]),
    ]


def test_a_session_walks_every_transition_of_the_table_and_keeps_its_invariants(monkeypatch) -> None:
    walked: set[tuple[TurnState, TurnEvent]] = set()

    def recording(state: TurnState, event: TurnEvent) -> TurnState:
        walked.add((state, event))
        return next_turn_state(state, event)

    monkeypatch.setattr(turns, "next_turn_state", recording)
    driver = make_driver()
    _check_invariants(driver.session)
    for name, steps in _script(driver):
        for step in steps:
            step()
            _check_invariants(driver.session)
        assert not driver.of_type("error"), name
    legal = {(state, event) for state, row in TRANSITIONS.items() for event in row}
    assert walked == legal, sorted((s.name, e.name) for s, e in legal - walked)
    assert driver.of_type("input_audio_buffer.timeout_triggered")


def test_the_turn_state_changes_only_in_the_transition_function() -> None:
    """Every assignment to the turn state and what goes with it is in ``UserTurns._transition`` (or the
    constructor, or the detector restart it calls); nothing else in the package assigns them."""
    guarded = {"state", "turn_item_id", "detector", "_detector_generation"}
    allowed = {"__init__", "_transition", "_restart_detector"}
    tree = ast.parse(inspect.getsource(turns))
    user_turns = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "UserTurns")
    for method in user_turns.body:
        if not isinstance(method, ast.FunctionDef):
            continue
        for node in ast.walk(method):
            targets = _assigned_attributes(node)
            if targets & guarded:
                assert method.name in allowed, f"{method.name} assigns {targets & guarded}"
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "_restart_detector":
                assert method.name == "_transition", method.name
    for module in _realtime_modules():
        if module is turns:
            continue
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            assert not (_assigned_attributes(node) & {"turn_item_id", "_detector_generation"}), module
            assert not _assigns_turns_attribute(node), module


def _assigned_attributes(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Assign):
        targets = [t for target in node.targets for t in ast.walk(target)]
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = list(ast.walk(node.target))
    else:
        return set()
    return {t.attr for t in targets if isinstance(t, ast.Attribute)}


def _assigns_turns_attribute(node: ast.AST) -> bool:
    """``<something>.turns.state = …`` and the like, from outside ``turns``."""
    if not isinstance(node, ast.Assign):
        return False
    return any(
        isinstance(t, ast.Attribute)
        and isinstance(t.value, ast.Attribute)
        and t.value.attr == "turns"
        and t.attr in {"state", "detector", "turn_item_id"}
        for target in node.targets
        for t in ast.walk(target)
    )


def _realtime_modules() -> list[object]:
    names = [m.name for m in pkgutil.iter_modules(mockengine.realtime.__path__)]
    return [importlib.import_module(f"mockengine.realtime.{name}") for name in names]


def test_a_session_created_with_turn_detection_off_starts_manual_and_commits() -> None:
    """An ephemeral key's session may start with ``turn_detection: null`` (it used to fail to build)."""
    base = make_session()
    session = RealtimeSession(
        SessionOptions(
            model="gpt-realtime",
            initial_session={"type": "realtime", "audio": {"input": {"turn_detection": None}}},
        ),
        brain=base.brain,
        ids=base.ids,
        tokens=base.responses.tokens,
        describe_image=base.items.describe_image,
    )
    assert session.turns.state is TurnState.MANUAL and session.turns.detector is None
    driver = VirtualTimeDriver(session, FakeTranscriber(default="Hello there."), FakeSynthesizer())
    driver.start()
    driver.stream(synthetic_voiced_pcm16(800))
    assert not driver.of_type("input_audio_buffer.speech_started")
    driver.send(ce.InputAudioBufferCommit())
    driver.run_until_idle()
    assert len(driver.of_type("input_audio_buffer.committed")) == 1
    assert not driver.of_type("response.created")  # manual turns: the client asks for the response
    assert session.turns.state is TurnState.MANUAL


def test_the_table_in_docs_architecture_is_the_code_s() -> None:
    text = (Path(__file__).parents[2] / "docs" / "architecture.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `") and "\\ event" not in line]
    columns = list(TurnEvent)
    documented = {}
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        name = cells[0].split("`")[1]
        if name not in TurnState.__members__:
            continue
        documented[TurnState[name]] = {
            event: TurnState[cell] for event, cell in zip(columns, cells[1:], strict=True) if cell
        }
    assert documented == TRANSITIONS
