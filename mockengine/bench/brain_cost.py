"""``brain_cost``: what one participant turn costs on the worst inputs a client can send (docs/tools.md,
"Bounded work"): a 1 MB typed message, 512 declared tools. The brain is called directly, so the figures
are its own work (the server runs it off the event loop). Printed, never asserted: timings on a shared
machine are noisy."""

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
    ctx.results["brain_cost"] = results


SECTION = Section("brain_cost", run)
