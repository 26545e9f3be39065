"""The HyperStudy participant every scenario inherits: all eight HRP answer types on both sides, study
state (pause), the chat side's tools, personas and roles, selection of scenarios, and determinism.

Sources: HRP spec 0.2.0 (``answers``, ``contextItems``, ``modelEndpoint.tools``, ``questionRequest``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mockengine.brain.hrp import HRP_TOOLS, hrp_spec
from mockengine.brain.markers import role_marker, scenario_marker
from mockengine.brain.model import ForcedTool, Reply, ReplyRequest, ToolChoice, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import ScenarioError, parse_scenario
from mockengine.brain.selection import (
    ScenarioLibrary,
    SelectingBrain,
    UnknownScenario,
    load_library,
)
from tests.hyperstudy_text import question_text

SPEC = hrp_spec()
CHAT_TOOLS = {tool["function"]["name"]: tool["function"] for tool in SPEC["modelEndpoint"]["tools"]}
WAIT = ToolSpec("wait", CHAT_TOOLS["wait"]["description"], CHAT_TOOLS["wait"]["parameters"])
CHAT_TOOLS_SPECS = tuple(
    ToolSpec(name, tool["description"], tool["parameters"])
    for name, tool in CHAT_TOOLS.items()
    if name != "wait"
)
SEND_CHAT = ToolSpec(
    "send_chat", CHAT_TOOLS["send_chat"]["description"], CHAT_TOOLS["send_chat"]["parameters"]
)
LIBRARY = load_library()


def answer_id(answer: dict[str, Any]) -> str:
    multiple = "-multiple" if answer["exampleConfig"].get("allowMultiple") else ""
    return answer["componentType"] + multiple


ANSWERS = {answer_id(answer): answer for answer in SPEC["answers"]}


def context(data: dict[str, Any]) -> TurnView:
    return TurnView("item_ctx", "context", "[context] " + json.dumps(data))


def user(text: str) -> TurnView:
    return TurnView("item_user", "user_text", text)


def ask(
    brain: Any,
    history: list[TurnView],
    tools: tuple[ToolSpec, ...] = HRP_TOOLS,
    tool_choice: ToolChoice = "auto",
    index: int = 0,
    channel: str = "realtime",
    instructions: str = "You are a participant.",
) -> Reply:
    request = ReplyRequest(instructions, tools, tool_choice, ("audio",), tuple(history), index, channel)  # type: ignore[arg-type]
    reply: Reply = brain.reply(request)
    return reply


def only_call(reply: Reply) -> tuple[str, Any]:
    assert len(reply.tool_calls) == 1, reply
    return reply.tool_calls[0].name, json.loads(reply.tool_calls[0].arguments)


def check_exact_texts(answer: dict[str, Any], value: Any) -> None:
    """Values must use the component's exact choice/item texts and rank every item."""
    config = answer["exampleConfig"]
    if answer["componentType"] == "multiplechoice":
        picked = value if isinstance(value, list) else [value]
        assert picked and set(picked) <= set(config["choices"])
    if answer["componentType"] == "ranking":
        assert sorted(value) == sorted(config["options"])


# All eight answer types, voice side: HRP's question context item, then its silent question request.


@pytest.mark.parametrize("answer_key", sorted(ANSWERS))
@pytest.mark.parametrize("scenario", ["default", "questionnaire", "face_rating"])
def test_every_answer_type_through_its_voice_tool_validates(answer_key: str, scenario: str) -> None:
    answer = ANSWERS[answer_key]
    tool = answer["voiceTool"]
    item = {"event": "question", "tool": tool, "question": question_text(answer["exampleConfig"])}
    brain = ScriptedBrain(LIBRARY.get(scenario), seed=11)
    # HRP questionRequest: response.create with output_modalities text and the tool forced.
    name, arguments = only_call(ask(brain, [context(item)], tool_choice=ForcedTool(tool)))
    assert name == tool
    (value,) = arguments.values()
    Draft202012Validator(answer["valueSchema"]).validate(value)
    check_exact_texts(answer, value)


# All eight answer types, chat side: the screen item and submit_response with the value schema.


