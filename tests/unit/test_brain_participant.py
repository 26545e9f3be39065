"""ScriptedBrain: forced/required tools, function outputs, scenario rules, image answers, determinism."""

from __future__ import annotations

import ast
import base64
import io
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from PIL import Image

from mockengine.brain import (
    ForcedTool,
    Reply,
    ReplyRequest,
    ScriptedBrain,
    ToolChoice,
    ToolSpec,
    TurnView,
    describe_image,
    load_scenario,
    parse_scenario,
)
from mockengine.brain.hrp import HRP_TOOLS
from mockengine.brain.phrases import NOT_HEARD

REPO = Path(__file__).resolve().parents[2]
TOOLS = {tool.name: tool for tool in HRP_TOOLS}
DEFAULT = load_scenario(None)
SCALE_QUESTION = (
    '[context] {"event":"question","tool":"answer_scale","question":"Question: How warm was your partner?'
    '\\nThis is a visual analog rating scale from 0 to 100.\\nRespond with a number between 0 and 100.",'
    '"duringVideo":false}'
)
LIKERT_QUESTION = (
    '[context] {"event":"question","tool":"answer_scale","question":"Question: I enjoyed the conversation.'
    '\\nRespond with a whole number from 1 to 7."}'
)
HRP_QUESTIONS = {
    "answer_choice": "Which drink do you prefer?\nChoices: Coffee, Tea",
    "answer_choices": "Which colours do you like?\nChoices: Red, Green, Blue",
    "answer_scale": "I enjoyed the conversation. Answer from 1 to 7.",
    "answer_ranking": "Rank these activities: Reading, Hiking, Cooking",
    "answer_text": "Describe your partner in one sentence.",
    "answer_dimensions": "How do you feel right now? Rate each from 0 to 100.\nDimensions: Calm, Happy",
    "send_chat": "Greet your partner in the chat.",
}


def user(text: str, kind: str = "user_audio", images: tuple[Any, ...] = ()) -> TurnView:
    return TurnView(item_id="item_user", kind=kind, text=text, images=images)  # type: ignore[arg-type]


def context(data: dict[str, Any] | str, images: tuple[Any, ...] = ()) -> TurnView:
    text = data if isinstance(data, str) else "[context] " + json.dumps(data)
    return TurnView(item_id="item_ctx", kind="context", text=text, images=images)


def call_and_output(output: str, name: str = "answer_scale") -> list[TurnView]:
    return [
        TurnView("item_fc", "function_call", '{"value": 70}', name=name, call_id="call_1"),
        TurnView("item_out", "function_call_output", output, call_id="call_1"),
    ]


def request(
    history: list[TurnView],
    tool_choice: ToolChoice = "auto",
    tools: tuple[ToolSpec, ...] = HRP_TOOLS,
    index: int = 0,
    instructions: str = "You are a participant.",
    modalities: tuple[str, ...] = ("audio",),
) -> ReplyRequest:
    return ReplyRequest(instructions, tools, tool_choice, modalities, tuple(history), index)


WAIT = ToolSpec("wait", "Take no action this turn.", {"type": "object", "properties": {}})


def reply(history: list[TurnView], seed: int = 7, scenario: Any = DEFAULT, **kwargs: Any) -> Reply:
    return ScriptedBrain(scenario, seed).reply(request(history, **kwargs))


def red_png_data_url() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (32, 32), (255, 0, 0)).save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def only_call(result: Reply) -> tuple[str, Any]:
    assert len(result.tool_calls) == 1
    call = result.tool_calls[0]
    return call.name, json.loads(call.arguments)


# Forced and required tool choice


