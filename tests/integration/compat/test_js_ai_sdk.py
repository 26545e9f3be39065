"""The Vercel AI SDK (npm ``ai`` with ``@ai-sdk/openai``'s ``createOpenAI({baseURL})``, pinned in
tests/js/package-lock.json) against a real engine on loopback, on the Chat Completions model
(``openai.chat(id)``) and the default Responses model (``openai(id)``). tests/js/ai_sdk_text.mjs drives
the SDK and prints what it saw; this test asserts on it. Needs Node ≥ 20 and npm (skipped without them,
except on CI)."""

from __future__ import annotations

import json

from tests.integration.compat.test_js_agents import _install, _run, _tools


async def test_ai_sdk_text_tools_streams_and_structured_output(engine) -> None:
    node, npm = _tools()
    await _install(npm)
    eng = await engine()
    code, out, err = await _run(node, "ai_sdk_text.mjs", f"{eng.http_url}/v1")
    assert code == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    for api in ("chat", "responses"):
        seen = report[api]
        assert seen["plain"]["text"] and seen["plain"]["finishReason"] == "stop"
        assert seen["plain"]["usage"]["outputTokens"] > 0, seen["plain"]

        looped = seen["looped"]
        assert looped["calls"] == ["Paris"] and looped["steps"] == ["tool-calls", "stop"]
        assert "sunny" in looped["text"].lower()
        usage = looped["totalUsage"]
        assert usage["totalTokens"] == usage["inputTokens"] + usage["outputTokens"] > 0

        follow_up = seen["followUp"]  # "And in Rome?" after the answer's text alone
        assert follow_up["calls"] == ["Rome"] and "Rome" in follow_up["text"], follow_up

        streamed = seen["streamed"]
        assert streamed["calls"] == ["Paris"] and streamed["text"] == looped["text"]
        assert json.loads(streamed["inputDeltas"]) == {"city": "Paris"}
        for part in (
            "tool-input-start",
            "tool-input-delta",
            "tool-call",
            "tool-result",
            "text-delta",
            "finish",
        ):
            assert part in streamed["parts"], (api, streamed["parts"])
        assert streamed["totalUsage"]["outputTokens"] > 0

        assert seen["parallel"] == [{"city": "Paris"}, {"city": "London"}]
        assert seen["forced"] == [{"city": "Paris"}]
        for structured in (seen["output"], seen["object"]):
            assert (structured["city"], structured["temperature_c"]) == ("Paris", 21), structured
        refused = seen["refused"]
        assert refused["status"] == 400 and refused["body"]["error"]["param"] == "temperature"