@pytest.mark.parametrize("answer_key", sorted(ANSWERS))
@pytest.mark.parametrize("scenario", ["default", "questionnaire"])
def test_every_answer_type_through_submit_response_validates(answer_key: str, scenario: str) -> None:
    answer = ANSWERS[answer_key]
    config = answer["exampleConfig"]
    parameters = {
        "type": "object",
        "properties": {"value": answer["valueSchema"]},
        "required": ["value"],
        "additionalProperties": False,
    }
    submit = ToolSpec(
        "submit_response", f"Submit your response to the current {answer['componentType']}.", parameters
    )
    screen = {"event": "screen", "type": answer["componentType"], "text": question_text(config), **config}
    brain = ScriptedBrain(LIBRARY.get(scenario), seed=4)
    reply = ask(brain, [context(screen)], tools=(SEND_CHAT, WAIT, submit), channel="chat")
    name, arguments = only_call(reply)
    assert name == "submit_response"
    Draft202012Validator(parameters).validate(arguments)
    check_exact_texts(answer, arguments["value"])


def test_ratings_vary_across_questions_repeat_across_runs_and_change_with_the_seed() -> None:
    vas = ANSWERS["vasrating"]
    item = {"event": "question", "tool": "answer_scale", "question": question_text(vas["exampleConfig"])}

    def ratings(seed: int) -> list[float]:
        brain = ScriptedBrain(LIBRARY.get("questionnaire"), seed=seed)
        replies = [
            ask(brain, [context(item)], tool_choice=ForcedTool("answer_scale"), index=i) for i in range(8)
        ]
        return [only_call(r)[1]["value"] for r in replies]

    first = ratings(1)
    assert len(set(first)) > 1  # vary across questions
    assert ratings(1) == first  # repeat across runs
    assert ratings(2) != first  # another seed, other ratings


def test_rating_tendency_of_the_persona_moves_ratings() -> None:
    generous = parse_scenario(
        "name: g\npersona: {name: G, rating: {tendency: 0.95, spread: 0.05}}\nrules: []"
    )
    harsh = parse_scenario("name: h\npersona: {name: H, rating: {tendency: 0.05, spread: 0.05}}\nrules: []")
    item = {"event": "question", "tool": "answer_scale", "question": "How warm? Respond from 0 to 100."}
    for index in range(5):
        high = only_call(
            ask(
                ScriptedBrain(generous, 1),
                [context(item)],
                tool_choice=ForcedTool("answer_scale"),
                index=index,
            )
        )
        low = only_call(
            ask(ScriptedBrain(harsh, 1), [context(item)], tool_choice=ForcedTool("answer_scale"), index=index)
        )
        assert high[1]["value"] >= 85 and low[1]["value"] <= 15


# Study state


def test_never_talks_while_paused_and_talks_again_after_resume() -> None:
    brain = ScriptedBrain(LIBRARY.get("default"), seed=1)
    paused = [context({"event": "paused", "waitingFor": ["Alex (A)"]}), user("Are you still there?")]
    reply = ask(brain, paused)
    assert (reply.text, reply.tool_calls, reply.rule) == (None, (), "builtin.paused")
    waited = ask(brain, paused, tools=(*HRP_TOOLS, WAIT))
    assert only_call(waited) == ("wait", {})
    resumed = ask(brain, [*paused, context({"event": "resumed"}), user("Are you still there?")])
    assert resumed.text


def test_a_paused_study_still_answers_a_forced_question_request() -> None:
    brain = ScriptedBrain(LIBRARY.get("default"), seed=1)
    item = {"event": "question", "tool": "answer_scale", "question": "Rate it from 1 to 7."}
    history = [context({"event": "paused"}), context(item)]
    name, arguments = only_call(ask(brain, history, tool_choice=ForcedTool("answer_scale")))
    assert name == "answer_scale" and 1 <= arguments["value"] <= 7


def test_a_question_shown_during_the_pause_is_answered_once_resumed() -> None:
    """A question screen the platform showed while the study was paused got silence then (right), and
    after ``resumed`` a plain ``response.create`` (no forced tool) got silence again: the trigger was the
    ``resumed`` item, which asks nothing. The question is still on screen and unanswered."""
    brain = ScriptedBrain(LIBRARY.get("default"), seed=1)
    item = {"event": "question", "tool": "answer_scale", "question": "Rate it from 1 to 7."}
    during = [context({"event": "paused", "waitingFor": ["Alex (A)"]}), context(item)]
    assert ask(brain, during, tools=(*HRP_TOOLS, WAIT)).rule == "builtin.paused"
    resumed = [*during, context({"event": "resumed"})]
    name, arguments = only_call(ask(brain, resumed, tools=(*HRP_TOOLS, WAIT)))
    assert name == "answer_scale" and 1 <= arguments["value"] <= 7
    aloud = ask(brain, resumed, tools=())  # no tool offered: said aloud, as an unpaused question is
    assert aloud.rule == "builtin.question_aloud" and aloud.text
    chat = ask(brain, resumed, tools=(*CHAT_TOOLS_SPECS, WAIT), channel="chat")
    assert only_call(chat)[0] == "submit_response"


