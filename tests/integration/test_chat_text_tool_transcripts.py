"""Over the wire, with the official ``openai`` SDK on Chat Completions: the messages smolagents'
``ToolCallingAgent`` (1.26) sends after a tool step. smolagents keeps its calls and their results as
text, not as ``tool_calls`` and ``tool`` messages: an assistant message ``Calling tools:\\n[{'id': …,
'type': 'function', 'function': {'name': …, 'arguments': {…}}}]`` (a Python literal) and a user message
``Observation:\\n<the results>``, with ``tool_choice: "required"`` and its ``final_answer`` tool on every
step. The participant read the observation as new words and called ``get_weather`` again, step after
step, until smolagents' ``max_steps`` (docs/client-compatibility.md)."""

from __future__ import annotations

import json

from openai import AsyncOpenAI

CITY = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "The name of the city."}},
    "required": ["city"],
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": CITY,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "final_answer",
            "description": "Provides a final answer to the given problem.",
            "parameters": {
                "type": "object",
                "properties": {
                    "answer": {"type": "string", "description": "The final answer to the problem"}
                },
                "required": ["answer"],
            },
        },
    },
]
SYSTEM = (
    "You are an expert assistant who can solve any task using tool calls. You will be given a task to "
    "solve as best you can.\nIf no tool call is needed, use final_answer tool to return your answer."
)


def _calls_text(*calls: tuple[str, str]) -> str:
    """smolagents' ``ActionStep.to_messages``: ``str()`` of the calls' dicts."""
    listed = [
        {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": {"city": city}}}
        for call_id, city in calls
    ]
    return "Calling tools:\n" + str(listed)


def _part(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


async def _ask(engine, messages: list[dict], stream: bool = False) -> list[tuple[str, dict]]:
    eng = await engine()
    client = AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)
    body = {
        "model": "gpt-4o-mini",
        "messages": messages,
        "tools": TOOLS,
        "tool_choice": "required",
        "stop": ["Observation:", "Calling tools:"],
    }
    if stream:
        calls: dict[int, dict[str, str]] = {}
        async for chunk in await client.chat.completions.create(**body, stream=True):
            for delta_call in (chunk.choices[0].delta.tool_calls if chunk.choices else None) or []:
                call = calls.setdefault(delta_call.index, {"name": "", "arguments": ""})
                if delta_call.function and delta_call.function.name:
                    call["name"] = delta_call.function.name
                if delta_call.function and delta_call.function.arguments:
                    call["arguments"] += delta_call.function.arguments
        return [(c["name"], json.loads(c["arguments"])) for _, c in sorted(calls.items())]
    completion = await client.chat.completions.create(**body)
    return [
        (c.function.name, json.loads(c.function.arguments)) for c in completion.choices[0].message.tool_calls
    ]


async def test_the_first_step_calls_the_tool_the_task_asks_for(engine) -> None:
    messages = [
        {"role": "system", "content": _part(SYSTEM)},
        {"role": "user", "content": _part("New task:\nWhat is the weather in Paris?")},
    ]
    assert await _ask(engine, messages) == [("get_weather", {"city": "Paris"})]


async def test_an_observation_after_calling_tools_is_answered_by_final_answer(engine) -> None:
    messages = [
        {"role": "system", "content": _part(SYSTEM)},
        {"role": "user", "content": _part("New task:\nWhat is the weather in Paris?")},
        {"role": "assistant", "content": _part(_calls_text(("call_N6wy6Oc8fDvCgFMzwEQBklwI", "Paris")))},
        {"role": "user", "content": _part("Observation:\nIt is sunny and 21 degrees in Paris.")},
    ]
    for stream in (False, True):
        calls = await _ask(engine, messages, stream=stream)
        assert [name for name, _ in calls] == ["final_answer"], calls
        assert "21" in calls[0][1]["answer"], calls


async def test_two_parallel_calls_and_their_observations_end_in_final_answer(engine) -> None:
    messages = [
        {"role": "system", "content": _part(SYSTEM)},
        {"role": "user", "content": _part("New task:\nWhat is the weather in Paris and in Rome?")},
        {"role": "assistant", "content": _part(_calls_text(("call_a", "Paris"), ("call_b", "Rome")))},
        {
            "role": "user",
            "content": _part(
                "Observation:\nIt is sunny and 21 degrees in Paris.\nIt is cloudy and 17 degrees in Rome."
            ),
        },
    ]
    calls = await _ask(engine, messages)
    assert [name for name, _ in calls] == ["final_answer"], calls
    answer = calls[0][1]["answer"]  # each output once (it had them twice: each call got both lines)
    assert answer.count("Paris") == 1 and answer.count("Rome") == 1, answer


async def test_words_that_only_look_like_an_observation_stay_the_users(engine) -> None:
    """No ``Calling tools:`` before it: a user's own "Observation:" is words like any others."""
    messages = [
        {"role": "system", "content": _part(SYSTEM)},
        {"role": "user", "content": _part("Observation:\nWhat is the weather in Rome?")},
    ]
    assert await _ask(engine, messages) == [("get_weather", {"city": "Rome"})]


async def test_a_task_no_tool_serves_is_answered_by_final_answer(engine) -> None:
    """smolagents' prompt: "If no tool call is needed, use final_answer tool to return your answer." It
    called ``get_weather`` for London (the first tool, built arguments), then reported London's weather."""
    messages = [
        {"role": "system", "content": _part(SYSTEM)},
        {"role": "user", "content": _part("New task:\nHello, how are you?")},
    ]
    calls = await _ask(engine, messages)
    assert [name for name, _ in calls] == ["final_answer"], calls
    assert calls[0][1]["answer"] and "London" not in calls[0][1]["answer"], calls


async def test_the_task_label_is_not_read_as_words(engine) -> None:
    """smolagents opens each run with ``New task:\\n<task>``: the label hid the second request of "the
    weather in Paris and what time is it in Tokyo?" (one call, not two) and was said back ("You asked New
    task: …")."""
    time_tool = {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Get the current local time in a city.",
            "parameters": CITY,
        },
    }
    eng = await engine()
    client = AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)
    asked = "New task:\nWhat is the weather in Paris and what time is it in Tokyo?"
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": asked}],
        tools=[*TOOLS, time_tool],
        tool_choice="required",
    )
    calls = [
        (c.function.name, json.loads(c.function.arguments)) for c in completion.choices[0].message.tool_calls
    ]
    assert calls == [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Tokyo"})]
    messages = [
        {"role": "system", "content": _part(SYSTEM)},
        {"role": "user", "content": _part("New task:\nHello, how are you?")},
    ]
    [(name, arguments)] = await _ask(engine, messages)
    assert name == "final_answer" and "task" not in arguments["answer"].lower(), arguments
