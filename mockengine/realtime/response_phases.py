"""The phases of one response's output stream and the moves between them (the model: h11's ``_state``).

Every event a ``ResponseStreamer`` emits after ``response.created`` is one of the moves in ``TRANSITIONS``;
``next_phase`` rejects any other (an engine bug, never the client's doing):

    phase           move            -> next            what goes out
    THINKING        REPLY           -> PREPARING       nothing (the brain's reply is known)
    THINKING        RESPONSE_DONE   -> DONE            response.done (cancelled or failed before a reply)
    PREPARING       MESSAGE_ADDED   -> MESSAGE         response.output_item.added (+ content_part.added)
    PREPARING       FUNCTION_CALL   -> FUNCTION_CALLS  one whole function call (the reply has no message)
    PREPARING       RESPONSE_DONE   -> DONE            response.done (cut before any output: ``output: []``)
    MESSAGE         MESSAGE_DELTA   -> MESSAGE         a text, audio or audio-transcript delta
    MESSAGE         MESSAGE_DONE    -> FUNCTION_CALLS  the part's and the item's done events
    FUNCTION_CALLS  FUNCTION_CALL   -> FUNCTION_CALLS  output_item.added, arguments deltas and done, item done
    PREPARING       APPROVAL_ASKED  -> AWAITING_APPROVAL  a whole mcp_approval_request item
    FUNCTION_CALLS  APPROVAL_ASKED  -> AWAITING_APPROVAL
    AWAITING_APPROVAL APPROVAL_ANSWERED -> FUNCTION_CALLS  nothing (the client's mcp_approval_response came)
    AWAITING_APPROVAL RESPONSE_DONE -> DONE            response.done (cut while waiting)
    PREPARING       MCP_CALL        -> MCP_CALL        an mcp_call's output_item.added, arguments deltas and
    FUNCTION_CALLS  MCP_CALL        -> MCP_CALL          done, mcp_call.in_progress; the server is called
    MCP_CALL        MCP_CALL_DONE   -> FUNCTION_CALLS  mcp_call.completed (or .failed), item done
    FUNCTION_CALLS  RESPONSE_DONE   -> DONE            response.done, rate_limits.updated

*THINKING*: ``response.created`` went out, no reply yet (the user's transcript is pending, then the brain
decides). *PREPARING*: the reply is known but nothing of it went out yet (a spoken message is announced
with its first audio delta, as the live service announces an item when the model starts writing it, so
a cancel or barge-in before that leaves no empty item behind, reference §3.6). *MESSAGE*: the reply's
one message (spoken or written) is open. *FUNCTION_CALLS*: no message is open; zero or more function
calls, then ``response.done``. *MCP_CALL*: a hosted MCP call is open and its server is being called
(``realtime.mcp``); its result closes it. *AWAITING_APPROVAL*: an ``mcp_approval_request`` went out and
the response waits for the client's ``mcp_approval_response`` (approved, the call follows). A cut
(cancel, barge-in, ``max_output_tokens``, failure) closes an open message as ``incomplete`` first (an
open MCP call with an error), so ``response.done`` never leaves an item open.
"""

from __future__ import annotations

import enum


class Phase(enum.Enum):
    THINKING = "thinking"
    PREPARING = "preparing"
    MESSAGE = "message"
    FUNCTION_CALLS = "function_calls"
    MCP_CALL = "mcp_call"
    AWAITING_APPROVAL = "awaiting_approval"
    DONE = "done"


class Move(enum.Enum):
    REPLY = "reply"
    MESSAGE_ADDED = "message_added"
    MESSAGE_DELTA = "message_delta"
    MESSAGE_DONE = "message_done"
    FUNCTION_CALL = "function_call"
    MCP_CALL = "mcp_call"
    MCP_CALL_DONE = "mcp_call_done"
    APPROVAL_ASKED = "approval_asked"
    APPROVAL_ANSWERED = "approval_answered"
    RESPONSE_DONE = "response_done"


TRANSITIONS: dict[tuple[Phase, Move], Phase] = {
    (Phase.THINKING, Move.REPLY): Phase.PREPARING,
    (Phase.THINKING, Move.RESPONSE_DONE): Phase.DONE,
    (Phase.PREPARING, Move.MESSAGE_ADDED): Phase.MESSAGE,
    (Phase.PREPARING, Move.FUNCTION_CALL): Phase.FUNCTION_CALLS,
    (Phase.PREPARING, Move.RESPONSE_DONE): Phase.DONE,
    (Phase.MESSAGE, Move.MESSAGE_DELTA): Phase.MESSAGE,
    (Phase.MESSAGE, Move.MESSAGE_DONE): Phase.FUNCTION_CALLS,
    (Phase.FUNCTION_CALLS, Move.FUNCTION_CALL): Phase.FUNCTION_CALLS,
    (Phase.PREPARING, Move.MCP_CALL): Phase.MCP_CALL,
    (Phase.FUNCTION_CALLS, Move.MCP_CALL): Phase.MCP_CALL,
    (Phase.MCP_CALL, Move.MCP_CALL_DONE): Phase.FUNCTION_CALLS,
    (Phase.PREPARING, Move.APPROVAL_ASKED): Phase.AWAITING_APPROVAL,
    (Phase.FUNCTION_CALLS, Move.APPROVAL_ASKED): Phase.AWAITING_APPROVAL,
    (Phase.AWAITING_APPROVAL, Move.APPROVAL_ANSWERED): Phase.FUNCTION_CALLS,
    (Phase.AWAITING_APPROVAL, Move.RESPONSE_DONE): Phase.DONE,
    (Phase.FUNCTION_CALLS, Move.RESPONSE_DONE): Phase.DONE,
}


class IllegalMove(RuntimeError):
    """A streamer tried a move its phase does not allow: an engine bug, never the client's doing."""


# TRANSITIONS keyed by the members' names: an Enum member hashes through ``Enum.__hash__``, a Python
# method (two calls per lookup, every delta of a reply moves once: issue 15, eighth pass); a name is a
# ``str`` whose hash is cached. The same rows, so the same answers.
_BY_NAMES: dict[tuple[str, str], Phase] = {
    (phase._name_, move._name_): after for (phase, move), after in TRANSITIONS.items()
}


def next_phase(phase: Phase, move: Move) -> Phase:
    """The phase after ``move`` in ``phase``. Raises :class:`IllegalMove` if the table has no such row."""
    try:
        return _BY_NAMES[phase._name_, move._name_]
    except KeyError:
        raise IllegalMove(f"{move.value} is not allowed while the response is {phase.value}") from None
