"""A response whose own instructions ask for a transcript of the user's latest turn gets the user's words,
as said: the OpenAI cookbook's out-of-band transcription ("Transcribing User Audio with a Separate
Realtime Request", Realtime_out_of_band_transcription.ipynb) sends, after each committed user turn,
``response.create`` with ``conversation: "none"``, ``output_modalities: ["text"]`` and a transcription
prompt as ``instructions``, and reads the text as the turn's transcript. The participant answered the
question instead ("You asked what is the capital of France. Paris is …")."""

from __future__ import annotations

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.phrases import asks_for_transcript

SESSION = "You are a calm, professional insurance claims intake voice agent."
# The cookbook's REALTIME_MODEL_TRANSCRIPTION_PROMPT, its opening (the rest lists rules of fidelity).
COOKBOOK = """
# Task: Verbatim Transcription of the Latest User Turn
You are a **strict transcription engine**. Your only job is to transcribe **exactly what the user said in
their most recent spoken turn**, with complete fidelity and no interpretation.
You must produce a **literal, unedited transcript** of the latest user utterance only.
## 6. Output Format Requirements
- Output only the transcript content.
"""


def item(text: str, index: int, kind: str) -> TurnView:
    return TurnView(f"item_{index}", kind, text)  # type: ignore[arg-type]


def reply_text(history: list[TurnView], own: str) -> str | None:
    request = ReplyRequest(SESSION, (), "auto", ("text",), tuple(history), 3, response_instructions=own)
    return ScriptedBrain(load_scenario(None), 7).reply(request).text


@pytest.mark.parametrize(
    "own",
    [
        COOKBOOK,
        "Transcribe the user's last message verbatim.",
        "Return a verbatim transcript of the latest user utterance.",
        "Repeat back, word for word, exactly what the caller just said.",
        "Produce a transcription of the user's most recent turn. Output nothing else.",
    ],
)
def test_a_transcript_asked_for_is_the_users_latest_words(own: str) -> None:
    assert asks_for_transcript(own)
    history = [
        item("Hi, I had an auto accident yesterday.", 0, "user_audio"),
        item("I'm sorry to hear that. May I have your policy number?", 1, "assistant"),
        item("Um, it's 56B5-12C0, I think.", 2, "user_audio"),
    ]
    assert reply_text(history, own) == "Um, it's 56B5-12C0, I think."
    # the cookbook's "only the latest user turn": input holds that one item
    assert reply_text(history[2:], own) == "Um, it's 56B5-12C0, I think."
    # a typed turn too, and the turn still being answered (the in-band reply not yet in the history)
    assert reply_text([item("What is the capital of France?", 0, "user_text")], own) == (
        "What is the capital of France?"
    )


@pytest.mark.parametrize(
    "own",
    [
        "",
        "Summarize the conversation so far in one sentence.",
        "The transcript may contain recognition errors; answer the user kindly.",
        "Tell the user their claim was submitted.",
        "Ask the user to repeat their policy number.",
        "You are a transcription company's support agent. Help the user with their order.",
    ],
)
def test_other_instructions_are_no_request_for_a_transcript(own: str) -> None:
    assert not asks_for_transcript(own)


def test_no_user_words_yet_is_answered_as_before() -> None:
    """Nothing to transcribe (no user item in the response's input): the instructions only shape the
    reply, as before (the cookbook asks for empty output; an empty message is no reply here)."""
    assert reply_text([], COOKBOOK) != ""


@pytest.mark.parametrize(
    "own",
    [
        "Don't transcribe what the user said; respond naturally.",
        "Do not repeat verbatim what the caller said, paraphrase it.",
        "Never transcribe the user's words back to them.",
        "You are an interview bot. We will transcribe the caller's answers later, so ask one at a time.",
        "Our system transcribes the user's speech automatically; answer their questions.",
    ],
)
def test_a_transcript_refused_or_described_is_no_request_for_one(own: str) -> None:
    """A prompt that forbids a transcript, or says one is made elsewhere, asks for a reply: the user's
    words were said back as the answer."""
    assert not asks_for_transcript(own)
    assert reply_text([item("What is the capital of France?", 0, "user_text")], own) != (
        "What is the capital of France?"
    )
