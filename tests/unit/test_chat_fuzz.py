"""No client input crashes the Chat Completions path: seeded mutations of a valid HyperStudy request are
either refused with a ChatError or answered (parse → brain → shaped body and chunks)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.chat.completion import complete
from mockengine.chat.errors import ChatError
from mockengine.chat.request import parse_request
from mockengine.engines.tokens import TokenCounter
from tests.hyperstudy_text import SEND_CHAT, VAS_SCHEMA, WAIT, context, submit_response, tool_result

BASE: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "messages": [
        {"role": "system", "content": "You are Sam."},
        context("typed", speaker="Alex", said="hello?"),
        {
            "role": "assistant",
            "content": "Hi!",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "send_chat", "arguments": "{}"}}
            ],
        },
        tool_result("call_1"),
        {"role": "user", "content": [{"type": "text", "text": "How warm was I?"}]},
        context("question", tool="submit_response", question="How warm? 0 to 100."),
    ],
    "tools": [SEND_CHAT, WAIT, submit_response("vasrating", VAS_SCHEMA)],
    "tool_choice": "auto",
    "max_tokens": 50,
    "stream": True,
    "stream_options": {"include_usage": True},
    "n": 2,
    "stop": ["zzz"],
}
ODD_VALUES: tuple[Any, ...] = (
    None, True, 0, -1, 3.5, 10**12, "", "x", "required", "tool", "function", "[context] {", [], [1], {},
    {"type": "function"}, {"name": "wait"}, {"type": "text", "text": 5}, {"role": "tool"},
)  # fmt: skip


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*path, index))
    return found


def mutate(body: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Replace, delete or duplicate one node of a copy of ``body``."""
    mutated = copy.deepcopy(body)
    path = rng.choice(_paths(mutated)[1:])
    parent = mutated
    for key in path[:-1]:
        parent = parent[key]
    action = rng.random()
    if action < 0.2:
        del parent[path[-1]]
    elif action < 0.3 and isinstance(parent, list):
        parent.insert(path[-1], copy.deepcopy(parent[path[-1]]))
    else:
        parent[path[-1]] = copy.deepcopy(rng.choice(ODD_VALUES))
    return mutated


@pytest.mark.parametrize("seed", range(6))
def test_mutated_requests_are_refused_or_answered(seed):
    rng = random.Random(seed)
    brain = ScriptedBrain(load_scenario(None), seed=1)
    tokens = TokenCounter(None)
    outcomes = {"refused": 0, "answered": 0}
    for _ in range(150):
        body = mutate(BASE, rng)
        for _ in range(rng.randint(0, 2)):
            body = mutate(body, rng)
        try:
            request = parse_request(json.dumps(body).encode())
            completion = complete(request, brain, tokens=tokens, describe_image=describe_image, server_seed=3)
            json.dumps(completion.body())
            chunks = list(completion.chunks(request))
        except ChatError as error:
            # 500 only for a tool schema no value satisfies (the brain cannot build arguments).
            assert error.status < 500 or error.type == "server_error"
            assert error.message
            outcomes["refused"] += 1
            continue
        assert chunks and all(chunk["object"] == "chat.completion.chunk" for chunk in chunks)
        outcomes["answered"] += 1
    assert outcomes["refused"] and outcomes["answered"]
