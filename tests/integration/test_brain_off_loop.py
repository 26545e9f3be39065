"""One client's huge turn does not stall the server: the participant works out a reply off the event
loop (``server/brain_lane.py``; Chat Completions in the same executor), so while one session's brain
is busy with a 1 MB message or 512 declared tools, ``/healthz`` and another session still answer.

The real scripted brain decides every reply here; a gate around it holds the big turn's reply until
the other requests have been answered, so the order asserted is exact, not a matter of timing: a brain
on the event loop would hold the loop at the gate, and nothing else could answer before it gave up
(then the big turn's reply would come first and the test fails).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import threading

import aiohttp
import pytest

from mockengine.brain.model import Reply, ReplyRequest
from mockengine.engines.tokens import MAX_CACHED_CHARS, TokenCounter
from mockengine.server.app import create_app

AUTH = {"Authorization": "Bearer sk-x"}
GATE_S = 30.0  # how long the gate holds at most (a brain on the event loop: the loop is stuck so long)
TO_DO_TOOLS = [
    {
        "type": "function",
        "name": "add_todo",
        "description": "Add an item to the user's to-do list.",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "priority": {"type": "string", "enum": ["low", "medium", "high"]},
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
            "properties": {"genre": {"type": "string", "enum": ["jazz", "rock", "classical", "pop"]}},
            "required": ["genre"],
        },
    },
]
CHATTER = "we talked about the weather and the trip and the garden for a long while, "
BIG_TEXT = (CHATTER * (1024 * 1024 // len(CHATTER)))[: 1024 * 1024 - 40] + " Now play some jazz."


def many_tools(n: int) -> list[dict]:
    """``n`` distinct tools with long descriptions (the new user's repro), plus ``play_music``."""
    rng = random.Random(1)
    verbs = ["open", "close", "add", "remove", "list", "show", "start", "stop", "set", "get", "create"]
    nouns = ["song", "album", "alarm", "timer", "note", "task", "reminder", "email", "light", "photo"]
    tools = []
    for i in range(n - 1):
        verb, noun = rng.choice(verbs), rng.choice(nouns)
        words = " ".join(rng.choices(verbs + nouns, k=60))
        tools.append(
            {
                "type": "function",
                "name": f"{verb}_{noun}_{i}",
                "description": f"{verb.capitalize()} a {noun}. {words}",
                "parameters": {"type": "object", "properties": {"name": {"type": "string"}}},
            }
        )
    return [*tools, TO_DO_TOOLS[1]]


@dataclasses.dataclass
class Gate:
    """Where the big turn's brain waits: ``started`` once it is there, until ``release``."""

    started: threading.Event = dataclasses.field(default_factory=threading.Event)
    release: threading.Event = dataclasses.field(default_factory=threading.Event)


class GatedBrain:
    """The real brain, held at the gate before it replies to the big turn (the one asking for jazz)."""

    def __init__(self, inner, gate: Gate) -> None:
        self.inner = inner
        self.gate = gate
        self.scenario = inner.scenario  # (the session's default voice is its persona's)

    def reply(self, request: ReplyRequest) -> Reply:
        if any("play some jazz" in item.text.lower() for item in request.history):
            self.gate.started.set()
            self.gate.release.wait(GATE_S)
        return self.inner.reply(request)


@pytest.fixture
async def gated(aiohttp_server, resources):
    """``(base URL, gate)``: a server whose brains wait at ``gate`` before answering the big turn."""
    resources = dataclasses.replace(resources)
    # A reply's first delta (and its message's announcement) at once when the reply is ready, so the
    # order of the reply's output item and a message held meanwhile shows where the held one was handled.
    resources.settings = dataclasses.replace(resources.settings, first_delta_delay_ms=0)
    real = resources.brain
    gate = Gate()
    resources.brain = lambda seed, **hints: GatedBrain(real(seed, **hints), gate)  # type: ignore[method-assign]
    server = await aiohttp_server(create_app(resources.settings, resources))
    return f"http://127.0.0.1:{server.port}", gate


async def open_session(http: aiohttp.ClientSession, base: str) -> aiohttp.ClientWebSocketResponse:
    ws = await http.ws_connect(
        f"{base.replace('http', 'ws')}/v1/realtime?model=gpt-realtime", max_msg_size=0, headers=AUTH
    )
    assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
    return ws


async def until(ws: aiohttp.ClientWebSocketResponse, kind: str) -> dict:
    while True:
        event = json.loads((await ws.receive(timeout=GATE_S + 30)).data)
        assert event["type"] != "error", event
        if event["type"] == kind:
            return event


async def others_answer(http: aiohttp.ClientSession, base: str, gate: Gate) -> list[str]:
    """Once the big turn's brain is at its gate: ``/healthz`` and another session's round trip."""
    assert await asyncio.to_thread(gate.started.wait, GATE_S), "the big turn never reached the brain"
    answered = []
    async with http.get(f"{base}/healthz") as reply:
        assert reply.status == 200
        answered.append("healthz")
    other = await open_session(http, base)
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]}
    await other.send_json({"type": "conversation.item.create", "item": item})
    await until(other, "conversation.item.added")
    answered.append("other session")
    await other.close()
    return answered


