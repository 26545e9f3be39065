"""Session fields the SDKs send beyond what our validation knew, over a real socket (fake engines):
turn detection's ``model_version`` as the OpenAI Agents SDK sends it, and ``noise_reduction.strength``
(openai-python's ``NoiseReduction``) through the ``openai`` SDK. Both were refused with
``unknown_parameter`` and the whole update discarded."""

from __future__ import annotations

import asyncio
from typing import Any

from agents.realtime import RealtimeAgent, RealtimeRunner
from openai import AsyncOpenAI


async def test_the_agents_sdks_model_version_is_taken_and_echoed(engine) -> None:
    eng = await engine()
    turn_detection = {"type": "semantic_vad", "eagerness": "high", "modelVersion": "default"}
    config: Any = {"model_settings": {"model_name": "gpt-realtime", "turn_detection": turn_detection}}
    runner = RealtimeRunner(starting_agent=RealtimeAgent(name="Assistant"), config=config)
    updated: list[dict[str, Any]] = []
    errors: list[Any] = []
    url = f"{eng.url}/realtime?model=gpt-realtime"
    async with await runner.run(model_config={"url": url, "api_key": "sk-test"}) as session:

        async def collect() -> None:
            async for event in session:
                if event.type == "error":
                    errors.append(event)
                if event.type == "raw_model_event" and event.data.type == "raw_server_event":
                    if event.data.data.get("type") == "error":
                        errors.append(event.data.data)
                    if event.data.data.get("type") == "session.updated":
                        updated.append(event.data.data)

        task = asyncio.create_task(collect())
        async with asyncio.timeout(10):
            while not updated and not errors:
                await asyncio.sleep(0.01)
        task.cancel()
    assert errors == []
    echoed = updated[-1]["session"]["audio"]["input"]["turn_detection"]
    assert echoed == {
        "type": "semantic_vad",
        "eagerness": "high",
        "create_response": True,
        "interrupt_response": True,
        "model_version": "default",
    }


async def test_noise_reduction_strength_is_taken_and_kept_by_a_later_update(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-test", base_url=eng.http_url + "/v1", websocket_base_url=eng.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.recv()  # session.created
        near = {"type": "near_field", "strength": 0.4}
        await conn.session.update(session={"type": "realtime", "audio": {"input": {"noise_reduction": near}}})
        first = await conn.recv()
        assert first.type == "session.updated", first
        assert first.session.audio.input.noise_reduction.model_dump() == near
        # "Omitting strength from a session update preserves the current strength" (the SDK's docstring).
        far = {"type": "far_field"}
        await conn.session.update(session={"type": "realtime", "audio": {"input": {"noise_reduction": far}}})
        second = await conn.recv()
        assert second.type == "session.updated", second
        assert second.session.audio.input.noise_reduction.model_dump() == {
            "type": "far_field",
            "strength": 0.4,
        }
