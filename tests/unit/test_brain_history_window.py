"""A reply's work in the brain's thread is bounded by a window of the conversation, not by its length: at
2,000 items a reply walks no more views than at a few hundred, and the brain lane counts no item's text
again (docs/cpu.md, fifteenth pass). What the brain remembers from long before the window (a name given,
the app's system words, the newest context of each kind, the conversation's first words) it still reads.
Counted, not timed: these hold on any machine."""

from __future__ import annotations

import random

import pytest

from mockengine.brain import facts, saved_conversation, situation
from mockengine.brain.context import is_context_text, parse_context
from mockengine.brain.model import TurnView
from mockengine.brain.window import FIRST_USER_TURNS, HISTORY_WINDOW, HistoryWindow, windowed
from mockengine.protocol import client_events as ce
from mockengine.realtime.conversation import Item
from mockengine.realtime.effects import Think
from tests.conftest import RecordingDriver, make_recording_driver

QUESTION = "What is the capital of France?"
ANSWER = "Paris is the capital of France."


def _filled(items: int, first: str = "Hello there.") -> RecordingDriver:
    """A session thinking aside (as a server's), its conversation already holding ``items`` spoken turns
    and replies, the first user words ``first``."""
    driver = make_recording_driver()
    driver.session.think_aside()
    conversation = driver.session.ctx.conversation
    for n in range(items):
        if n % 2 == 0:
            said = first if n == 0 else f"{QUESTION} ({n})"
            content = [{"type": "input_audio", "transcript": said}]
            conversation.insert(Item(f"item_u{n}", "message", role="user", content=content))
        else:
            content = [{"type": "output_audio", "transcript": ANSWER}]
            conversation.insert(Item(f"item_a{n}", "message", role="assistant", content=content))
    return driver


