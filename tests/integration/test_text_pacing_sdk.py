"""Over the wire, with the OpenAI Agents SDK (``RealtimeAgent``, text mode) on a real engine on loopback:
an output guardrail that trips on a written reply cuts it. The reply's ``response.output_text.delta``
events all came at once (only audio was paced), so the SDK's ``response.cancel`` arrived after
``response.done`` and got ``response_cancel_not_active``: the app saw the whole reply and an ``error``.
Text is now streamed at ``--text-tokens-per-s`` as the live model streams it."""

from __future__ import annotations

import asyncio
from typing import Any

from agents import GuardrailFunctionOutput, OutputGuardrail
from agents.realtime import RealtimeAgent, RealtimeRunner

from mockengine.settings import Settings

TIMEOUT_S = 30


def _no_reciting(context: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
    # The default participant echoes the line ("You said please recite … Tell me more."): its fourth
    # word trips it, a dozen words before the reply's end.
    return GuardrailFunctionOutput(output_info=None, tripwire_triggered="recite" in str(output).lower())


def _raw(events: list[Any], kind: str) -> list[dict[str, Any]]:
    raw = [e.data for e in events if e.type == "raw_model_event" and e.data.type == "raw_server_event"]
    return [r.data for r in raw if r.data.get("type") == kind]


async def test_a_text_guardrail_cuts_the_written_reply_while_it_streams(engine) -> None:
    eng = await engine(text_tokens_per_s=Settings().text_tokens_per_s)  # the default: a realistic rate
    agent = RealtimeAgent(
        name="Assistant",
        instructions="Help.",
        output_guardrails=[OutputGuardrail(guardrail_function=_no_reciting, name="no_reciting")],
    )
    config = {
        "model_settings": {"model_name": "gpt-realtime", "modalities": ["text"]},
        "guardrails_settings": {"debounce_text_length": 10},
    }
    runner = RealtimeRunner(starting_agent=agent, config=config)  # type: ignore[arg-type]
    events: list[Any] = []
    line = "Please recite the whole of the long poem about the quiet harbour and the seven grey boats."
    async with await runner.run(model_config={"url": eng.realtime, "api_key": "sk-test"}) as session:

        async def collect() -> None:
            async for event in session:
                events.append(event)

        task = asyncio.create_task(collect())
        await session.send_message(line)
        async with asyncio.timeout(TIMEOUT_S):
            while not any(e.type == "guardrail_tripped" for e in events):
                await asyncio.sleep(0.02)
            # The cut reply's response.done, then the reply to the SDK's "guardrail triggered" message.
            while len(_raw(events, "response.done")) < 2:
                await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)  # an error answering the cancel would have come by now
        task.cancel()
    errors = [e for e in events if e.type == "error"] + _raw(events, "error")
    assert errors == []
    cut = _raw(events, "response.done")[0]["response"]
    assert cut["status"] == "cancelled"
    assert cut["status_details"]["reason"] == "client_cancelled"
    # The item keeps the text written before the cut: a start of the whole reply, not all of it.
    (message,) = cut["output"]
    assert message["status"] == "incomplete"
    text = message["content"][0]["text"]
    full = "".join(
        d["delta"] for d in _raw(events, "response.output_text.delta") if d["response_id"] == cut["id"]
    )
    assert text == full
    assert text.startswith("You said please recite")
    assert not text.endswith("Tell me more.")
