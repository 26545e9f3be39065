"""Turn detection changing type (server_vad ↔ semantic_vad) while a turn is open: the new detector hears
the turn again from its onset and ends it by its own rule, under the item id of the one
``speech_started`` the client got, whether the user still speaks or already stopped (the change landing
in the turn's final silence, before the old detector decided). Before, a turn whose speech had ended
waited for an onset that never came: no ``speech_stopped``, no commit, no reply."""

from __future__ import annotations

import pytest

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol import client_events as ce
from mockengine.realtime.turn_state import TurnState
from tests.conftest import make_driver

SERVER = {"type": "server_vad", "silence_duration_ms": 500}
SEMANTIC = {"type": "semantic_vad", "eagerness": "high"}


def _set_turn_detection(driver, turn_detection: dict[str, object]) -> None:
    driver.send(
        ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": turn_detection}}})
    )


def _kinds(driver) -> list[str]:
    return [event["type"] for _, event in driver.events]


@pytest.mark.parametrize(
    ("before", "after", "silence_ms"),
    [(SERVER, SEMANTIC, 200), (SEMANTIC, SERVER, 200), (SERVER, SEMANTIC, 0), (SEMANTIC, SERVER, 0)],
    ids=["server-to-semantic-in-silence", "semantic-to-server-in-silence", "server-to-semantic", "back"],
)
def test_a_turn_open_when_the_type_changes_ends_commits_and_is_answered(
    before: dict[str, object], after: dict[str, object], silence_ms: int
) -> None:
    driver = make_driver()
    _set_turn_detection(driver, before)
    driver.stream_silence(300)
    driver.stream(synthetic_voiced_pcm16(800))
    driver.stream_silence(silence_ms)  # 200 ms: stopped speaking, the old detector not yet decided
    (started,) = driver.of_type("input_audio_buffer.speech_started")
    assert "input_audio_buffer.speech_stopped" not in _kinds(driver)
    _set_turn_detection(driver, after)
    driver.stream_silence(3000)
    driver.run_until_idle()
    kinds = _kinds(driver)
    assert kinds.count("input_audio_buffer.speech_started") == 1
    (stopped,) = driver.of_type("input_audio_buffer.speech_stopped")
    (committed,) = driver.of_type("input_audio_buffer.committed")
    assert stopped["item_id"] == committed["item_id"] == started["item_id"]
    assert "response.done" in kinds[kinds.index("input_audio_buffer.committed") :]
    assert driver.session.turns.state is TurnState.LISTENING


def test_a_change_after_the_new_types_silence_window_ends_the_turn_with_the_update() -> None:
    """semantic_vad (low eagerness: it waits) → server_vad after 700 ms of silence: server_vad's 500 ms
    window has passed, so the turn ends right after session.updated, at the speech end + 500 ms."""
    driver = make_driver()
    _set_turn_detection(driver, {"type": "semantic_vad", "eagerness": "low"})
    driver.stream_silence(300)
    driver.stream(synthetic_voiced_pcm16(800))
    driver.stream_silence(700)
    assert "input_audio_buffer.speech_stopped" not in _kinds(driver)
    since = len(driver.events)
    _set_turn_detection(driver, SERVER)
    kinds = _kinds(driver)[since:]
    assert kinds[:3] == [
        "session.updated",
        "input_audio_buffer.speech_stopped",
        "input_audio_buffer.committed",
    ]
    (stopped,) = driver.of_type("input_audio_buffer.speech_stopped")
    assert 1500 <= stopped["audio_end_ms"] <= 1700  # speech ended about 1100 ms in, + the 500 ms window
