"""What of a long conversation the participant reads for one reply: its newest turns in full, and from the
older ones only what its memory looks that far back for.

A study's call makes a turn every few seconds for half an hour: ~1,000 items by its end, and every
reply's walks over the history (the situation, the words said before, a saved conversation's envelope)
grew with them, on the one ``brain`` thread every session shares (docs/cpu.md, fifteenth pass). The
replies themselves only look back a few turns, save for what a model remembers from the start of a
conversation, so :func:`windowed` keeps the newest ``HISTORY_WINDOW`` views and, before them, the views
the brain's memory features read however old:

- the app's standing words (``system`` items: a name the app gives, ``_told_by_the_app``), and of the
  context items the newest of each event and the newest question on screen (``read_situation`` takes
  the newest ``participants``, ``paused``, ``question``, ``screen`` …);
- the newest user words that give the user's name ("My name is Ada", ``facts.given_name``: "what's my
  name?" a thousand turns later; the newest is the one read), a saved conversation's envelope
  (Pipecat's), and images (the newest one shown);
- the conversation's start up to the user's ``FIRST_USER_TURNS``-th turn (a title is made from the first
  words, a short summary from the oldest);
- a function output's call, when the window would start between them.

Older assistant replies, tool calls and the user's other words are left out. The choice is made per view
by its kind and, for user words, a test of the text kept by the text (:func:`_gives_name`), so the walk
over the older views is a few attribute reads each; it runs where the request is built (the session's
event loop, beside ``brain_history``'s walk over the same items), not in the brain's thread.
"""

from __future__ import annotations

import functools

from mockengine.brain import facts, saved_conversation
from mockengine.brain.context import is_context_text, parse_context
from mockengine.brain.model import TurnView

# The newest views of the history read in full: dozens of turns, over any reference back a reply makes
# ("the second one", "what did you just say", a call and its output, a booking's slots over its turns).
HISTORY_WINDOW = 200
# The user's first turns, kept however old: a title reads the first words, a short summary the oldest.
FIRST_USER_TURNS = 16
_USER_KINDS = ("user_text", "user_audio")


@functools.lru_cache(maxsize=4096)
def _gives_name(text: str) -> bool:
    """The user's words give their name (``facts.given_name``). Kept by the text: a call's turns repeat,
    and every reply asks again for each older turn."""
    return facts.given_name(text) is not None


@functools.lru_cache(maxsize=4096)
def _context_kinds(text: str) -> tuple[str, bool]:
    """A context item's event name, and whether it puts a question on screen. Kept by the text."""
    event = parse_context(text)
    return event.event, event.as_question() is not None


def _context_text(view: TurnView) -> str | None:
    """The text of a context item (``situation.context_of``'s rule), None for any other view."""
    if view.kind == "context" or (view.kind in ("user_text", "system") and is_context_text(view.text)):
        return view.text
    return None


def _kept_anyway(view: TurnView) -> bool:
    """An older view read however old as what it is: images (the newest shown), the app's standing words
    (a system item), a saved conversation's envelope (Pipecat's)."""
    return (
        bool(view.images)
        or view.kind == "system"
        or (view.kind == "user_text" and saved_conversation.is_envelope(view.text))
    )


def windowed(history: tuple[TurnView, ...]) -> tuple[TurnView, ...]:
    """``history`` (oldest first) as the brain reads it: itself when it holds at most ``HISTORY_WINDOW``
    views; else its newest ``HISTORY_WINDOW`` views after the older views the brain's memory reads (the
    module's docstring; of the user's words that give a name, the newest), in their order."""
    if len(history) <= HISTORY_WINDOW:
        return history
    start = len(history) - HISTORY_WINDOW
    while start > 0 and history[start].kind == "function_call_output":
        start -= 1  # the call it answers with it (``outputs.function_name_for``)
    first_end, user_turns = 0, 0
    while first_end < start and user_turns < FIRST_USER_TURNS:
        user_turns += history[first_end].kind in _USER_KINDS
        first_end += 1
    kept: list[TurnView] = list(history[:first_end])  # the first user turns and what came between them
    named = False
    events: set[str] = set()  # the context events met (newest first): an older one of each is not read
    question = False
    older: list[TurnView] = []
    for index in range(start - 1, first_end - 1, -1):  # newest first: the newest of each kind is read
        view = history[index]
        text = _context_text(view)
        if text is not None:
            event, asks = _context_kinds(text)
            if event not in events or (asks and not question):
                older.append(view)
            events.add(event)
            question = question or asks
        elif _kept_anyway(view):
            older.append(view)
        elif not named and view.kind in _USER_KINDS and _gives_name(view.text):
            older.append(view)
            named = True
    older.reverse()
    return (*kept, *older, *history[start:])