def test_a_resume_after_a_question_answered_before_the_pause_asks_nothing() -> None:
    """Only a question still open once the study resumes is answered then: one answered before the
    pause (or aloud before it, with no tool offered) is not answered again on ``resumed``."""
    brain = ScriptedBrain(LIBRARY.get("default"), seed=1)
    item = {"event": "question", "tool": "answer_scale", "question": "Rate it from 1 to 7."}
    first = ask(brain, [context(item)])
    answered = [
        context(item),
        TurnView("fc", "function_call", first.tool_calls[0].arguments, name="answer_scale", call_id="c1"),
        TurnView("out", "function_call_output", '{"accepted": true}', call_id="c1"),
        context({"event": "paused"}),
        context({"event": "resumed"}),
    ]
    assert only_call(ask(brain, answered, tools=(*HRP_TOOLS, WAIT))) == ("wait", {})
    aloud = [context(item), TurnView("a1", "assistant", "I would say five."), *answered[3:]]
    assert ask(brain, aloud, tools=()).rule == "builtin.context.resumed"


def test_an_answered_question_is_not_answered_again() -> None:
    brain = ScriptedBrain(LIBRARY.get("default"), seed=1)
    item = {"event": "question", "tool": "answer_scale", "question": "Rate it from 1 to 7."}
    first = ask(brain, [context(item)])
    assert only_call(first)[0] == "answer_scale"
    answered = [
        context(item),
        TurnView("fc", "function_call", first.tool_calls[0].arguments, name="answer_scale", call_id="c1"),
        TurnView("out", "function_call_output", '{"accepted": true}', call_id="c1"),
        context({"event": "timer", "secondsLeft": 10}),
    ]
    later = ask(brain, answered, tools=(*HRP_TOOLS, WAIT))
    assert only_call(later) == ("wait", {})


# The chat side (HRP modelEndpoint): send_chat when addressed, wait when nothing is asked.


def test_chat_side_answers_a_typed_message_with_send_chat() -> None:
    brain = ScriptedBrain(LIBRARY.get("default"), seed=2)
    typed = context({"event": "typed", "speaker": "Alex", "said": "hello?"})
    name, arguments = only_call(ask(brain, [typed], tools=(SEND_CHAT, WAIT), channel="chat"))
    assert name == "send_chat" and "Alex" in arguments["message"]


def test_chat_side_answers_a_plain_user_message_with_send_chat() -> None:
    brain = ScriptedBrain(LIBRARY.get("default"), seed=2)
    name, arguments = only_call(
        ask(brain, [user("What is the capital of France?")], tools=(SEND_CHAT, WAIT), channel="chat")
    )
    assert name == "send_chat" and "Paris" in arguments["message"]


@pytest.mark.parametrize(
    "item",
    [
        {"event": "timer", "secondsLeft": 30},
        {"event": "revealed", "name": "Alex", "role": "A", "answer": 70},
        {"event": "experimenter_message", "text": "Please answer honestly."},
        {"event": "resumed"},
        {"event": "screen", "type": "showtext", "text": "Watch the video."},
    ],
)
def test_chat_side_waits_when_nothing_is_asked(item: dict[str, Any]) -> None:
    brain = ScriptedBrain(LIBRARY.get("default"), seed=2)
    assert only_call(ask(brain, [context(item)], tools=(SEND_CHAT, WAIT), channel="chat")) == ("wait", {})


def test_chat_side_introduces_itself_when_the_screen_asks() -> None:
    brain = ScriptedBrain(LIBRARY.get("default"), seed=2)
    screen = context({"event": "screen", "type": "showtext", "text": "Please introduce yourselves."})
    name, arguments = only_call(ask(brain, [screen], tools=(SEND_CHAT, WAIT), channel="chat"))
    assert name == "send_chat" and "Sam" in arguments["message"]