@pytest.mark.parametrize("tool", sorted(HRP_QUESTIONS))
def test_forced_tool_gives_exactly_one_valid_call_and_no_text(tool: str) -> None:
    question = context({"event": "question", "tool": tool, "question": HRP_QUESTIONS[tool]})
    result = reply([user("hi"), question], tool_choice=ForcedTool(tool), modalities=("text",))
    name, arguments = only_call(result)
    assert name == tool
    assert result.text is None
    assert result.rule == "forced_tool"
    jsonschema.validate(arguments, TOOLS[tool].parameters)


def test_silent_scale_question_answers_inside_the_range() -> None:
    result = reply([context(SCALE_QUESTION)], tool_choice=ForcedTool("answer_scale"), modalities=("text",))
    _, arguments = only_call(result)
    assert 0 <= arguments["value"] <= 100


def test_forced_tool_takes_explicit_arguments_from_a_matching_rule() -> None:
    fixed = parse_scenario(
        "name: fixed\nrules:\n  - id: fixed\n    when: {context_event: question}\n"
        "    call: {tool: answer_scale, arguments: {value: 72}}\n"
    )
    result = reply([context(SCALE_QUESTION)], scenario=fixed, tool_choice=ForcedTool("answer_scale"))
    assert only_call(result) == ("answer_scale", {"value": 72})
    assert result.rule == "scenario:fixed"
    assert result.text is None


@pytest.mark.parametrize(("question", "value"), [(SCALE_QUESTION, 72), (LIKERT_QUESTION, 5)])
def test_hyperstudy_rating_puts_every_rating_at_the_same_place_of_its_scale(
    question: str, value: int
) -> None:
    rating = load_scenario(str(REPO / "scenarios" / "hyperstudy_rating.yaml"))
    result = reply([context(question)], scenario=rating, tool_choice=ForcedTool("answer_scale"))
    assert only_call(result) == ("answer_scale", {"value": value})
    assert result.rule == "scenario:fixed-rating"


def test_required_calls_the_question_tool() -> None:
    result = reply([context(SCALE_QUESTION)], tool_choice="required")
    assert only_call(result)[0] == "answer_scale"
    assert result.rule == "required.question"


def test_required_without_question_calls_the_named_or_first_tool() -> None:
    assert only_call(reply([user("ok")], tool_choice="required"))[0] == HRP_TOOLS[0].name
    named = reply([user("please use answer text now")], tool_choice="required")
    assert (only_call(named)[0], named.rule) == ("answer_text", "required.named")


# Function outputs


@pytest.mark.parametrize("output", ['{"accepted":true}', '{"ok": 1}', "saved", "[1, 2]"])
def test_accepted_output_is_acknowledged_without_another_call(output: str) -> None:
    history = [user("rate it 70"), *call_and_output(output)]
    result = reply(history)
    assert result.tool_calls == ()
    assert result.rule == "builtin.function_output.accepted"
    assert result.text in (
        "Done, I've submitted that.",
        "Okay, that's submitted.",
        "Great, that went through.",
    )


def refused_twice(first_error: str, second_error: str) -> list[TurnView]:
    return [
        *call_and_output(json.dumps({"error": first_error})),
        TurnView("item_fc2", "function_call", '{"value": 12}', name="answer_scale", call_id="call_2"),
        TurnView("item_out2", "function_call_output", json.dumps({"error": second_error}), call_id="call_2"),
    ]


def test_a_refused_call_is_retried_once_with_a_value_the_error_allows() -> None:
    history = [context(SCALE_QUESTION), *call_and_output('{"error": "Value must be between 20 and 30."}')]
    result = reply(history)
    assert result.rule == "builtin.function_output.retry"
    assert result.text is None
    name, arguments = only_call(result)
    assert name == "answer_scale" and 20 <= arguments["value"] <= 30


def test_a_second_refusal_in_a_row_says_the_error() -> None:
    history = [context(SCALE_QUESTION), *refused_twice("Out of range.", "Value must be between 0 and 100.")]
    result = reply(history)
    assert result.text == "That didn't go through: Value must be between 0 and 100."
    assert result.tool_calls == ()
    assert result.rule == "builtin.function_output.refused"


