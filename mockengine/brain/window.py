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

Older assistant replies, tool calls and the user's other words are left out. The choice is made where
the request is built (the session's event loop), and incrementally: a session's :class:`HistoryWindow`
remembers what it chose among the views before its last window and examines only the views that have
left the window since (a reply's turn: a few), so neither the brain's thread nor the loop walks the whole
conversation for it. The newest of each kind wins, so views dropped from the context's front (the
session's ``truncation``) take only themselves out. When the older views are not as it left them (an
item deleted or inserted among them, a kept view changed), it chooses again over all of them:
:func:`windowed`, the same choice made afresh.
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


_AFRESH_AFTER = 256  # views dropped from the front between two replies past which the choice is made anew


def _kind_of(view: TurnView) -> tuple[str, str] | None:
    """What an older view is kept as: ``("context", event)`` (the newest of each event is read),
    ``("question", "")`` too for a context item that puts a question on screen, ``("always", "")``, or
    ``("name", "")`` (the newest name given is read); None when the brain does not read it that far back."""
    text = _context_text(view)
    if text is not None:
        event, asks = _context_kinds(text)
        return ("question", event) if asks else ("context", event)
    if _kept_anyway(view):
        return ("always", "")
    if view.kind in _USER_KINDS and _gives_name(view.text):
        return ("name", "")
    return None


class HistoryWindow:
    """One session's choice of the older views, kept between its replies (see the module's docstring).
    :meth:`views` gives what :func:`windowed` gives for the same history, whatever came before."""

    def __init__(self) -> None:
        self._done = 0  # the views before the window examined, history[:_done]
        self._last: TurnView | None = None  # history[_done - 1] when examined
        self._newest: dict[tuple[str, str], int] = {}  # (kind, event) → index of the newest such view
        self._always: list[int] = []  # the views kept whatever newer ones say
        self._history: tuple[TurnView, ...] = ()

    def views(self, history: tuple[TurnView, ...]) -> tuple[TurnView, ...]:
        if len(history) <= HISTORY_WINDOW:
            return history
        start = len(history) - HISTORY_WINDOW
        while start > 0 and history[start].kind == "function_call_output":
            start -= 1  # the call it answers with it (``outputs.function_name_for``)
        shift = self._shift(history, start)
        if shift is None:
            self._done, self._newest, self._always = 0, {}, []
        else:
            self._done -= shift
            self._newest = {key: i - shift for key, i in self._newest.items() if i >= shift}
            self._always = [i - shift for i in self._always if i >= shift]
        for index in range(self._done, start):
            kind = _kind_of(history[index])
            if kind is None:
                continue
            if kind[0] == "always":
                self._always.append(index)
            elif kind[0] == "question":  # a question on screen is its event's newest too
                self._newest[("question", "")] = index
                self._newest[("context", kind[1])] = index
            else:
                self._newest[kind] = index
        self._done, self._last = start, history[start - 1]
        self._history = history
        first_end, user_turns = 0, 0
        while first_end < start and user_turns < FIRST_USER_TURNS:
            user_turns += history[first_end].kind in _USER_KINDS
            first_end += 1
        kept = sorted({*range(first_end), *self._always, *self._newest.values()})
        return tuple(history[i] for i in kept if i < start) + history[start:]

    def _shift(self, history: tuple[TurnView, ...], start: int) -> int | None:
        """How many views left the front since the last reply, when the views examined are otherwise as
        they were (the last one examined found that many places earlier, every kept one likewise); None
        when they must be examined again."""
        if self._last is None or self._done > start + _AFRESH_AFTER:
            return None
        for shift in range(min(self._done, _AFRESH_AFTER + 1)):
            at = self._done - 1 - shift
            if at < start and history[at] is self._last:
                break
        else:
            return None
        before = self._history
        kept = [*self._always, *self._newest.values()]
        if any(i >= shift and (i - shift >= start or history[i - shift] is not before[i]) for i in kept):
            return None
        return shift


def windowed(history: tuple[TurnView, ...]) -> tuple[TurnView, ...]:
    """``history`` (oldest first) as the brain reads it: itself when it holds at most ``HISTORY_WINDOW``
    views; else its newest ``HISTORY_WINDOW`` views after the older views the brain's memory reads (the
    module's docstring), in their order. Chosen afresh; a session keeps a :class:`HistoryWindow`."""
    return HistoryWindow().views(history)
