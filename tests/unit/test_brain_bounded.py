"""The participant's work for one turn is bounded by design: a pasted 1 MB message is read no further
than its end (``utterance.acted_tail``), so the clauses the matcher examines, the phrase rewrites and
the calls it plans stay capped whatever the input's size. Counts, never timings."""

from __future__ import annotations

import re
from datetime import date
from unittest import mock

from mockengine.brain import intent, lexicon, utterance
from mockengine.brain.model import ForcedTool, ReplyRequest, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario

TOOLS = (
    ToolSpec(
        "add_todo",
        "Add an item to the user's to-do list.",
        {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "priority": {"type": "string", "enum": ["low", "high"]},
            },
            "required": ["title"],
        },
    ),
    ToolSpec(
        "play_music",
        "Play music.",
        {"type": "object", "properties": {"genre": {"type": "string", "enum": ["jazz", "rock"]}}},
    ),
)
CHATTER = "please add milk to my list and then play some jazz music by miles davis, "


def _long(size: int) -> str:
    return (CHATTER * (size // len(CHATTER) + 1))[:size]


def _reply(text: str, tools: tuple[ToolSpec, ...] = TOOLS) -> tuple[object, int, int]:
    """The reply, and how many times ``intent.best`` and ``lexicon.rewrite`` ran for it."""
    brain = ScriptedBrain(Scenario("bounded"), seed=0, today=date(2026, 3, 2))
    request = ReplyRequest("", tools, "auto", ("text",), (TurnView("i1", "user_text", text),), 0)
    with (
        mock.patch.object(intent, "best", wraps=intent.best) as best,
        mock.patch.object(lexicon, "rewrite", wraps=lexicon.rewrite) as rewrite,
    ):
        reply = brain.reply(request)
    return reply, best.call_count, rewrite.call_count


def test_acted_tail_keeps_short_text_and_starts_a_long_one_at_a_sentence() -> None:
    assert utterance.acted_tail("add milk to my list") == "add milk to my list"
    long = "blah " * 400 + "That is all. Please add milk to my list."
    tail = utterance.acted_tail(long)
    assert tail == "Please add milk to my list." or tail.startswith("That is all.")
    assert len(tail) <= utterance.ACTED_CHARS
    clauses = utterance.acted_tail(_long(50_000))
    assert len(clauses) <= utterance.ACTED_CHARS and clauses.startswith("please add milk")


def test_a_1_mb_message_costs_no_more_than_its_acted_tail() -> None:
    _reply(_long(1000))  # the tools' vocabularies are built once (cached): count the turns after
    _, best_small, rewrite_small = _reply(_long(10_000))
    reply, best_big, rewrite_big = _reply(_long(1 << 20))
    assert (best_big, rewrite_big) == (best_small, rewrite_small)
    assert best_big <= 2 * utterance.ACTED_CHARS // len("add milk") and rewrite_big < 200
    assert reply.text  # still a valid reply: the question for the missing argument or the calls


def test_a_forced_call_reads_only_the_end_of_a_1_mb_message() -> None:
    brain = ScriptedBrain(Scenario("bounded"), seed=0, today=date(2026, 3, 2))
    counts = []
    for size in (1000, 10_000, 1 << 20):
        view = (TurnView("i1", "user_text", _long(size)),)
        request = ReplyRequest("", TOOLS, ForcedTool("play_music"), ("text",), view, 0)
        with mock.patch.object(intent, "best", wraps=intent.best) as best:
            reply = brain.reply(request)
        counts.append(best.call_count)
        assert [c.name for c in reply.tool_calls] == ["play_music"]
    assert counts[1] == counts[2]


def test_the_request_at_the_end_of_a_long_text_is_acted_on() -> None:
    text = "I was telling you about my week, " * 30_000 + "anyway. Play some jazz music."
    reply, _, _ = _reply(text)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("play_music", '{"genre": "jazz"}')]


def test_talking_about_a_long_text_reads_only_its_end() -> None:
    reply, _, _ = _reply(
        "We walked along the river for a while. " * 30_000 + "What is the capital of France?", ()
    )
    assert "Paris" in (reply.text or "")


def _every_rule(text: str, keep_case: bool) -> str:
    """``lexicon.rewrite`` as it was: every phrase rule's substitution, in order, on every text."""
    rewritten = " " + text.replace("’", "'") + " "
    rewritten = rewritten if keep_case else rewritten.lower()
    for pattern, replacement, _ in lexicon._REWRITES:
        rewritten = pattern.sub(replacement, rewritten)
    return " ".join(rewritten.replace("  ", " ").split())


def test_skipping_the_rules_whose_words_are_absent_rewrites_exactly_as_every_rule_did() -> None:
    import random

    from mockengine.bench.tool_cases import DATA, load
    from mockengine.brain.wordlists import PHRASES

    _, cases, _ = load(DATA)
    texts = [case.say for case in cases] + ["Ça marche, pull up the ſet up", "CHECK IT OFF and Turn It Up"]
    phrase_words = {w for source, _ in PHRASES for w in re.findall(r"[a-z']+", source)}
    vocabulary = sorted({w for t in texts for w in t.split()} | phrase_words)
    rng = random.Random(5)
    texts += [" ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    for text in texts:
        for keep_case in (False, True):
            assert lexicon.rewrite(text, keep_case) == _every_rule(text, keep_case), text
    assert sum(1 for *_, needed in lexicon._REWRITES if needed.strip()) > 130  # nearly every rule is gated