async def big_turn(ws: aiohttp.ClientWebSocketResponse, tools: list[dict], text: str) -> dict:
    await ws.send_json({"type": "session.update", "session": {"type": "realtime", "tools": tools}})
    await until(ws, "session.updated")
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    await ws.send_json({"type": "conversation.item.create", "item": item})
    await ws.send_json({"type": "response.create", "response": {"output_modalities": ["text"]}})
    return (await until(ws, "response.done"))["response"]


@pytest.mark.parametrize(
    ("tools", "text"),
    [(TO_DO_TOOLS, BIG_TEXT), (many_tools(512), "Please play some jazz.")],
    ids=["1MB-text", "512-tools"],
)
async def test_a_huge_realtime_turn_leaves_the_server_answering(gated, tools, text):
    base, gate = gated
    async with aiohttp.ClientSession() as http:
        ws = await open_session(http, base)
        done = asyncio.ensure_future(big_turn(ws, tools, text))
        answered = await others_answer(http, base, gate)
        assert not done.done(), "the big turn finished while its brain was held"
        gate.release.set()
        response = await done
        await ws.close()
    assert answered == ["healthz", "other session"]
    assert response["status"] == "completed"
    calls = [o for o in response["output"] if o["type"] == "function_call"]
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [("play_music", {"genre": "jazz"})]


async def test_a_huge_chat_request_leaves_the_server_answering(gated):
    base, gate = gated
    body = {
        "model": "gpt-4.1-mini",  # a 1M-token window: 1 MB of text fits (gpt-4o refuses it, 400)
        "messages": [{"role": "user", "content": BIG_TEXT}],
        "tools": [
            {"type": "function", "function": {k: v for k, v in t.items() if k != "type"}} for t in TO_DO_TOOLS
        ],
    }
    async with aiohttp.ClientSession() as http:
        posted = http.post(f"{base}/v1/chat/completions", json=body, headers=AUTH)
        done = asyncio.ensure_future(posted.__aenter__())
        answered = await others_answer(http, base, gate)
        assert not done.done(), "the big request finished while its brain was held"
        gate.release.set()
        reply = await done
        completion = await reply.json()
        reply.release()
    assert answered == ["healthz", "other session"]
    [call] = completion["choices"][0]["message"]["tool_calls"]
    assert (call["function"]["name"], json.loads(call["function"]["arguments"])) == (
        "play_music",
        {"genre": "jazz"},
    )