def test_a_retry_names_the_exact_choice_the_error_lists() -> None:
    question = {"event": "question", "tool": "answer_choice", "question": "Which drink?", "choices": ["Tea"]}
    refused = [
        TurnView("item_fc", "function_call", '{"choice": "Tea"}', name="answer_choice", call_id="call_1"),
        TurnView(
            "item_out",
            "function_call_output",
            '{"error": "Choose one of: Coffee, Green tea"}',
            call_id="call_1",
        ),
    ]
    name, arguments = only_call(reply([context(question), *refused]))
    assert name == "answer_choice" and arguments["choice"] in ("Coffee", "Green tea")


def test_no_retry_when_tools_may_not_be_called() -> None:
    history = [context(SCALE_QUESTION), *call_and_output('{"error": "Value must be between 20 and 30."}')]
    result = reply(history, tool_choice="none")
    assert result.tool_calls == () and result.text is not None and "20 and 30" in result.text


@pytest.mark.parametrize("output", ['{"error": ""}', '{"accepted": false}'])
def test_refused_without_reason(output: str) -> None:
    history = [*call_and_output(output), *call_and_output(output)[:0]]
    twice = [
        *history,
        TurnView("item_fc2", "function_call", '{"value": 12}', name="answer_scale", call_id="call_2"),
        TurnView("item_out2", "function_call_output", output, call_id="call_2"),
    ]
    assert reply(twice).text == "That didn't go through."


def test_sent_chat_is_acknowledged_as_a_message() -> None:
    result = reply(call_and_output('{"accepted":true}', name="send_chat"))
    assert result.text in ("I've sent that message.", "Okay, message sent.")


def test_heard_rule_does_not_fire_again_after_its_own_output() -> None:
    first = reply([user("Can you send a chat to Alex?")])
    assert first.rule == "scenario:chat-on-request"
    assert only_call(first)[0] == "send_chat"
    after = reply([user("Can you send a chat to Alex?"), *call_and_output('{"accepted":true}', "send_chat")])
    assert after.tool_calls == ()


def test_after_function_output_rule() -> None:
    scenario = parse_scenario(
        "name: t\nrules:\n  - id: sorry\n    when: {after_function_output: refused}\n"
        "    say: Sorry about that.\n"
    )
    assert reply(call_and_output('{"error":"no"}'), scenario=scenario).text == "Sorry about that."
    assert reply(call_and_output('{"accepted":true}'), scenario=scenario).rule.startswith("builtin.")


# Scenario rules


def test_rule_call_needs_the_tool_declared_and_tool_choice_not_none() -> None:
    heard = [user("Please send a chat message saying hello to Alex.")]
    declared = reply(heard)
    assert only_call(declared) == ("send_chat", {"message": "Hello"})
    assert declared.text == "Sure, I'll type that."
    assert reply(heard, tools=(TOOLS["answer_scale"],)).tool_calls == ()
    assert reply(heard, tool_choice="none").tool_calls == ()


def test_regex_groups_fill_arguments() -> None:
    result = reply([user("I'd rate it 33 out of 100")])
    assert (result.rule, only_call(result)) == ("scenario:rate-on-request", ("answer_scale", {"value": 33}))


def test_context_event_rule_and_chat_line_rules() -> None:
    rating = load_scenario(str(REPO / "scenarios" / "hyperstudy_rating.yaml"))
    typed = context({"event": "typed", "speaker": "Alex", "said": "hello?"})
    result = reply([typed], scenario=rating)
    assert result.rule == "scenario:chat-back"
    assert only_call(result) == ("send_chat", {"message": "Hi, Alex! I'm Jordan."})


def test_tool_named_by_the_user_is_called() -> None:
    result = reply([user("Please call send chat now.")])
    assert (result.rule, only_call(result)[0]) == ("builtin.tool_named", "send_chat")


