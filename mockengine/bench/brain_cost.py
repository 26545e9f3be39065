"""``brain_cost``: what one participant turn costs on the worst inputs a client can send (docs/tools.md,
"Bounded work"): a 1 MB typed message, 512 declared tools; and what one response costs as a study's
conversation grows (docs/memory.md, "A long conversation"). The brain is called directly, so the first
figures are its own work (the server runs it off the event loop); the session's are the core's whole
response (context fitting, the brain, the reply's events) on a virtual clock with fake engines. Printed,
never asserted: timings on a shared machine are noisy."""

from __future__ import annotations

import random
import time
from datetime import date
from typing import Any

from mockengine.bench.context import BenchContext
from mockengine.bench.sections import Section

CHATTER = "please add milk to my list and then play some jazz music by miles davis, "
WORDS = ["open", "close", "play", "pause", "add", "remove", "list", "show", "start", "stop", "set", "send"]
NOUNS = ["song", "playlist", "album", "alarm", "timer", "note", "task", "reminder", "email", "light", "door"]


def _tools(count: int) -> tuple[Any, ...]:
    """``count`` distinct tools with 60-word descriptions (the shape of the new user's repro)."""
    from mockengine.brain.model import ToolSpec

    rng = random.Random(1)
    tools = []
    for i in range(count):
        verb, noun = rng.choice(WORDS), rng.choice(NOUNS)
        description = f"{verb.capitalize()} a {noun}. " + " ".join(rng.choices(WORDS + NOUNS, k=60))
        parameters = {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "mode": {"type": "string", "enum": rng.sample(WORDS, 5)},
            },
            "required": ["name"],
        }
        tools.append(ToolSpec(f"{verb}_{noun}_{i}", description, parameters))
    return tuple(tools)


def _turn_ms(tools: tuple[Any, ...], text: str, channel: str = "realtime") -> tuple[float, int]:
    """One reply's wall time (ms) and its tool calls."""
    from mockengine.brain.model import ReplyRequest, TurnView
    from mockengine.brain.participant import ScriptedBrain
    from mockengine.brain.scenario import Scenario

    brain = ScriptedBrain(Scenario("brain-cost"), seed=0, today=date(2026, 3, 2))
    request = ReplyRequest("", tools, "auto", ("text",), (TurnView("i1", "user_text", text),), 0, channel)  # type: ignore[arg-type]
    started = time.perf_counter()
    reply = brain.reply(request)
    return (time.perf_counter() - started) * 1000, len(reply.tool_calls)


def _history(turns: int) -> tuple[Any, ...]:
    """A spoken conversation of ``turns`` question-and-answer pairs, then one more question."""
    from mockengine.brain.model import TurnView

    question, answer = "What is the capital of France?", "Paris is the capital of France."
    history = []
    for n in range(turns):
        history += [TurnView(f"u{n}", "user_audio", question), TurnView(f"a{n}", "assistant", answer)]
    return (*history, TurnView("last", "user_audio", question))


def _reply_ms(history: tuple[Any, ...], repeats: int = 5) -> float:
    """The brain's mean reply time (ms) over ``history`` (the default scenario, no tools)."""
    from mockengine.brain.model import ReplyRequest
    from mockengine.brain.participant import ScriptedBrain
    from mockengine.brain.scenario import Scenario

    brain = ScriptedBrain(Scenario("brain-cost"), seed=0, today=date(2026, 3, 2))
    request = ReplyRequest("", (), "auto", ("audio",), history, len(history))
    brain.reply(request)
    started = time.perf_counter()
    for _ in range(repeats):
        brain.reply(request)
    return (time.perf_counter() - started) * 1000 / repeats


def _response_ms(items: int, responses: int = 20) -> float:
    """The session core's mean cost (ms) of one typed turn (``conversation.item.create``, then
    ``response.create`` run to its end) in a conversation already holding ``items`` items."""
    from mockengine.brain.participant import ScriptedBrain
    from mockengine.brain.scenario import Scenario
    from mockengine.engines.cache import ByteLRU
    from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
    from mockengine.engines.tokens import TokenCounter
    from mockengine.ids import IdFactory
    from mockengine.protocol import client_events as ce
    from mockengine.realtime.conversation import Item
    from mockengine.realtime.response import Pacing
    from mockengine.realtime.session import RealtimeSession, SessionOptions
    from mockengine.virtual_time import VirtualTimeDriver

    session = RealtimeSession(
        SessionOptions(model="gpt-realtime", pacing=Pacing(pace=0.0, first_delta_delay_ms=0, delta_ms=200)),
        brain=ScriptedBrain(Scenario("brain-cost"), seed=0, today=date(2026, 3, 2)),
        ids=IdFactory(0),
        tokens=TokenCounter(None),
        describe_image=lambda _url: None,  # type: ignore[arg-type,return-value]
    )
    # Filled directly: through the protocol, filling is itself the quadratic cost being measured.
    for n in range(items):
        role, kind = ("user", "input_text") if n % 2 == 0 else ("assistant", "output_text")
        text = "What is the capital of France?" if role == "user" else "Paris is the capital of France."
        session.ctx.conversation.insert(
            Item(f"item_{n}", "message", role=role, content=[{"type": kind, "text": text}])
        )
    driver = VirtualTimeDriver(session, FakeTranscriber(), FakeSynthesizer(cache=ByteLRU(1 << 24)))
    driver.start()
    said = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "What is the capital of France?"}],
    }

    def turn() -> None:
        driver.send(ce.ConversationItemCreate(said))
        driver.send(ce.ResponseCreate({}))
        driver.run_until_idle()
        driver.events.clear()

    turn()  # the reply's speech made once, then cached as piper's would be
    started = time.perf_counter()
    for _ in range(responses):
        turn()
    return (time.perf_counter() - started) * 1000 / responses


def run(ctx: BenchContext) -> None:
    todo = _tools(3)
    big = (CHATTER * (1024 * 1024 // len(CHATTER) + 1))[: 1024 * 1024]
    many = _tools(512)
    cases = [
        ("1 MB text, no tools", (), big, "realtime"),
        ("1 MB text, 3 tools", todo, big, "realtime"),
        ("1 MB text, 3 tools (chat)", todo, big, "chat"),
        ("512 tools, first turn", many, "Play the song called yellow", "realtime"),
        ("512 tools, next turn", many, "Turn off the kitchen light", "realtime"),
    ]
    print("brain cost per turn (direct call, one run each; noisy on a shared machine)")
    results = {}
    for label, tools, text, channel in cases:
        took_ms, calls = _turn_ms(tools, text, channel)
        print(f"  {label:28s} {took_ms:8.1f} ms  calls={calls}")
        results[label] = {"ms": round(took_ms, 1), "calls": calls}
    print(
        "one response as the conversation grows (ms; the brain's reply alone, the session core's whole turn)"
    )
    for items in (10, 1000, 4000):
        reply_ms, response_ms = _reply_ms(_history(items // 2)), _response_ms(items)
        print(
            f"  {items:5d} items in the conversation  brain {reply_ms:7.2f} ms  session {response_ms:7.2f} ms"
        )
        results[f"{items} items"] = {"brain_ms": round(reply_ms, 2), "session_ms": round(response_ms, 2)}
    ctx.results["brain_cost"] = results


SECTION = Section("brain_cost", run)