def test_chat_side_waits_after_an_accepted_call() -> None:
    brain = ScriptedBrain(LIBRARY.get("default"), seed=2)
    history = [
        TurnView("fc", "function_call", '{"message": "hi"}', name="send_chat", call_id="c1"),
        TurnView("out", "function_call_output", '{"accepted": true}', call_id="c1"),
    ]
    assert only_call(ask(brain, history, tools=(SEND_CHAT, WAIT), channel="chat")) == ("wait", {})


def test_chat_side_retries_a_refused_submit_response_within_the_stated_range() -> None:
    parameters = {"type": "object", "properties": {"value": {"type": "number"}}, "required": ["value"]}
    submit = ToolSpec("submit_response", "Submit your response.", parameters)
    screen = {"event": "screen", "type": "vasrating", "text": "How warm was your partner?"}
    history = [
        context(screen),
        TurnView("fc", "function_call", '{"value": 50}', name="submit_response", call_id="c1"),
        TurnView("out", "function_call_output", '{"error": "value must be from 60 to 70"}', call_id="c1"),
    ]
    brain = ScriptedBrain(LIBRARY.get("default"), seed=2)
    name, arguments = only_call(ask(brain, history, tools=(SEND_CHAT, WAIT, submit), channel="chat"))
    assert name == "submit_response" and 60 <= arguments["value"] <= 70


# Personas by role (intro_chat)


def intro(role_hint: dict[str, Any], channel: str = "chat") -> Reply:
    brain = ScriptedBrain(LIBRARY.get("intro_chat"), seed=5, role=role_hint.get("role"))
    screen = context({"event": "screen", "type": "showtext", "text": "Please introduce yourselves."})
    history = [context(role_hint["participants"]), screen] if "participants" in role_hint else [screen]
    return ask(
        brain,
        history,
        tools=(SEND_CHAT, WAIT),
        channel=channel,
        instructions=role_hint.get("instructions", ""),
    )


def test_two_roles_of_one_scenario_introduce_themselves_differently() -> None:
    alex = only_call(intro({"role": "A"}))[1]["message"]
    blair = only_call(intro({"role": "B"}))[1]["message"]
    assert "Alex" in alex and "Blair" in blair and alex != blair


def test_the_role_comes_from_a_marker_or_the_one_role_no_one_else_holds() -> None:
    by_marker = only_call(intro({"instructions": "Be nice. [mockengine role=B]"}))[1]["message"]
    assert "Blair" in by_marker
    others = {"event": "participants", "others": [{"name": "Blair", "role": "B"}]}
    inferred = only_call(intro({"participants": others}))[1]["message"]
    assert "Alex" in inferred


def test_persona_voice_and_style_come_from_the_role() -> None:
    scenario = LIBRARY.get("intro_chat")
    assert scenario.persona_for("A").voice == "ash" and scenario.persona_for("b").voice == "marin"
    assert scenario.persona_for(None).name == "Sam"


def test_say_templates_fill_what_matched() -> None:
    brain = ScriptedBrain(LIBRARY.get("intro_chat"), seed=5)
    others = {
        "event": "participants",
        "others": [{"name": "Alex", "role": "A"}, {"name": "Kim", "role": "C"}],
    }
    # A and C are taken, so this agent is B, the one persona role left.
    assert ask(brain, [context(others)]).text == "Hi Alex and Kim, I'm Blair."


# Rule conditions


RULES = """
name: conditions
rules:
  - id: first-turn
    when: {turn: 1}
    say: first turn
  - id: red-image
    when: {image_colour: red}
    say: a red one
  - id: after-scale
    when: {tool_result_of: answer_scale, tool_result: accepted}
    say: scale accepted
  - id: later
    when: {turn: {min: 3, max: 4}, context: {event: timer, secondsLeft: [5, 10]}}
    say: "{seconds_left} seconds"
  - id: paused
    when: {paused: true}
    silent: true
"""


def test_rule_conditions_turn_context_fields_tool_results_and_pause() -> None:
    brain = ScriptedBrain(parse_scenario(RULES), seed=1)
    assert ask(brain, [user("hi")]).rule == "scenario:first-turn"
    timer = context({"event": "timer", "secondsLeft": 10})
    assert ask(brain, [timer], index=2).text == "10 seconds"
    assert ask(brain, [timer], index=4).rule != "scenario:later"
    history = [
        TurnView("fc", "function_call", '{"value": 3}', name="answer_scale", call_id="c1"),
        TurnView("out", "function_call_output", '{"accepted": true}', call_id="c1"),
    ]
    assert ask(brain, history, index=1).text == "scale accepted"
    assert ask(brain, [context({"event": "paused"}), user("hello")], index=1).rule == "scenario:paused"


