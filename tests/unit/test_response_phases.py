"""The response streamer's phase table, driven directly, and proof that the streamer moves only through it."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import mockengine.realtime.streaming as streaming
from mockengine.brain.model import Reply, ToolCall
from mockengine.engines.tokens import TokenCounter
from mockengine.protocol import client_events as ce
from mockengine.realtime.response import Pacing
from mockengine.realtime.response_phases import TRANSITIONS, IllegalMove, Move, Phase, next_phase
from mockengine.realtime.streaming import ResponseStreamer
from tests.conftest import make_driver
from tests.streamers import streamer

ILLEGAL = [pair for pair in itertools.product(Phase, Move) if pair not in TRANSITIONS]


@pytest.mark.parametrize(("phase", "move"), list(TRANSITIONS))
def test_every_legal_move_lands_where_the_table_says(phase: Phase, move: Move) -> None:
    assert next_phase(phase, move) is TRANSITIONS[phase, move]


@pytest.mark.parametrize(("phase", "move"), ILLEGAL)
def test_every_other_move_raises(phase: Phase, move: Move) -> None:
    with pytest.raises(IllegalMove, match=f"{move.value} is not allowed while the response is {phase.value}"):
        next_phase(phase, move)


def test_the_table_has_one_start_one_end_and_no_dead_end() -> None:
    assert not [move for (phase, move) in TRANSITIONS if phase is Phase.DONE]
    reachable, frontier = {Phase.THINKING}, [Phase.THINKING]
    while frontier:
        phase = frontier.pop()
        for (source, _), target in TRANSITIONS.items():
            if source is phase and target not in reachable:
                reachable.add(target)
                frontier.append(target)
    assert reachable == set(Phase)
    # response.done is possible from every phase but MESSAGE and MCP_CALL, which close their item first.
    ends = {phase for (phase, move) in TRANSITIONS if move is Move.RESPONSE_DONE}
    assert ends == {Phase.THINKING, Phase.PREPARING, Phase.FUNCTION_CALLS, Phase.AWAITING_APPROVAL}
    assert (Phase.MESSAGE, Move.MESSAGE_DONE) in TRANSITIONS


@pytest.fixture
def moves(monkeypatch) -> list[tuple[Phase, Move, Phase]]:
    """Every call the streamer makes to the table, as (phase, move, next phase)."""
    seen: list[tuple[Phase, Move, Phase]] = []

    def recording(phase: Phase, move: Move) -> Phase:
        target = next_phase(phase, move)
        seen.append((phase, move, target))
        return target

    monkeypatch.setattr(streaming, "next_phase", recording)
    return seen


def _streamer(modality: str = "text", max_output_tokens: Any = "inf") -> ResponseStreamer:
    pacing = Pacing(pace=1.0, first_delta_delay_ms=0, delta_ms=100, text_tokens_per_s=0.0)
    return streamer(modality, max_output_tokens, pacing, TokenCounter())


def _path(moves: list[tuple[Phase, Move, Phase]]) -> list[str]:
    """The moves in order, repeated deltas shown once; asserts each move starts where the last ended."""
    phase = Phase.THINKING
    names: list[str] = []
    for source, move, target in moves:
        assert source is phase, f"the streamer left {phase} without the table (found in {source})"
        phase = target
        if not (names and names[-1] == move.value == Move.MESSAGE_DELTA.value):
            names.append(move.value)
    return names


def test_a_written_reply_with_calls_walks_the_table(moves) -> None:
    streamer = _streamer()
    calls = (ToolCall("f", '{"a": 1}'), ToolCall("g", "{}"))
    events, _ = streamer.begin(Reply("Hello there friend.", calls), 0.0)
    assert streamer.phase is Phase.DONE and events[-2]["type"] == "response.done"
    assert _path(moves) == [
        "reply",
        "message_added",
        "message_delta",
        "message_done",
        "function_call",
        "function_call",
        "response_done",
    ]


def test_a_spoken_reply_cut_mid_audio_closes_its_message_before_done(moves) -> None:
    streamer = _streamer("audio")
    _, speech = streamer.begin(Reply("One sentence here."), 0.0)
    assert streamer.is_thinking is False and streamer.phase is Phase.PREPARING
    streamer.on_speech(0, b"\x01\x00" * 24_000)
    assert streamer.advance(0.0)  # the first delta only: paced at real time
    assert streamer.phase is Phase.MESSAGE
    types = [e["type"] for e in streamer.cancel("turn_detected")]
    assert types.index("response.output_item.done") < types.index("response.done")
    assert _path(moves) == ["reply", "message_added", "message_delta", "message_done", "response_done"]
    assert len(speech) == 1


def test_calls_only_and_a_cancel_while_thinking(moves) -> None:
    streamer = _streamer()
    streamer.begin(Reply(None, (ToolCall("f", "{}"),)), 0.0)
    assert _path(moves) == ["reply", "function_call", "response_done"]
    moves.clear()
    thinking = _streamer()
    assert thinking.is_thinking and thinking.advance(10.0) == []
    thinking.cancel("client_cancelled")
    assert _path(moves) == ["response_done"] and thinking.phase is Phase.DONE


def test_max_output_tokens_ends_through_the_table(moves) -> None:
    streamer = _streamer(max_output_tokens=1)
    streamer.begin(Reply("A long answer of many words.", (ToolCall("f", "{}"),)), 0.0)
    assert streamer.response.status == "incomplete"
    assert _path(moves) == ["reply", "message_added", "message_delta", "message_done", "response_done"]


def test_a_finished_response_refuses_more_output() -> None:
    streamer = _streamer()
    streamer.begin(Reply("Done."), 0.0)
    assert streamer.advance(5.0) == []
    with pytest.raises(IllegalMove):
        streamer.cancel("client_cancelled")
    with pytest.raises(IllegalMove):
        streamer.begin(Reply("Again."), 0.0)


def test_a_session_s_responses_move_only_through_the_table(moves) -> None:
    """Through the whole session core: a paced spoken reply, a barge-in style cancel, then a written one."""
    driver = make_driver(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    driver.send(ce.ConversationItemCreate(_user("Tell me a story")))
    driver.send(ce.ResponseCreate({}))
    driver.advance(400)
    driver.send(ce.ResponseCancel())
    first = _path(moves)
    assert first == ["reply", "message_added", "message_delta", "message_done", "response_done"]
    moves.clear()
    driver.send(ce.ResponseCreate({"output_modalities": ["text"]}))
    driver.run_until_idle()
    assert _path(moves) == ["reply", "message_added", "message_delta", "message_done", "response_done"]


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