def _one_reply(
    driver: RecordingDriver, words: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[Think, int, str]:
    """Ask for a reply to ``words``: the ``Think`` job, how many views the brain's situation read walked
    while working it out, and the reply's text."""
    walked = 0
    context_of = situation.context_of

    def counted(item: TurnView) -> object:
        nonlocal walked
        walked += 1
        return context_of(item)

    monkeypatch.setattr(situation, "context_of", counted)
    driver.effects.clear()
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": words}]}
    driver.send(ce.ConversationItemCreate(message))
    driver.send(ce.ResponseCreate({}))
    job = next(e for e in driver.effects if isinstance(e, Think))
    outcome = job.brain.reply(job.request)
    monkeypatch.setattr(situation, "context_of", context_of)
    driver._apply(driver.session.on_reply(job.key, outcome, driver.now_ms))
    driver.run_until_idle()
    return job, walked, outcome.text or ""


def test_a_reply_reads_no_more_at_2000_items_than_at_300(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = {}
    for items in (300, 2000):
        job, walked, text = _one_reply(_filled(items), QUESTION, monkeypatch)
        assert "Paris" in text
        counts[items] = (len(job.request.history), walked, len(job.texts))
    views, walked, texts = counts[2000]
    assert counts[300] == counts[2000], counts  # the window's size, whatever the conversation's length
    assert views <= HISTORY_WINDOW + FIRST_USER_TURNS * 2 + 2, counts
    assert walked <= 3 * views, counts
    assert texts == 1  # the instructions: the items' texts were counted when the context was fitted


def test_the_name_given_at_the_start_is_remembered_2000_items_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, _, text = _one_reply(_filled(2000, "My name is Ada."), "What's my name?", monkeypatch)
    assert text == "Your name is Ada."


def _views(n: int) -> list[TurnView]:
    return [
        TurnView(f"u{i}", "user_audio", f"{QUESTION} {i}")
        if i % 2 == 0
        else TurnView(f"a{i}", "assistant", ANSWER)
        for i in range(n)
    ]


def test_a_short_history_is_read_whole() -> None:
    history = tuple(_views(HISTORY_WINDOW))
    assert windowed(history) is history


def test_the_older_views_the_brain_remembers_are_kept_in_order() -> None:
    older = _views(600)
    older[100] = TurnView("name_old", "user_text", "My name is Bob.")
    older[300] = TurnView("name", "user_audio", "Call me Ada.")
    older[150] = TurnView("sys", "system", "The user's name is Ana.")
    older[200] = TurnView("ctx_old", "context", '[context] {"event": "screen", "text": "Page 1"}')
    older[400] = TurnView("ctx", "context", '[context] {"event": "screen", "text": "Page 2"}')
    older[401] = TurnView("who", "context", '[context] {"event": "participants", "others": []}')
    recent = _views(HISTORY_WINDOW)
    recent[0] = TurnView("out", "function_call_output", "{}", call_id="c1")
    older[-1] = TurnView("call", "function_call", "{}", name="f", call_id="c1")
    kept = windowed((*older, *recent))
    ids = [view.item_id for view in kept]
    first = ids[: 2 * FIRST_USER_TURNS - 1]
    assert first == [view.item_id for view in older[: 2 * FIRST_USER_TURNS - 1]]  # the conversation's start
    middle = ids[2 * FIRST_USER_TURNS - 1 : -HISTORY_WINDOW - 1]
    assert middle == ["sys", "name", "ctx", "who"]  # the newest name and screen; the app's words
    assert ids[-HISTORY_WINDOW - 1 :] == ["call", *(view.item_id for view in recent)]


def _reference(history: tuple[TurnView, ...]) -> tuple[TurnView, ...]:
    """The window chosen the plain way: the start, then the older views newest first, each kind's newest."""
    if len(history) <= HISTORY_WINDOW:
        return history
    start = len(history) - HISTORY_WINDOW
    while start > 0 and history[start].kind == "function_call_output":
        start -= 1
    first_end, user_turns = 0, 0
    while first_end < start and user_turns < FIRST_USER_TURNS:
        user_turns += history[first_end].kind in ("user_text", "user_audio")
        first_end += 1
    events: set[str] = set()
    named = question = False
    older = []
    for index in range(start - 1, first_end - 1, -1):
        view = history[index]
        is_context = view.kind == "context" or (
            view.kind in ("user_text", "system") and is_context_text(view.text)
        )
        if is_context:
            event = parse_context(view.text)
            asks = event.as_question() is not None
            if event.event not in events or (asks and not question):
                older.append(view)
            events.add(event.event)
            question = question or asks
        elif view.images or view.kind == "system" or saved_conversation.is_envelope(view.text):
            older.append(view)
        elif not named and view.kind in ("user_text", "user_audio") and facts.given_name(view.text):
            older.append(view)
            named = True
    return (*history[:first_end], *reversed(older), *history[start:])


_SAYINGS = [
    ("user_audio", "What is the capital of France?"),
    ("user_text", "My name is Ada."),
    ("user_audio", "Call me Bob."),
    ("assistant", "Paris."),
    ("assistant", "Sure."),
    ("system", "The user's name is Ana."),
    ("context", '[context] {"event": "screen", "text": "Page"}'),
    ("context", '[context] {"event": "question", "question": "How old are you?"}'),
    ("user_text", '[context] {"event": "paused"}'),
    ("context", '[context] {"event": "participants", "others": []}'),
    ("function_call", "{}"),
    ("function_call_output", "{}"),
]


def test_a_sessions_window_kept_between_replies_chooses_as_a_fresh_one(monkeypatch) -> None:
    """Appends, drops from the front (truncation), deletes and inserts among the older views, a kept
    view changed: the session's window, reusing its choice, gives the plain choice every time."""
    monkeypatch.setattr("mockengine.brain.window.HISTORY_WINDOW", 40)
    monkeypatch.setattr("mockengine.brain.window.FIRST_USER_TURNS", 3)
    monkeypatch.setattr(__name__ + ".HISTORY_WINDOW", 40)
    monkeypatch.setattr(__name__ + ".FIRST_USER_TURNS", 3)
    rng = random.Random(15)
    window = HistoryWindow()
    history: list[TurnView] = []
    made = 0

    def new_view() -> TurnView:
        nonlocal made
        made += 1
        kind, text = rng.choice(_SAYINGS[:5]) if rng.random() < 0.8 else rng.choice(_SAYINGS)
        return TurnView(f"v{made}", kind, text, call_id="c")  # type: ignore[arg-type]

    for _ in range(1500):
        move = rng.random()
        if move < 0.8:
            history += [new_view() for _ in range(rng.randint(1, 4))]
        elif move < 0.9 and history:
            del history[: rng.randint(1, 6)]  # truncation: the oldest leave the context
        elif move < 0.95 and history:
            del history[rng.randrange(len(history))]
        elif history:
            history.insert(rng.randrange(len(history)), new_view())
        if rng.random() < 0.02 and history:
            at = rng.randrange(len(history))  # an item changed in place: a new view where it was
            history[at] = TurnView(history[at].item_id, "user_text", "I'm Zoe.")
        frozen = tuple(history)
        assert window.views(frozen) == _reference(frozen)
    assert len(history) > 200