async def ask_for_jazz(ws: aiohttp.ClientWebSocketResponse) -> None:
    """A typed "Play some jazz." and a text response: the turn the gate holds."""
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Play some jazz."}]}
    await ws.send_json({"type": "conversation.item.create", "item": item})
    await ws.send_json({"type": "response.create", "response": {"output_modalities": ["text"]}})


async def test_the_sessions_own_messages_wait_for_its_reply_in_order(gated):
    """What a client sends while its reply is worked out is handled after the reply, as inline."""
    base, gate = gated
    async with aiohttp.ClientSession() as http:
        ws = await open_session(http, base)
        await ask_for_jazz(ws)
        later = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "thanks"}]}
        await ws.send_json({"type": "conversation.item.create", "item": {**later, "id": "item_later"}})
        assert await asyncio.to_thread(gate.started.wait, GATE_S)
        async with http.get(f"{base}/healthz") as reply:
            assert reply.status == 200
        gate.release.set()
        kinds = []
        while not kinds or kinds[-1] != "item_later":
            event = json.loads((await ws.receive(timeout=GATE_S)).data)
            added = event["type"] == "conversation.item.added" and event["item"]["id"] == "item_later"
            kinds.append("item_later" if added else event["type"])
        await ws.close()
    assert kinds.index("response.output_item.added") < kinds.index("item_later")


FLOOD_APPEND = {"type": "input_audio_buffer.append", "audio": "AAAA" * 24_000}  # 96 kB: 1.5 s of silence
FLOOD_BYTES = 40 * 1024 * 1024


async def test_a_client_flooding_while_its_reply_is_worked_out_is_held_back_by_tcp(gated):
    """What a client sends while its reply is worked out waits in aiohttp's queue, whose flow control
    stops reading the socket: the client's sends stall at the sockets' buffers (a few MB) instead of the
    engine holding all 40 MB; once the reply is out every message is handled, in order."""
    base, gate = gated
    async with aiohttp.ClientSession() as http:
        ws = await open_session(http, base)
        await ws.send_json({"type": "session.update", "session": {"type": "realtime", **NO_TURNS}})
        await until(ws, "session.updated")
        await ask_for_jazz(ws)
        assert await asyncio.to_thread(gate.started.wait, GATE_S)
        received: list[dict] = []
        reader = asyncio.create_task(_read_all(ws, received))
        sent = [0]
        sender = asyncio.create_task(_flood(ws, sent))
        held = await _until_stalled(sent, sender)
        gate.release.set()
        await asyncio.wait_for(sender, GATE_S)
        later = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "thanks"}]}
        await ws.send_json({"type": "conversation.item.create", "item": {**later, "id": "item_later"}})
        await asyncio.wait_for(reader, GATE_S)
        await ws.close()
    assert held < FLOOD_BYTES // 2, f"the engine read {held} bytes while the reply was worked out"
    kinds = [e["type"] for e in received]
    assert "error" not in kinds, [e for e in received if e["type"] == "error"][:1]
    assert kinds.count("input_audio_buffer.cleared") == sent[1]  # every clear was handled: none lost
    # After the reply was given (its text then streams, paced, beside the clears: as live).
    assert kinds.index("response.output_item.added") < kinds.index("input_audio_buffer.cleared")


NO_TURNS = {"audio": {"input": {"turn_detection": None}}}


async def _flood(ws: aiohttp.ClientWebSocketResponse, sent: list[int]) -> None:
    """Appends with a clear after every ten (the buffer stays small), until FLOOD_BYTES are sent;
    ``sent`` is ``[bytes sent, clears sent]``."""
    append = json.dumps(FLOOD_APPEND)
    sent.append(0)
    while sent[0] < FLOOD_BYTES:
        for _ in range(10):
            await ws.send_str(append)
            sent[0] += len(append)
        await ws.send_json({"type": "input_audio_buffer.clear"})
        sent[1] += 1


async def _until_stalled(sent: list[int], sender: asyncio.Task) -> int:
    """The bytes sent once the sender has made no progress for a second (or has finished)."""
    last = -1
    while sent[0] != last and not sender.done():
        last = sent[0]
        await asyncio.sleep(1.0)
    return sent[0]


