"""What agent frameworks' structured output asks of the participant (found with LangChain, pydantic-ai and
the Agents SDK as clients, tests/integration/compat/): a forced output tool on a statement keeps the name
said in it; ``required`` after the tool outputs calls the output tool, not the same tool again; a
``json_object`` reply follows a schema the instructions give; a structured answer after a tool call
takes what the tool found."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import jsonschema
import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from mockengine.brain.model import ForcedTool, Reply, ToolChoice
from mockengine.chat.request import parse_request
from mockengine.chat.shaping import fit_choice, prompted_schema
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory

TODAY = date(2026, 12, 2)
CITY_WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature_c": {"type": "integer"},
        "summary": {"type": "string"},
    },
    "required": ["city", "temperature_c", "summary"],
}
FINAL_RESULT = ToolSpec("final_result", "The final response which ends this conversation", CITY_WEATHER)
GET_WEATHER = ToolSpec(
    "get_weather",
    "Get the weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def reply(tools: tuple[ToolSpec, ...], history: tuple[TurnView, ...], choice: ToolChoice) -> Reply:
    request = ReplyRequest("", tools, choice, ("text",), history, 0)
    answer = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request)
    schemas = {tool.name: tool.parameters for tool in tools}
    for call in answer.tool_calls:
        jsonschema.validate(json.loads(call.arguments), schemas[call.name])
    return answer


@pytest.mark.parametrize("choice", [ForcedTool("final_result"), "required"])
def test_a_forced_output_tool_keeps_the_name_said_in_a_statement(choice: ToolChoice) -> None:
    said = (TurnView("u", "user_text", "It is 21 degrees and sunny in Paris."),)
    [call] = reply((FINAL_RESULT,), said, choice).tool_calls
    arguments = json.loads(call.arguments)
    assert (arguments["city"], arguments["temperature_c"]) == ("Paris", 21)


@pytest.mark.parametrize("text", ["Thanks for that", "Add buy milk to my list"])
def test_a_forced_call_on_words_asking_for_nothing_makes_no_name_of_them(text: str) -> None:
    [call] = reply((GET_WEATHER,), (TurnView("u", "user_text", text),), ForcedTool("get_weather")).tool_calls
    assert (
        json.loads(call.arguments)["city"] == "London"
    )  # the plausible city, not "Thanks" or "Add buy milk"


def _after_weather(*more: TurnView) -> tuple[TurnView, ...]:
    return (
        TurnView("u", "user_text", "What is the weather in Paris?"),
        TurnView("fc", "function_call", '{"city": "Paris"}', name="get_weather", call_id="c1"),
        TurnView("fo", "function_call_output", "It is sunny and 21 degrees in Paris.", call_id="c1"),
        *more,
    )


def test_required_after_the_outputs_calls_the_tool_that_ends_the_turn() -> None:
    answer = reply((GET_WEATHER, FINAL_RESULT), _after_weather(), "required")
    [call] = answer.tool_calls
    assert call.name == "final_result" and answer.rule == "required.after_outputs"
    arguments = json.loads(call.arguments)
    assert (arguments["city"], arguments["temperature_c"]) == ("Paris", 21)
    assert "sunny" in arguments["summary"]


def test_required_one_call_at_a_time_makes_the_words_next_call_before_ending() -> None:
    history = (
        TurnView("u", "user_text", "What is the weather in Paris and in London?"),
        TurnView("fc", "function_call", '{"city": "Paris"}', name="get_weather", call_id="c1"),
        TurnView("fo", "function_call_output", "It is sunny and 21 degrees in Paris.", call_id="c1"),
    )
    request = ReplyRequest(
        "", (GET_WEATHER, FINAL_RESULT), "required", ("text",), history, 0, parallel_tool_calls=False
    )
    [call] = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request).tool_calls
    assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "London"})


def test_required_after_the_outputs_with_every_tool_called_calls_one_again() -> None:
    [call] = reply((GET_WEATHER,), _after_weather(), "required").tool_calls
    assert call.name == "get_weather"


def _request(messages: list[dict[str, Any]], **body: Any) -> Any:
    return parse_request(json.dumps({"model": "gpt-4o-mini", "messages": messages, **body}).encode())


PROMPT = (
    "Always respond with a JSON object that's compatible with this schema:\n\n"
    + json.dumps({**CITY_WEATHER, "title": "CityWeather"})
    + "\n\nDon't include any text or Markdown fencing before or after."
)


def test_json_object_follows_the_schema_in_the_instructions() -> None:
    request = _request(
        [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": "It is 21 degrees and sunny in Paris."},
        ],
        response_format={"type": "json_object"},
    )
    choice = fit_choice(Reply("Noted.", rule="test"), request, 0, IdFactory(1), TokenCounter(None))
    value = json.loads(choice.text or "")
    jsonschema.validate(value, CITY_WEATHER)
    assert (value["city"], value["temperature_c"]) == ("Paris", 21)


@pytest.mark.parametrize(
    "system",
    [
        "Answer in JSON.",
        'Answer in JSON like {"properties": 3}.',  # JSON, but no schema
        'Answer in JSON like {"properties": {"a": {"type": "nonsense"}}}.',  # not a valid schema
        'Answer in JSON like {"type": "array", "properties": {}}.',  # not an object's
        "JSON: " + '{"properties": {"a": ' * 20,  # unreadable
    ],
)
def test_json_object_without_a_schema_in_the_instructions_wraps_the_reply(system: str) -> None:
    request = _request(
        [{"role": "system", "content": system}, {"role": "user", "content": "Hello"}],
        response_format={"type": "json_object"},
    )
    assert prompted_schema(request) is None
    choice = fit_choice(Reply("Hi there.", rule="test"), request, 0, IdFactory(1), TokenCounter(None))
    assert json.loads(choice.text or "") == {"response": "Hi there."}


def test_a_structured_answer_after_a_tool_takes_what_the_tool_found() -> None:
    request = _request(
        [
            {"role": "user", "content": "What is the weather in Paris?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "It is sunny and 21 degrees in Paris."},
        ],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "CityWeather", "schema": CITY_WEATHER},
        },
    )
    choice = fit_choice(Reply("Sunny in Paris.", rule="test"), request, 0, IdFactory(1), TokenCounter(None))
    value = json.loads(choice.text or "")
    assert (value["city"], value["temperature_c"]) == ("Paris", 21)
