"""Fitting a brain reply to the request, and the chunk stream, checked with the SDK's own types."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from mockengine.brain.model import Reply, ToolCall
from mockengine.brain.wordlists import FEELINGS, OTHER_FEELINGS
from mockengine.chat.logprobs import token_text
from mockengine.chat.request import ChatRequest, parse_request
from mockengine.chat.shaping import (
    BrainDisobeyed,
    Choice,
    Envelope,
    _feeling_said,
    completion_body,
    fit_choice,
    stream_chunks,
    truncate,
)
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory

TOKENS = TokenCounter(None)  # one token per word run and per punctuation mark
ENVELOPE = Envelope("chatcmpl-test", 1_700_000_000, "gpt-4o-mini", "fp_test")
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("send_chat", "wait")
]
TWO_CALLS = Reply(
    "On it.", (ToolCall("send_chat", '{"message": "hello there"}'), ToolCall("wait", "{}")), rule="test"
)


def request(**body: Any) -> ChatRequest:
    base = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}
    return parse_request(json.dumps({**base, **body}).encode())


def fit(reply: Reply, **body: Any) -> Choice:
    return fit_choice(reply, request(**body), 0, IdFactory(1), TOKENS)


def test_reply_kept_whole():
    choice = fit(TWO_CALLS)
    assert choice.text == "On it." and choice.finish_reason == "tool_calls"
    assert [c.name for c in choice.calls] == ["send_chat", "wait"]
    assert choice.completion_tokens == TOKENS.count("On it.") + TOKENS.count('{"message": "hello there"}') + 2


@pytest.mark.parametrize(
    ("tool_choice", "names"),
    [
        ("none", []),
        ("auto", ["send_chat", "wait"]),
        ({"type": "function", "function": {"name": "wait"}}, ["wait"]),
    ],
)
def test_tool_choice(tool_choice, names):
    choice = fit(TWO_CALLS, tool_choice=tool_choice)
    assert [c.name for c in choice.calls] == names


def test_undeclared_calls_are_dropped_and_disobedience_is_a_bug():
    stray = Reply(None, (ToolCall("order_pizza", "{}"),))
    assert fit(stray).calls == () and fit(stray).text == ""
    with pytest.raises(BrainDisobeyed):
        fit(stray, tool_choice="required")


def test_stop_sequence_ends_the_text_and_the_calls():
    choice = fit(Reply("Hello. STOP and more", (ToolCall("wait", "{}"),)), stop=["STOP", "zzz"])
    assert (choice.text, choice.calls, choice.finish_reason) == ("Hello. ", (), "stop")


def test_budget_cuts_text():
    choice = fit(Reply("one two three four five"), max_tokens=2)
    assert (choice.text, choice.finish_reason, choice.completion_tokens) == ("one two", "length", 2)


def test_budget_cuts_the_first_call_and_drops_the_rest():
    text_tokens = TOKENS.count("On it.")
    choice = fit(TWO_CALLS, max_completion_tokens=text_tokens + 3)
    assert choice.finish_reason == "length" and [c.name for c in choice.calls] == ["send_chat"]
    assert choice.calls[0].arguments == '{"message'
    assert choice.completion_tokens <= text_tokens + 3


def test_truncate_is_the_longest_prefix_within_budget():
    assert truncate("alpha beta, gamma", 3, TOKENS) == "alpha beta,"
    assert truncate("alpha", 0, TOKENS) == ""


def test_custom_tool_gets_its_input_text():
    custom = {"type": "custom", "custom": {"name": "shell"}}
    choice = fit_choice(
        Reply(None, (ToolCall("shell", '{"input": "ls -la"}'),)),
        request(tools=[custom]),
        0,
        IdFactory(1),
        TOKENS,
    )
    assert choice.calls[0].wire()["custom"] == {"name": "shell", "input": "ls -la"}


def test_body_parses_as_an_sdk_chat_completion():
    body = completion_body(ENVELOPE, [fit(TWO_CALLS)], prompt_tokens=7)
    completion = ChatCompletion.model_validate(body)
    assert completion.usage.total_tokens == 7 + completion.usage.completion_tokens
    assert [c.function.name for c in completion.choices[0].message.tool_calls] == ["send_chat", "wait"]


def chunks_of(choices: list[Choice], **options: Any) -> list[ChatCompletionChunk]:
    raw = list(stream_chunks(ENVELOPE, choices, 7, include_usage=True, obfuscation=IdFactory(2), **options))
    return [ChatCompletionChunk.model_validate(chunk) for chunk in raw]


def test_stream_shape_for_text_and_two_calls():
    choice = fit(TWO_CALLS)
    chunks = chunks_of([choice])
    first = chunks[0].choices[0].delta
    assert (first.role, first.content, first.tool_calls) == ("assistant", "", None)
    headers = [
        part
        for c in chunks
        if c.choices
        for part in c.choices[0].delta.tool_calls or []
        if part.id is not None
    ]
    assert [(h.index, h.function.name, h.function.arguments) for h in headers] == [
        (0, "send_chat", ""),
        (1, "wait", ""),
    ]
    arguments = {0: "", 1: ""}
    for chunk in chunks:
        for part in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            arguments[part.index] += part.function.arguments or ""
    assert arguments == {0: choice.calls[0].arguments, 1: "{}"}
    assert chunks[-2].choices[0].finish_reason == "tool_calls" and chunks[-2].choices[0].delta.content is None
    assert chunks[-1].choices == [] and chunks[-1].usage.prompt_tokens == 7
    assert all(c.usage is None for c in chunks[:-1])
    assert all(getattr(c, "obfuscation", None) for c in chunks[:-2])


def test_stream_without_text_opens_with_the_first_call():
    chunks = chunks_of([fit(Reply(None, (ToolCall("wait", "{}"),)))])
    first = chunks[0].choices[0].delta
    assert first.role == "assistant" and first.content is None and first.tool_calls[0].function.name == "wait"


def test_stream_of_several_choices_keeps_their_index():
    chunks = chunks_of([fit(Reply("a b")), fit_choice(Reply("c"), request(), 1, IdFactory(1), TOKENS)])
    indexes = [c.choices[0].index for c in chunks if c.choices]
    assert indexes == sorted(indexes) and set(indexes) == {0, 1}


def test_logprobs_cover_the_text_token_by_token():
    """``logprobs: true`` was answered with ``logprobs: null``; a client reading ``.logprobs.content``
    (confidence thresholds, classifiers) failed on it."""
    choice = fit(Reply("Paris, I think. Zoë’s café!"), logprobs=True, top_logprobs=3)
    body = ChatCompletion.model_validate(completion_body(ENVELOPE, [choice], prompt_tokens=7))
    content = body.choices[0].logprobs.content
    assert "".join(t.token for t in content) == choice.text
    assert b"".join(bytes(t.bytes) for t in content) == choice.text.encode()
    assert len(content) == choice.completion_tokens
    for token in content:
        top = token.top_logprobs
        assert len(top) == 3 and top[0].token == token.token and top[0].logprob == token.logprob
        assert [t.logprob for t in top] == sorted((t.logprob for t in top), reverse=True)
        assert sum(math.exp(t.logprob) for t in top) <= 1.0


def test_logprobs_without_top_logprobs_and_for_a_call_only_choice():
    [token, *_] = fit(Reply("Sure."), logprobs=True).logprobs["content"]
    assert token["top_logprobs"] == [] and token["logprob"] < 0
    assert fit(Reply(None, (ToolCall("wait", "{}"),)), logprobs=True).logprobs == {
        "content": None,
        "refusal": None,
    }
    assert fit(Reply("Sure.")).logprobs is None


def test_streamed_logprobs_add_up_to_the_body():
    choice = fit(Reply("It is   sunny in Paris today."), logprobs=True, top_logprobs=2)
    chunks = chunks_of([choice])
    carried = [c.choices[0].logprobs for c in chunks if c.choices and c.choices[0].logprobs]
    streamed = [t for logprobs in carried for t in logprobs.content]
    assert [t.model_dump() for t in streamed] == choice.logprobs["content"]
    for chunk in chunks:
        if chunk.choices and chunk.choices[0].logprobs:
            text = "".join(t.token for t in chunk.choices[0].logprobs.content)
            assert text == chunk.choices[0].delta.content


def test_a_token_holding_part_of_a_character_is_written_as_bytes():
    assert token_text("é".encode()[:1]) == "bytes:\\xc3"
    assert token_text(b" caf\xc3\xa9") == " café"


WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature_c": {"type": "integer"},
        "unit": {"enum": ["c", "f"]},
        "summary": {"type": "string"},
    },
    "required": ["city", "temperature_c", "unit", "summary"],
    "additionalProperties": False,
}


def structured(said: str) -> dict[str, Any]:
    req = request(
        messages=[{"role": "user", "content": said}],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "w", "schema": WEATHER, "strict": True},
        },
    )
    return json.loads(fit_choice(Reply(f"You said {said}"), req, 0, IdFactory(1), TOKENS).text or "")


def test_a_structured_reply_takes_what_the_user_said():
    value = structured("It is 21 degrees in New York today, in f.")
    assert (value["city"], value["temperature_c"], value["unit"]) == ("New York", 21, "f")
    assert value["summary"] == "You said It is 21 degrees in New York today, in f."


def test_a_structured_reply_takes_no_statement_for_a_name():
    """Of a statement the argument filler may keep the whole ("Paris is sunny" for ``city``): only a
    name is taken for a free string, here the place the statement opens with (brain18: it was the reply's
    sentence, "You said Paris is sunny.", and a sentence is no city)."""
    assert structured("Paris is sunny.")["city"] == "Paris"
    assert structured("It is sunny.")["city"] == "unknown"  # nobody said one: brain18's choice


def test_a_mood_is_any_feeling_of_the_shared_list_said_of_oneself() -> None:
    # the feelings a "mood" property is filled with are ``wordlists.FEELINGS``, which a sentiment label
    # (``brain.tasks``) is read by too; a feeling with no sentiment of its own is still a mood
    assert {_feeling_said(f"I'm {feeling} today") for feeling in FEELINGS} == set(FEELINGS)
    assert {"okay", "ok", "curious"} <= OTHER_FEELINGS
    assert _feeling_said("I feel not okay") == "not okay"
    assert _feeling_said("I'm good at chess") is None