async def _read_all(ws: aiohttp.ClientWebSocketResponse, received: list[dict]) -> None:
    """Every event until the item sent after the flood is added."""
    while True:
        event = json.loads((await ws.receive(timeout=GATE_S)).data)
        received.append(event)
        if event["type"] == "conversation.item.added" and event["item"]["id"] == "item_later":
            return


class GatedCounter:
    """The server's token counter, held at ``gate`` the first time it counts a long text (past what it
    keeps in its LRU: ``engines.tokens.MAX_CACHED_CHARS``); ``threads`` names the thread of each such first
    count. On the event loop the gate would hold every session."""

    def __init__(self, inner: TokenCounter, gate: Gate) -> None:
        self.inner = inner
        self.gate = gate
        self.threads: list[str] = []

    def count(self, text: str) -> int:
        if len(text) > MAX_CACHED_CHARS and not self.gate.started.is_set():
            self.threads.append(threading.current_thread().name)
            self.gate.started.set()
            self.gate.release.wait(GATE_S)
        return self.inner.count(text)

    def token_bytes(self, text: str) -> list[bytes]:
        return self.inner.token_bytes(text)


@pytest.fixture
async def count_gated(aiohttp_server, resources):
    """``(base URL, gate, counter)``: a server whose token counter waits at ``gate`` on its first long
    text."""
    gate = Gate()
    counter = GatedCounter(resources.tokens, gate)
    resources = dataclasses.replace(resources, tokens=counter)
    server = await aiohttp_server(create_app(resources.settings, resources))
    return f"http://127.0.0.1:{server.port}", gate, counter


def _message(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


async def _long_turn(ws: aiohttp.ClientWebSocketResponse, where: str) -> dict:
    """A response whose context holds BIG_TEXT: a message, a tool's output, the response's own input, or
    its instructions."""
    await ws.send_json({"type": "session.update", "session": {"type": "realtime", "tools": TO_DO_TOOLS}})
    await until(ws, "session.updated")
    response: dict = {"output_modalities": ["text"]}
    if where == "instructions":
        response["instructions"] = BIG_TEXT
    elif where == "message":
        await ws.send_json({"type": "conversation.item.create", "item": _message(BIG_TEXT)})
    elif where == "tool output":
        call = {"type": "function_call", "call_id": "call_1", "name": "play_music", "arguments": "{}"}
        output = {"type": "function_call_output", "call_id": "call_1", "output": BIG_TEXT}
        await ws.send_json({"type": "conversation.item.create", "item": call})
        await ws.send_json({"type": "conversation.item.create", "item": output})
    else:
        response |= {"conversation": "none", "input": [_message(BIG_TEXT)]}
    await ws.send_json({"type": "response.create", "response": response})
    return (await until(ws, "response.done"))["response"]


@pytest.mark.parametrize("where", ["message", "tool output", "response input", "instructions"])
async def test_a_huge_text_is_counted_off_the_event_loop(count_gated, where):
    """A 1 MB text's tokens (about a second of BPE) are counted in the brain's lane before the response
    fits its context: while the count is held, ``/healthz`` and another session answer, and the response
    then completes with the text in its input usage."""
    base, gate, counter = count_gated
    async with aiohttp.ClientSession() as http:
        ws = await open_session(http, base)
        done = asyncio.ensure_future(_long_turn(ws, where))
        answered = await others_answer(http, base, gate)
        assert not done.done(), "the response finished while its context's count was held"
        gate.release.set()
        response = await done
        await ws.close()
    assert counter.threads and counter.threads[0] != threading.main_thread().name, counter.threads
    assert answered == ["healthz", "other session"]
    assert response["status"] == "completed"
    assert response["usage"]["input_token_details"]["text_tokens"] >= counter.inner.count(BIG_TEXT)
