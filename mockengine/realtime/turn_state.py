"""The user turn's state in one session, as a table (the way h11's ``_state.py`` writes HTTP's).

States
------
``MANUAL``           turn detection is off (``turn_detection: null``); the client commits the audio.
``LISTENING``        turn detection is on and nobody is speaking.
``IN_TURN``          ``speech_started`` went out; the turn's item id is reserved until it is committed.
``LISTENING_PAUSE``  turn detection was switched off mid-turn: the open turn (its id, its audio) waits
                     for the client's commit, which creates no response.
``HANDED_OVER``      turn detection changed type mid-turn (a fresh detector): the open turn goes on, and
                     the new detector's onset continues it without a second ``speech_started``. The new
                     detector hears the turn again from its onset (``TurnDetector.take_over``), so this
                     state normally lasts only until that replay's onset, within the same update.

Events
------
The detector's signals (``SPEECH_STARTED``, ``SPEECH_STOPPED``), the client's ``COMMIT`` and ``CLEAR``
(``input_audio_buffer.*``), the server_vad ``IDLE_TIMEOUT``, and what a ``session.update`` does to
``audio.input.turn_detection``: ``DETECTION_OFF`` (to null), ``DETECTION_ON`` (from null),
``DETECTION_RETYPED`` (another type: a fresh detector) and ``DETECTION_RETUNED`` (same type, new
settings from now on).

What goes with each transition (the item id, the detector) is applied by ``turns.UserTurns._transition``,
the one place the state changes. A pair missing from the table is a bug in the engine, never client
input: :func:`next_turn_state` raises :class:`IllegalTurnTransition`.
"""

from __future__ import annotations

from enum import Enum


class TurnState(Enum):
    MANUAL = "manual"
    LISTENING = "listening"
    IN_TURN = "in_turn"
    LISTENING_PAUSE = "listening_pause"
    HANDED_OVER = "handed_over"


class TurnEvent(Enum):
    SPEECH_STARTED = "speech_started"
    SPEECH_STOPPED = "speech_stopped"
    COMMIT = "commit"
    CLEAR = "clear"
    IDLE_TIMEOUT = "idle_timeout"
    DETECTION_OFF = "detection_off"
    DETECTION_ON = "detection_on"
    DETECTION_RETYPED = "detection_retyped"
    DETECTION_RETUNED = "detection_retuned"


S, E = TurnState, TurnEvent

TRANSITIONS: dict[TurnState, dict[TurnEvent, TurnState]] = {
    S.MANUAL: {
        E.COMMIT: S.MANUAL,
        E.CLEAR: S.MANUAL,
        E.DETECTION_ON: S.LISTENING,
    },
    S.LISTENING: {
        E.SPEECH_STARTED: S.IN_TURN,
        E.COMMIT: S.LISTENING,
        E.CLEAR: S.LISTENING,
        E.IDLE_TIMEOUT: S.LISTENING,  # commits the silence heard and responds
        E.DETECTION_OFF: S.MANUAL,
        E.DETECTION_RETYPED: S.LISTENING,
        E.DETECTION_RETUNED: S.LISTENING,
    },
    S.IN_TURN: {
        E.SPEECH_STOPPED: S.LISTENING,
        E.COMMIT: S.LISTENING,  # the turn under way is committed; speech still going on is a new onset
        E.CLEAR: S.LISTENING,
        E.DETECTION_OFF: S.LISTENING_PAUSE,
        E.DETECTION_RETYPED: S.HANDED_OVER,
        E.DETECTION_RETUNED: S.IN_TURN,
    },
    S.LISTENING_PAUSE: {
        E.COMMIT: S.MANUAL,
        E.CLEAR: S.MANUAL,
        E.DETECTION_ON: S.LISTENING,  # the open turn is dropped: speech under way is a fresh onset
    },
    S.HANDED_OVER: {
        E.SPEECH_STARTED: S.IN_TURN,  # the same turn goes on: no second speech_started
        E.COMMIT: S.LISTENING,
        E.CLEAR: S.LISTENING,
        E.DETECTION_OFF: S.LISTENING_PAUSE,
        E.DETECTION_RETYPED: S.HANDED_OVER,
        E.DETECTION_RETUNED: S.HANDED_OVER,
    },
}

# The states in which a user turn is open (it has an item id) and in which a detector runs.
OPEN_TURN_STATES = frozenset({S.IN_TURN, S.LISTENING_PAUSE, S.HANDED_OVER})
DETECTING_STATES = frozenset({S.LISTENING, S.IN_TURN, S.HANDED_OVER})


class IllegalTurnTransition(RuntimeError):
    """The engine applied an event its turn state does not allow (a bug, not client input)."""


def next_turn_state(state: TurnState, event: TurnEvent) -> TurnState:
    """The state after ``event`` in ``state``; raises :class:`IllegalTurnTransition` for a pair the
    table does not have."""
    try:
        return TRANSITIONS[state][event]
    except KeyError:
        raise IllegalTurnTransition(f"turn event {event.name} in state {state.name}") from None
