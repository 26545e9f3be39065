"""The brain thread's CPU per reply as one session's conversation grows (docs/cpu.md, fifteenth pass).

One :class:`RealtimeSession` told to think aside, as a server session is: each turn is a user item (a
spoken turn's transcript or a typed message, in turn), then ``response.create``; the core's ``Think``
effect is worked out here by the server's own :meth:`BrainLane._work` (the job's texts counted, then
``responses.ask``), timed with ``time.thread_time`` (the ``brain_0`` thread's CPU in a server), and the
reply goes back through ``on_reply`` and runs to its end on a virtual clock with fake engines. With
``--tools`` the session declares an app's tools, the turns ask for them now and then, and each call is
answered with a ``function_call_output`` as an app does. The conversation grows by real turns (the
brain's own replies); at each size the next ``--replies`` replies are timed (by default each turn's
words twice, so every size times the same mix) and the mean and least printed, with the views the
brain's request held (the median).

Usage: ``PYTHONPATH=. .venv/bin/python tools/brain_age_bench.py [--sizes 0,250,500,1000,2000]
[--replies N] [--tools] [--tokenizer path/to/tokenizer.json]``
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import time
from typing import Any

from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.cache import ByteLRU
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.protocol import client_events as ce
from mockengine.realtime.conversation import Item
from mockengine.realtime.effects import Step, Think
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.server.brain_lane import BrainLane
from mockengine.virtual_time import VirtualTimeDriver

CHAT = [
    "Hi there, how are you today?",
    "My name is Ada and I live in Lyon.",
    "What is the capital of France?",
    "I have two cats called Milo and Luna.",
    "What's my name?",
    "Tell me something interesting about octopuses.",
    "My phone number is 555 0142.",
    "Can you summarize what we talked about?",
    "I'm planning a trip to Japan in April.",
    "What did I say my cats were called?",
    "How far is the moon from the earth?",
    "Thanks, that was helpful.",
]
TOOL_ASKS = [
    "Add milk to my shopping list.",
    "Play some jazz music.",
    "Remind me to call my mother at six.",
    "What's the weather like in Paris tomorrow?",
    "Turn off the kitchen light.",
]
TOOLS = [
    {
        "type": "function",
        "name": "add_todo",
        "description": "Add an item to the user's to-do or shopping list.",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "priority": {"type": "string", "enum": ["low", "high"]},
            },
            "required": ["title"],
        },
    },
    {
        "type": "function",
        "name": "play_music",
        "description": "Play music.",
        "parameters": {
            "type": "object",
            "properties": {"genre": {"type": "string", "enum": ["jazz", "rock"]}},
        },
    },
    {
        "type": "function",
        "name": "set_reminder",
        "description": "Set a reminder at a time.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string"}, "time": {"type": "string"}},
            "required": ["text", "time"],
        },
    },
    {
        "type": "function",
        "name": "get_weather",
        "description": "Get the weather forecast for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
    {
        "type": "function",
        "name": "set_light",
        "description": "Turn a light in the house on or off.",
        "parameters": {
            "type": "object",
            "properties": {"room": {"type": "string"}, "on": {"type": "boolean"}},
            "required": ["room", "on"],
        },
    },
]


class ThinkingDriver(VirtualTimeDriver):
    """The virtual-time driver that also works out ``Think`` effects, as the server's brain lane does,
    timing each on this thread's CPU clock."""

    lane: BrainLane
    timing: bool = False
    profiler: cProfile.Profile | None = None
    times: list[float]

    def _apply(self, step: Step) -> None:
        super()._apply(step)
        for effect in step.effects:
            if isinstance(effect, Think):
                if self.timing and self.profiler is not None:
                    self.profiler.enable()
                started = time.thread_time()
                outcome = self.lane._work(effect)
                took = time.thread_time() - started
                if self.timing and self.profiler is not None:
                    self.profiler.disable()
                if self.timing:
                    self.times.append(took)
                    self.history_sizes.append(len(effect.request.history))
                self._apply(self.session.on_reply(effect.key, outcome, self.now_ms))


