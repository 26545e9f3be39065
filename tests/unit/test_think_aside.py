"""A session that thinks aside (the server runs the brain off its event loop) says exactly what an
inline one says: the core returns a ``Think`` effect and the reply fed back through ``on_reply`` gives
the same events, ids and all; a response cancelled while its brain thinks drops the late reply."""

from __future__ import annotations

from mockengine.protocol import client_events as ce
from mockengine.realtime.effects import Step, Think
from mockengine.realtime.responses import ask
from mockengine.realtime.session import RealtimeSession
from tests.conftest import make_session

TOOL = {
    "type": "function",
    "name": "play_music",
    "description": "Play music.",
    "parameters": {"type": "object", "properties": {"genre": {"type": "string", "enum": ["jazz", "rock"]}}},
}


def _said(text: str) -> ce.ConversationItemCreate:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return ce.ConversationItemCreate(item)


def _events(session: RealtimeSession, aside: bool, texts: list[str]) -> tuple[list[dict], int]:
    """Every event of a few typed turns (the ``Think`` jobs run at once, as the lane does in order)."""
    if aside:
        session.think_aside()
    events: list[dict] = []
    thinks = 0

    def run(step: Step, now_ms: float) -> None:
        nonlocal thinks
        events.extend(step.events)
        for effect in step.effects:
            if isinstance(effect, Think):
                thinks += 1
                run(session.on_reply(effect.key, ask(effect.brain, effect.request), now_ms), now_ms)

    run(session.start(), 0.0)
    run(session.receive(ce.SessionUpdate({"type": "realtime", "tools": [TOOL]}), 1.0), 1.0)
    for n, text in enumerate(texts):
        now_ms = 100.0 * (n + 1)
        run(session.receive(_said(text), now_ms), now_ms)
        run(session.receive(ce.ResponseCreate({"output_modalities": ["text"]}), now_ms), now_ms)
        run(session.tick(now_ms + 50_000), now_ms + 50_000)
    return events, thinks


def test_thinking_aside_gives_the_same_events_as_inline() -> None:
    texts = ["Play some jazz please.", "What is the capital of France?", "x" * 5000 + ". Play rock."]
    inline, none = _events(make_session(seed=5), False, texts)
    aside, thinks = _events(make_session(seed=5), True, texts)
    assert (none, thinks) == (0, len(texts))
    assert aside == inline
    assert [e["type"] for e in inline].count("response.done") == len(texts)
    assert sum(e["type"] == "response.function_call_arguments.done" for e in inline) == 2


def test_a_reply_for_a_response_cancelled_while_thinking_is_dropped() -> None:
    session = make_session(seed=5)
    session.think_aside()
    session.start()
    session.receive(_said("Tell me a story."), 1.0)
    step = session.receive(ce.ResponseCreate({}), 2.0)
    [think] = [e for e in step.effects if isinstance(e, Think)]
    assert [e["type"] for e in step.events] == ["response.created"]
    cancelled = session.receive(ce.ResponseCancel(), 3.0)
    assert "response.done" in [e["type"] for e in cancelled.events]
    late = session.on_reply(think.key, ask(think.brain, think.request), 4.0)
    assert late.events == [] and late.effects == []
