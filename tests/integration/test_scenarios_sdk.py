"""Every shipped scenario, run against a real engine over the Realtime WebSocket with the official
``openai`` SDK: the tools called and their arguments, selection (query, model name, key map, instructions
marker), personas, and same seed → same calls, arguments and words.
"""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openai import AsyncOpenAI
from PIL import Image

from mockengine.brain.hrp import HRP_TOOLS, hrp_spec
from tests.hyperstudy_text import question_text
from tests.speech import validate_server_event

SPEC = hrp_spec()
TOOLS = [
    {"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters}
    for t in HRP_TOOLS
]


def context_item(data: dict[str, Any], image_url: str | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "input_text", "text": "[context] " + json.dumps(data)}]
    if image_url is not None:
        content.append({"type": "input_image", "image_url": image_url})
    return {"type": "message", "role": "user", "content": content}


def png(colour: tuple[int, int, int]) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (48, 64), colour).save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


class Session:
    """One SDK connection; ``respond()`` sends response.create and returns the response.done event."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.events: list[dict[str, Any]] = []

    async def next_event(self) -> dict[str, Any]:
        event = json.loads(await self.connection.recv_bytes())
        validate_server_event(event)
        self.events.append(event)
        return event

    async def wait_for(self, kind: str) -> dict[str, Any]:
        while True:
            event = await self.next_event()
            if event["type"] == "error":
                raise AssertionError(f"unexpected error: {event}")
            if event["type"] == kind:
                return event

    async def add(self, item: dict[str, Any]) -> None:
        await self.connection.conversation.item.create(item=item)
        await self.wait_for("conversation.item.added")

    async def respond(self, **response: Any) -> dict[str, Any]:
        await self.connection.response.create(response={"output_modalities": ["text"], **response})
        done = await self.wait_for("response.done")
        return done["response"]


def calls(response: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (o["name"], json.loads(o["arguments"])) for o in response["output"] if o["type"] == "function_call"
    ]


def said(response: dict[str, Any]) -> str:
    return " ".join(
        part.get("text") or part.get("transcript") or ""
        for item in response["output"]
        if item["type"] == "message"
        for part in item["content"]
    )


async def open_session(base_url: str, query: dict[str, str], api_key: str = "sk-test", **session: Any):
    client = AsyncOpenAI(api_key=api_key, websocket_base_url=base_url)
    manager = client.realtime.connect(model=query.pop("model", "gpt-realtime"), extra_query=query)
    connection = await manager.__aenter__()
    wrapped = Session(connection)
    created = await wrapped.wait_for("session.created")
    await connection.session.update(
        session={"type": "realtime", "tools": TOOLS, "audio": {"input": {"turn_detection": None}}, **session}
    )
    await wrapped.wait_for("session.updated")
    return manager, wrapped, created["session"]


async def test_default_answers_a_question_through_its_tool_and_acknowledges(engine_url) -> None:
    manager, session, _ = await open_session(await engine_url(), {"scenario": "default", "seed": "3"})
    try:
        question = "Question: How warm was your partner?\nRespond with a number between 0 and 100."
        await session.add(context_item({"event": "question", "tool": "answer_scale", "question": question}))
        response = await session.respond()
        ((name, arguments),) = calls(response)
        assert name == "answer_scale" and 0 <= arguments["value"] <= 100
        call_id = response["output"][0]["call_id"]
        await session.add({"type": "function_call_output", "call_id": call_id, "output": '{"accepted":true}'})
        assert said(await session.respond()) in (
            "Done, I've submitted that.",
            "Okay, that's submitted.",
            "Great, that went through.",
        )
    finally:
        await manager.__aexit__(None, None, None)


@pytest.mark.parametrize(("colour", "low", "high"), [((220, 40, 30), 70, 90), ((30, 60, 220), 20, 40)])
async def test_face_rating_rates_warm_faces_high_and_cold_faces_low(engine_url, colour, low, high) -> None:
    manager, session, created = await open_session(await engine_url(), {"model": "mockengine-face_rating"})
    try:
        assert created["audio"]["output"]["voice"] == "coral"  # the persona's voice
        screen = {"event": "screen", "type": "vasrating", "text": "How trustworthy is this face?"}
        await session.add(context_item(screen, png(colour)))
        question = "Question: How trustworthy is this face?\nRespond with a number between 0 and 100."
        await session.add(context_item({"event": "question", "tool": "answer_scale", "question": question}))
        response = await session.respond(tool_choice={"type": "function", "name": "answer_scale"})
        ((name, arguments),) = calls(response)
        assert name == "answer_scale" and low <= arguments["value"] <= high
        await session.add(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Describe the face."}],
            }
        )
        colour_name = "red" if colour[0] > 200 else "blue"
        assert colour_name in said(await session.respond())
    finally:
        await manager.__aexit__(None, None, None)


@pytest.mark.parametrize(("role", "name"), [("A", "Alex"), ("B", "Blair")])
async def test_intro_chat_roles_introduce_themselves_in_the_chat(engine_url, role, name) -> None:
    manager, session, created = await open_session(
        await engine_url(), {"scenario": "intro_chat", "role": role}
    )
    try:
        assert created["audio"]["output"]["voice"] == {"A": "ash", "B": "marin"}[role]
        await session.add(
            context_item({"event": "screen", "type": "showtext", "text": "Please introduce yourselves."})
        )
        ((tool, arguments),) = calls(await session.respond())
        assert tool == "send_chat" and name in arguments["message"]
    finally:
        await manager.__aexit__(None, None, None)


def hrp_question(answer: dict[str, Any]) -> dict[str, Any]:
    return {
        "event": "question",
        "tool": answer["voiceTool"],
        "question": question_text(answer["exampleConfig"]),
        "duringVideo": False,
    }


async def questionnaire_run(base_url: str, seed: str) -> list[tuple[str, Any]]:
    manager, session, _ = await open_session(base_url, {"scenario": "questionnaire", "seed": seed})
    answers: list[tuple[str, Any]] = []
    try:
        for answer in SPEC["answers"]:
            await session.add(context_item(hrp_question(answer)))
            # HRP questionRequest: text output, the question's tool forced.
            response = await session.respond(tool_choice={"type": "function", "name": answer["voiceTool"]})
            ((name, arguments),) = calls(response)
            assert name == answer["voiceTool"]
            (value,) = arguments.values()
            Draft202012Validator(answer["valueSchema"]).validate(value)
            answers.append((name, value))
            call_id = response["output"][0]["call_id"]
            await session.add(
                {"type": "function_call_output", "call_id": call_id, "output": '{"accepted":true}'}
            )
    finally:
        await manager.__aexit__(None, None, None)
    return answers


async def test_questionnaire_answers_all_eight_types_and_repeats_with_the_seed(engine_url) -> None:
    base_url = await engine_url()
    first = await questionnaire_run(base_url, "5")
    assert len(first) == 8
    assert (
        "answer_text",
        "My partner was friendly and easy to talk to.",
    ) in first  # the scenario's fixed text
    assert await questionnaire_run(base_url, "5") == first
    other = await questionnaire_run(base_url, "6")
    numbers = [value for name, value in first if name == "answer_scale"]
    assert numbers != [value for name, value in other if name == "answer_scale"]


async def test_conformance_and_hyperstudy_rating_call_their_tools(engine_url) -> None:
    base_url = await engine_url()
    manager, session, _ = await open_session(base_url, {"scenario": "conformance"})
    try:
        await session.add(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Please use the tool to rate it."}],
            }
        )
        assert calls(await session.respond())[0][0] in ("send_chat", "answer_scale")
    finally:
        await manager.__aexit__(None, None, None)
    manager, session, _ = await open_session(base_url, {"scenario": "hyperstudy_rating"})
    try:
        question = {"event": "question", "tool": "answer_scale", "question": "How warm? 0 to 100."}
        await session.add(context_item(question))
        assert calls(await session.respond()) == [("answer_scale", {"value": 72})]
    finally:
        await manager.__aexit__(None, None, None)


async def test_instructions_marker_and_api_key_map_select_scenarios(engine_url, tmp_path) -> None:
    keys = tmp_path / "keys.yaml"
    keys.write_text("sk-rater: hyperstudy_rating\n")
    base_url = await engine_url(scenario_keys=str(keys))
    question = context_item({"event": "question", "tool": "answer_scale", "question": "How warm? 0 to 100."})
    manager, session, _ = await open_session(base_url, {}, api_key="sk-rater")
    try:
        await session.add(question)
        assert calls(await session.respond()) == [("answer_scale", {"value": 72})]
    finally:
        await manager.__aexit__(None, None, None)
    manager, session, _ = await open_session(
        base_url, {}, instructions="[mockengine scenario=intro_chat role=A]"
    )
    try:
        await session.add(context_item({"event": "participants", "others": [{"name": "Blair", "role": "B"}]}))
        assert said(await session.respond()) == "Hi Blair, I'm Alex."
    finally:
        await manager.__aexit__(None, None, None)


async def test_an_unknown_scenario_is_refused_at_the_handshake(engine_url) -> None:
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=await engine_url())
    async with client.realtime.connect(model="gpt-realtime", extra_query={"scenario": "nope"}) as connection:
        event = json.loads(await connection.recv_bytes())
        assert event["type"] == "error"
        assert event["error"]["code"] == "unknown_scenario" and event["error"]["param"] == "scenario"
        assert "Loaded scenarios: conformance, default" in event["error"]["message"]


async def test_a_misspelt_scenario_is_refused_with_the_near_miss(engine_url) -> None:
    """`?scenario=conformanse` (or `model=mockengine-conformanse`) listed the loaded scenarios but named
    no near miss; the refusal now asks "did you mean 'conformance'?", as other near misses do."""
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=await engine_url())
    async with client.realtime.connect(
        model="gpt-realtime", extra_query={"scenario": "conformanse"}
    ) as connection:
        event = json.loads(await connection.recv_bytes())
    assert event["error"]["code"] == "unknown_scenario" and event["error"]["param"] == "scenario"
    assert event["error"]["message"].startswith(
        "Unknown scenario 'conformanse' (did you mean 'conformance'?). Loaded scenarios: conformance, "
    )
    async with client.realtime.connect(model="mockengine-conformanse") as connection:
        event = json.loads(await connection.recv_bytes())
    assert event["error"]["message"].startswith(
        "Unknown scenario 'conformanse' in model 'mockengine-conformanse' (did you mean 'conformance'?). "
        "Loaded scenarios: conformance, "
    )
    async with client.realtime.connect(model="gpt-realtime", extra_query={"scenario": "zzz"}) as connection:
        event = json.loads(await connection.recv_bytes())
    assert event["error"]["message"].startswith("Unknown scenario 'zzz'. Loaded scenarios: ")  # no near miss


async def test_a_model_naming_an_unknown_scenario_is_refused_as_such(engine_url) -> None:
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=await engine_url())
    async with client.realtime.connect(model="mockengine-nope") as connection:
        event = json.loads(await connection.recv_bytes())
        assert event["error"]["code"] == "unknown_scenario" and event["error"]["param"] == "model"
        assert "Unknown scenario 'nope'" in event["error"]["message"]


async def test_a_bad_key_is_refused_before_an_unknown_scenario_model(engine_url) -> None:
    client = AsyncOpenAI(api_key="sk-wrong", websocket_base_url=await engine_url(api_key="sk-right"))
    async with client.realtime.connect(model="mockengine-nope") as connection:
        event = json.loads(await connection.recv_bytes())
        assert event["error"]["code"] == "invalid_api_key"  # auth first, as the live service checks