def make_driver(tools: bool, tokens: TokenCounter) -> ThinkingDriver:
    session = RealtimeSession(
        SessionOptions(model="gpt-realtime", pacing=Pacing(pace=0.0, first_delta_delay_ms=0, delta_ms=200)),
        brain=ScriptedBrain(load_scenario(None), seed=1),
        ids=IdFactory(1),
        tokens=tokens,
        describe_image=lambda _url: None,  # type: ignore[arg-type,return-value]
    )
    session.think_aside()
    driver = ThinkingDriver(session, FakeTranscriber(), FakeSynthesizer(cache=ByteLRU(1 << 24)))
    driver.lane = BrainLane(executor=None, tokens=tokens)  # type: ignore[arg-type]
    driver.times, driver.history_sizes = [], []
    driver.start()
    if tools:
        driver.send(ce.SessionUpdate({"type": "realtime", "tools": TOOLS}))
    return driver


def turn(driver: ThinkingDriver, n: int, tools: bool) -> None:
    """One user turn and its reply; a tool call is answered with its output."""
    asks = CHAT + TOOL_ASKS if tools else CHAT
    text = asks[n % len(asks)]
    conversation = driver.session.ctx.conversation
    if n % 2 == 0:  # a spoken turn, its transcript in (as after the shell's STT)
        item = Item(
            f"item_heard_{n}", "message", role="user", content=[{"type": "input_audio", "transcript": text}]
        )
        conversation.insert(item)
    else:
        message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        driver.send(ce.ConversationItemCreate(message))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    answered = {i.call_id for i in conversation if i.type == "function_call_output"}
    for item in list(conversation)[-6:]:
        if item.type == "function_call" and item.call_id not in answered:
            output = {
                "type": "function_call_output",
                "call_id": item.call_id,
                "output": json.dumps({"ok": True}),
            }
            driver.send(ce.ConversationItemCreate(output))
    driver.events.clear()


def run(
    sizes: list[int], replies: int, tools: bool, tokens: TokenCounter, profile: bool = False
) -> list[dict[str, Any]]:
    driver = make_driver(tools, tokens)
    rows = []
    n = 0
    for size in sizes:
        while len(driver.session.ctx.conversation) < size:
            turn(driver, n, tools)
            n += 1
        driver.times.clear()
        driver.history_sizes.clear()
        driver.timing = True
        if profile and size == sizes[-1]:
            driver.profiler = cProfile.Profile()
        items = len(driver.session.ctx.conversation)
        for _ in range(replies):
            turn(driver, n, tools)
            n += 1
        driver.timing = False
        rows.append(
            {
                "items": items,
                "history": int(statistics.median(driver.history_sizes)),
                "cpu_ms": statistics.mean(driver.times) * 1000,
                "min_ms": min(driver.times) * 1000,
            }
        )
    if driver.profiler is not None:
        pstats.Stats(driver.profiler).sort_stats("cumulative").print_stats(40)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0,250,500,1000,2000")
    parser.add_argument(
        "--replies", type=int, default=0, help="timed at each size (default: each turn's words twice)"
    )
    parser.add_argument("--tools", action="store_true", help="only the run with tools")
    parser.add_argument("--no-tools", action="store_true", help="only the run without tools")
    parser.add_argument("--profile", action="store_true", help="a cProfile of the replies at the last size")
    parser.add_argument("--tokenizer", default=None, help="a tokenizer.json (default: the fallback rule)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    runs = [False, True]
    if args.tools:
        runs = [True]
    elif args.no_tools:
        runs = [False]
    for tools in runs:
        tokens = (
            TokenCounter.from_model_dir(args.tokenizer.rsplit("/", 1)[0])
            if args.tokenizer
            else TokenCounter()
        )
        replies = args.replies or 2 * len(CHAT + TOOL_ASKS if tools else CHAT)
        label = "with" if tools else "without"
        print(f"brain thread CPU per reply, {label} tools (mean of {replies})")
        print("  items before | items in the request | CPU per reply (mean, min)")
        for row in run(sizes, replies, tools, tokens, args.profile):
            print(
                f"  {row['items']:12d} | {row['history']:20d} | {row['cpu_ms']:7.3f} ms ({row['min_ms']:.3f})"
            )


if __name__ == "__main__":
    main()