def test_question_context_with_auto_calls_its_tool_or_answers_aloud() -> None:
    assert only_call(reply([context(SCALE_QUESTION)]))[0] == "answer_scale"
    aloud = reply([context(SCALE_QUESTION)], tools=())
    assert aloud.rule == "builtin.question_aloud"
    assert re.fullmatch(r"I'd say \d+\.", aloud.text or "")


# Words and images


def test_heard_question_is_echoed_and_answered() -> None:
    result = reply([user("What is the capital of France?")])
    assert result.text is not None
    assert "what is the capital of France" in result.text
    assert "Paris" in result.text
    assert result.rule == "builtin.heard"


def test_typed_user_text_is_heard_too() -> None:
    result = reply([user("what is 6 times 7", kind="user_text")])
    assert result.text is not None and "42" in result.text


@pytest.mark.parametrize("transcript", ["", "   "])
def test_empty_transcript_asks_again(transcript: str) -> None:
    result = reply([user(transcript)])
    assert (result.text, result.rule) == (NOT_HEARD, "builtin.not_heard")


UTTERANCES = [
    "What is the capital of France?",
    "I went to the park yesterday with my dog and it was wonderful",
    "hello there",
    "how are you today?",
    "what's your name?",
    "thanks a lot",
    "Is it going to rain tomorrow, do you think, or will the weather stay nice?",
    "tell me a joke",
    "what is 12 plus 30",
]


@pytest.mark.parametrize("utterance", UTTERANCES)
@pytest.mark.parametrize("index", [0, 1, 2])
def test_replies_stay_short(utterance: str, index: int) -> None:
    text = reply([user(utterance)], index=index).text or ""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]
    assert 1 <= len(sentences) <= 2
    assert len(text.split()) <= 25


UNSPACED = {
    "blob": base64.b64encode(bytes(range(256)) * 60).decode(),
    "url": "https://example.com/a?" + "&".join(f"key{i}=value{i}x{i + 1}" for i in range(1_000)),
    "cjk": "今天天气很好我们去公园散步吧" * 1_500,
    "one word": "x" * 20_000,
}


@pytest.mark.parametrize("name", sorted(UNSPACED))
def test_a_long_unspaced_text_gets_a_short_echo_and_no_sum_from_its_digits(name: str) -> None:
    text = reply([user(UNSPACED[name], kind="user_text")]).text or ""
    assert 0 < len(text) <= 200, text
    assert " is " not in text, text  # no "6 x 1 is 6." read out of the run's innards


def test_story_request_gets_a_long_answer_about_its_topic() -> None:
    result = reply([user("Please tell me a long story about a lighthouse keeper, at least six sentences.")])
    assert result.rule == "builtin.story"
    assert result.text is not None and "lighthouse keeper" in result.text
    assert len(result.text.split()) > 40


def test_image_colour_end_to_end_through_a_context_item() -> None:
    red = describe_image(red_png_data_url())
    screen = context({"event": "screen", "type": "showimage", "text": "Look at this square."}, images=(red,))
    ask = context(
        {
            "event": "question",
            "tool": "answer_text",
            "question": "Which colour fills the image you were shown? Answer with one word.",
        }
    )
    silent = reply([screen, ask], tool_choice=ForcedTool("answer_text"), modalities=("text",))
    assert only_call(silent) == ("answer_text", {"text": "red"})
    spoken = reply([screen, user("What colour is the image?")])
    assert spoken.rule == "builtin.image_colour"
    assert spoken.text is not None and "red" in spoken.text


def test_image_in_the_user_message_itself() -> None:
    red = describe_image(red_png_data_url())
    result = reply([user("Which color is this?", kind="user_text", images=(red,))])
    assert result.text is not None and "red" in result.text


def test_say_exactly_directive() -> None:
    result = reply([user("anything")], instructions='Be kind. Say exactly: "The test passed."')
    assert (result.text, result.rule, result.tool_calls) == (
        "The test passed.",
        "instructions.say_exactly",
        (),
    )