def test_a_silent_rule_calls_wait_where_it_is_offered() -> None:
    brain = ScriptedBrain(parse_scenario(RULES), seed=1)
    reply = ask(brain, [context({"event": "paused"})], tools=(WAIT,), index=1, channel="chat")
    assert only_call(reply) == ("wait", {}) and reply.rule == "scenario:paused"


def test_silent_cannot_be_combined_with_say() -> None:
    with pytest.raises(ScenarioError, match=r"\$\.rules\[0\]"):
        parse_scenario("name: x\nrules:\n  - id: a\n    silent: true\n    say: hi\n")


# Selection


def test_markers_name_a_scenario_and_a_role() -> None:
    text = "Follow the study. [mockengine scenario=face_rating role=B]"
    assert (scenario_marker(text), role_marker(text)) == ("face_rating", "B")
    assert scenario_marker("[mockengine role=A]") is None
    assert scenario_marker("no marker") is None


def test_library_selects_by_name_key_and_model_in_that_order(tmp_path: Path) -> None:
    keys = tmp_path / "keys.yaml"
    keys.write_text("sk-face: face_rating\nsk-quiz: questionnaire\n")
    library = load_library(key_map=str(keys))
    assert library.select().name == "default"
    assert library.select(model="mockengine-intro_chat").name == "intro_chat"
    assert library.select(model="questionnaire").name == "questionnaire"
    assert library.select(model="gpt-realtime").name == "default"
    assert library.select(api_key="sk-face", model="mockengine-intro_chat").name == "face_rating"
    assert library.select(scenario="conformance", api_key="sk-face").name == "conformance"
    with pytest.raises(UnknownScenario, match="Loaded scenarios: conformance, default"):
        library.select(scenario="nope")


def test_a_key_map_naming_an_unknown_scenario_fails_at_load(tmp_path: Path) -> None:
    keys = tmp_path / "keys.yaml"
    keys.write_text("sk-x: missing\n")
    with pytest.raises(ScenarioError, match="unknown scenario 'missing'"):
        load_library(key_map=str(keys))


def test_scenarios_dir_adds_and_default_may_be_a_name(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text("name: mine\nrules:\n  - id: a\n    say: mine speaking\n")
    library = load_library(default="mine", directories=[str(tmp_path)])
    assert library.default == "mine" and "face_rating" in library.scenarios


def test_instructions_marker_switches_scenario_per_reply() -> None:
    library: ScenarioLibrary = LIBRARY
    brain = SelectingBrain(library, library.get("default"), seed=1, role=None)
    item = {"event": "participants", "others": [{"name": "Alex", "role": "A"}]}
    plain = ask(brain, [context(item)])
    switched = ask(brain, [context(item)], instructions="[mockengine scenario=intro_chat role=B]")
    assert switched.rule == "scenario:greet-others" and switched.text == "Hi Alex, I'm Blair."
    assert plain.rule != switched.rule
    unknown = ask(brain, [context(item)], instructions="[mockengine scenario=nope]")
    assert "unknown scenario marker 'nope' ignored" in unknown.rule


def test_every_packaged_scenario_is_valid_and_named_after_its_file() -> None:
    folder = Path(__file__).parents[2] / "mockengine/brain/scenarios"
    names = {path.stem for path in folder.glob("*.yaml")}
    assert names == set(LIBRARY.scenarios)
    assert {"default", "face_rating", "intro_chat", "questionnaire", "conformance"} <= names


def test_a_question_about_an_image_is_answered_from_its_visual_facts() -> None:
    from mockengine.brain.model import ImageFacts

    dark = ImageFacts(width=32, height=32, dominant_colour="blue", dominant_share=0.9, brightness=0.1)
    screen = TurnView(
        "item_ctx",
        "context",
        '[context] {"event":"screen","type":"showimage","text":"Look."}',
        images=(dark,),
    )
    brain = ScriptedBrain(LIBRARY.get("default"), seed=1)
    bright = ask(brain, [screen, user("Is the picture bright or dark?")])
    assert (bright.text, bright.rule) == ("It's quite dark, mostly blue.", "builtin.image_brightness")
    colour = ask(brain, [screen, user("What colour is it?")])
    assert colour.rule == "builtin.image_colour" and "blue" in (colour.text or "")
