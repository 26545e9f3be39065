"""The voice-client spec's flow (seeds/voice-client-spec.md §1.2, §2) over the wire with the official
``openai`` SDK against a real engine with real piper: narrate-while-acting, grounding, "play it", a
spoken failure; same seed → same calls and words; the Chat Completions side on the same matcher."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest
from openai import AsyncOpenAI

from mockengine.bench.tools import load
from mockengine.server.state import TRACER
from tests.speech import validate_server_event

pytestmark = pytest.mark.models
APPS, _, _ = load()
TOOLS = [
    {"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters}
    for t in APPS["voice_client"]
]
SNAPSHOT = {
    "mode": "detail",
    "focusedCardId": "gesture-nav",
    "visibleCardIds": ["gesture-nav"],
    "mediaPlaying": False,
}
OPENED = {"ok": True, "card": {"id": "gesture-nav", "title": "Gesture Navigation"}, "state": SNAPSHOT}
BYTES_PER_MS = 48


class Flow:
    """One SDK connection; every server event kept with the wall time it arrived."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.loop = asyncio.get_running_loop()

    async def response(self) -> tuple[dict[str, Any], list[tuple[float, dict[str, Any]]]]:
        """Events until ``response.done``: (the response, [(arrival time s, event)])."""
        timed: list[tuple[float, dict[str, Any]]] = []
        while True:
            event = json.loads(await self.connection.recv_bytes())
            validate_server_event(event)
            assert event["type"] != "error", event
            timed.append((self.loop.time(), event))
            if event["type"] == "response.done":
                return event["response"], timed

    async def say(self, text: str) -> tuple[dict[str, Any], list[tuple[float, dict[str, Any]]]]:
        content = [{"type": "input_text", "text": text}]
        await self.connection.conversation.item.create(
            item={"type": "message", "role": "user", "content": content}
        )
        await self.connection.response.create()
        return await self.response()

    async def output(self, call_id: str, output: dict[str, Any]) -> tuple[dict[str, Any], list]:
        item = {"type": "function_call_output", "call_id": call_id, "output": json.dumps(output)}
        await self.connection.conversation.item.create(item=item)
        await self.connection.response.create()
        return await self.response()


def calls(response: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (o["name"], json.loads(o["arguments"])) for o in response["output"] if o["type"] == "function_call"
    ]


def spoken(response: dict[str, Any]) -> str:
    return " ".join(
        part.get("transcript") or part.get("text") or ""
        for item in response["output"]
        if item["type"] == "message"
        for part in item["content"]
    )


async def run_flow(base_url: str, seed: int) -> dict[str, Any]:
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=base_url) as client,
        client.realtime.connect(model="gpt-realtime", extra_query={"seed": str(seed)}) as connection,
    ):
        flow = Flow(connection)
        await connection.session.update(
            session={
                "type": "realtime",
                "tools": TOOLS,
                "tool_choice": "auto",
                "audio": {"input": {"turn_detection": None}},
            }
        )
        while json.loads(await connection.recv_bytes())["type"] != "session.updated":
            pass
        shown, shown_events = await flow.say("show me the gesture project")
        call_id = next(o["call_id"] for o in shown["output"] if o["type"] == "function_call")
        grounded, _ = await flow.output(call_id, OPENED)
        played, _ = await flow.say("play it")
        launch_id = next(o["call_id"] for o in played["output"] if o["type"] == "function_call")
        failed, _ = await flow.output(launch_id, {"error": "the demo video is missing"})
    return {
        "shown": shown,
        "shown_events": shown_events,
        "grounded": grounded,
        "played": played,
        "failed": failed,
    }


async def test_voice_client_flow_narrates_while_acting(engine_url) -> None:
    result = await run_flow(await engine_url(), seed=3)
    shown, events = result["shown"], result["shown_events"]
    assert calls(shown) == [("open_card", {"card": "gesture project"})]
    assert [o["type"] for o in shown["output"]] == ["message", "function_call"]  # one response, clause first
    audio = [(t, e) for t, e in events if e["type"] == "response.output_audio.delta"]
    done = [t for t, e in events if e["type"] == "response.function_call_arguments.done"]
    assert audio and len(done) == 1
    clause_ms = sum(len(base64.b64decode(e["delta"])) for _, e in audio) / BYTES_PER_MS
    first_audio_s = audio[0][0]
    # The client plays the clause from its first delta: the call's arguments are complete while it plays.
    lead_ms = (done[0] - first_audio_s) * 1000
    print(f"clause {clause_ms:.0f} ms of audio; arguments done {lead_ms:.0f} ms after its first delta")
    assert lead_ms < clause_ms, (lead_ms, clause_ms)
    assert spoken(shown).startswith("Opening gesture project")
    assert calls(result["grounded"]) == [] and "Gesture Navigation" in spoken(result["grounded"])
    assert calls(result["played"]) == [("launch", {"card": "gesture-nav"})]
    assert calls(result["failed"]) == []
    assert spoken(result["failed"]) == "I couldn't launch gesture-nav: the demo video is missing."


async def test_same_seed_same_calls_and_words(engine_url) -> None:
    base_url = await engine_url()
    first, second = await run_flow(base_url, seed=11), await run_flow(base_url, seed=11)
    for key in ("shown", "grounded", "played", "failed"):
        assert calls(first[key]) == calls(second[key]) and spoken(first[key]) == spoken(second[key]), key


async def test_chat_completions_uses_the_same_matcher(engine_url) -> None:
    base_url = (await engine_url()).replace("ws://", "http://")
    client = AsyncOpenAI(api_key="sk-test", base_url=base_url)
    tools = [{"type": "function", "function": {k: v for k, v in t.items() if k != "type"}} for t in TOOLS]
    async with client:
        completion = await client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "open the gesture project and play it"}],
            tools=tools,  # type: ignore[arg-type]
        )
    message = completion.choices[0].message
    made = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]  # type: ignore[union-attr]
    assert made == [("open_card", {"card": "gesture project"}), ("launch", {"card": "gesture project"})]
    assert completion.choices[0].finish_reason == "tool_calls"


async def test_the_trace_says_which_tool_why_and_which_words(engine, tmp_path) -> None:
    eng = await engine(trace_dir=str(tmp_path))
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await connection.session.update(
            session={"type": "realtime", "tools": TOOLS, "output_modalities": ["text"]}
        )
        response, _ = await Flow(connection).say("open the gesture project and play it")
    assert calls(response) == [
        ("open_card", {"card": "gesture project"}),
        ("launch", {"card": "gesture project"}),
    ]
    await eng.wait_until_idle()
    eng.app[TRACER].drain()
    lines = [json.loads(line) for path in tmp_path.glob("*.jsonl") for line in path.read_text().splitlines()]
    replies = [line["data"] for line in lines if line["kind"] == "reply" and line["data"]["tool_calls"]]
    assert replies[-1]["rule"] == "intent.call"
    why = replies[-1]["why"]
    assert "open_card (score" in why and "card ← 'gesture project'" in why
    assert "launch (score" in why and "(pronoun → last named)" in why