# Context reactions and greeting


def test_context_reactions_mention_what_happened() -> None:
    participants = reply([context({"event": "participants", "others": [{"name": "Alex", "role": "A"}]})])
    assert participants.text is not None and "Alex" in participants.text
    timer = reply([context({"event": "timer", "secondsLeft": 30})])
    # A timer asks nothing: silence, or `wait` where the host offers it.
    assert (timer.text, timer.tool_calls, timer.rule) == (None, (), "builtin.context.timer")
    waiting = reply([context({"event": "timer", "secondsLeft": 30})], tools=(*HRP_TOOLS, WAIT))
    assert only_call(waiting) == ("wait", {})
    unparsed = reply([context("[context] The user has been quiet for 12s.")])
    assert unparsed.rule == "builtin.context.unparsed"


def test_no_input_gives_a_greeting_with_the_persona() -> None:
    result = reply([])
    assert result.rule == "builtin.greeting"
    assert result.text is not None and "Sam" in result.text


def test_system_context_items_count_as_context() -> None:
    item = TurnView("item_sys", "system", '[context] {"event":"resumed"}')
    assert reply([item]).rule == "builtin.context.resumed"


# Determinism


def test_same_request_and_seed_give_equal_replies() -> None:
    history = [context(SCALE_QUESTION), user("I went to the park with my dog")]
    for choice in ("auto", ForcedTool("answer_scale")):
        assert reply(history, tool_choice=choice, index=3) == reply(history, tool_choice=choice, index=3)


def test_seeds_and_response_indexes_vary_the_phrasing() -> None:
    history = [user("I went to the park with my dog")]
    texts = {reply(history, seed=seed).text for seed in range(12)}
    assert len(texts) > 1
    assert all(text and "went to the park with my dog" in text for text in texts)
    values = {
        only_call(reply([context(SCALE_QUESTION)], seed=seed, tool_choice=ForcedTool("answer_scale")))[1][
            "value"
        ]
        for seed in range(12)
    }
    assert len(values) > 1


def test_seed_defaults_to_the_scenarios() -> None:
    history = [user("I went to the park with my dog")]
    assert ScriptedBrain(DEFAULT).reply(request(history)) == ScriptedBrain(DEFAULT, 7).reply(request(history))


# Layering


FORBIDDEN_IMPORTS = {
    "aiohttp",
    "asyncio",
    "faster_whisper",
    "piper",
    "webrtcvad",
    "numpy",
    "soxr",
    "onnxruntime",
}

# Modules outside the brain it may import: pure functions on the standard library alone (the one near
# miss every refusal of a misspelt name says, mockengine/near_miss.py: difflib).
PURE_FOUNDATIONS = {"mockengine.near_miss"}


def test_brain_imports_no_io_or_model_libraries() -> None:
    for path in (REPO / "mockengine" / "brain").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN_IMPORTS, f"{path.name} imports {name}"
                if name.startswith("mockengine.") and name not in PURE_FOUNDATIONS:
                    assert name.startswith("mockengine.brain"), f"{path.name} imports {name}"


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("What is two plus two?", "Two plus two is 4."),  # as whisper writes a spoken sum
        ("what's twelve times three", "Twelve times three is 36."),
        ("What is twenty-five minus seven?", "Twenty-five minus seven is 18."),
        ("what is 12 plus 30", "12 plus 30 is 42."),
    ],
)
def test_a_small_sum_is_answered_in_digits_or_in_words(said: str, answer: str) -> None:
    assert answer in (reply([user(said)]).text or "")


@pytest.mark.parametrize("said", ["I have two cats plus three dogs", "one-two, one-two, testing"])
def test_numbers_with_other_words_between_them_are_no_sum(said: str) -> None:
    assert reply([user(said)]).text == f"You said {said}. Tell me more."  # the echo, no "… is N."
