"""The scripted participant: decides every reply from the scenario, the request and a seed.

How a reply is decided, first applicable step wins:

1. ``tool_choice`` forces a tool → exactly one call to it and no message (HRP silent question request).
   A matching scenario rule that calls the same tool may supply the arguments.
2. ``tool_choice`` is ``"required"`` → a matching scenario rule's call, else the newest question's tool,
   else a declared tool the user named, else the first declared tool.
3. The instructions hold ``Say exactly: "…"`` → say that.
4. The first scenario rule whose conditions hold (a rule whose tool is not declared, or any call while
   ``tool_choice`` is ``"none"``, is passed over).
5. Built-in behaviour for the trigger (see ``situation``): acknowledge a function output (and never call
   again right after one), call a tool the user named or the newest question's tool, answer an image colour
   question, answer or echo what was heard, react to a context item, or greet.

Every choice among phrasings or values draws from ``random.Random(f"{seed}:{response_index}")``, so the
same request and seed always give the same ``Reply``.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass

from mockengine.brain import phrases
from mockengine.brain.arguments import build_arguments, planned_answer
from mockengine.brain.model import ForcedTool, Reply, ReplyRequest, ToolCall, ToolSpec
from mockengine.brain.scenario import Rule, Scenario
from mockengine.brain.situation import Situation, function_name_for, output_error, read_situation


@dataclass(frozen=True)
class _Turn:
    """One request with everything derived from it."""

    request: ReplyRequest
    situation: Situation
    tools: dict[str, ToolSpec]
    rng: random.Random


class ScriptedBrain:
    """A deterministic ``Brain`` driven by a ``Scenario``; ``seed`` defaults to the scenario's, else 0."""

    def __init__(self, scenario: Scenario, seed: int | None = None) -> None:
        self.scenario = scenario
        self.seed = seed if seed is not None else (scenario.seed if scenario.seed is not None else 0)

    def reply(self, request: ReplyRequest) -> Reply:
        turn = _Turn(
            request=request,
            situation=read_situation(request.history),
            tools={tool.name: tool for tool in request.tools},
            rng=random.Random(f"{self.seed}:{request.response_index}"),
        )
        choice = request.tool_choice
        if isinstance(choice, ForcedTool):
            return self._forced(turn, choice.name)
        if choice == "required" and turn.tools:
            return self._required(turn)
        said = phrases.directive(request.instructions)
        if said is not None:
            return Reply(text=said, rule="instructions.say_exactly")
        for rule in self.scenario.rules:
            if _rule_matches(rule, turn):
                return self._from_rule(turn, rule)
        return self._builtin(turn)

    def _forced(self, turn: _Turn, name: str) -> Reply:
        tool = turn.tools.get(name, ToolSpec(name=name, description="", parameters={}))
        for rule in self.scenario.rules:
            if rule.call is not None and rule.call.tool == name and _rule_matches(rule, turn):
                return Reply(text=None, tool_calls=(self._rule_call(turn, rule),), rule=f"scenario:{rule.id}")
        return Reply(text=None, tool_calls=(self._call(turn, tool),), rule="forced_tool")

    def _required(self, turn: _Turn) -> Reply:
        for rule in self.scenario.rules:
            if rule.call is not None and _rule_matches(rule, turn):
                return self._from_rule(turn, rule)
        question = turn.situation.question
        if question is not None and question.tool in turn.tools:
            return Reply(None, (self._call(turn, turn.tools[question.tool]),), rule="required.question")
        named = _named_tool(turn)
        if named is not None:
            return Reply(None, (self._call(turn, named),), rule="required.named")
        return Reply(None, (self._call(turn, turn.request.tools[0]),), rule="required.first")

    def _from_rule(self, turn: _Turn, rule: Rule) -> Reply:
        calls = (self._rule_call(turn, rule),) if rule.call is not None else ()
        return Reply(text=rule.say, tool_calls=calls, rule=f"scenario:{rule.id}")

    def _rule_call(self, turn: _Turn, rule: Rule) -> ToolCall:
        assert rule.call is not None
        if rule.call.arguments is not None:
            # Sent as written, so a scenario can also test how a client copes with odd arguments.
            arguments = json.dumps(rule.call.arguments, ensure_ascii=False)
            return ToolCall(name=rule.call.tool, arguments=arguments)
        tool = turn.tools.get(rule.call.tool, ToolSpec(name=rule.call.tool, description="", parameters={}))
        groups = _regex_groups(rule, turn.situation)
        return self._call(turn, tool, groups)

    def _call(self, turn: _Turn, tool: ToolSpec, overrides: dict[str, str] | None = None) -> ToolCall:
        arguments = build_arguments(tool, turn.situation, turn.rng, self.scenario.persona, overrides)
        return ToolCall(name=tool.name, arguments=arguments)

    def _builtin(self, turn: _Turn) -> Reply:
        situation, rng, persona = turn.situation, turn.rng, self.scenario.persona
        trigger = situation.trigger
        if trigger.kind == "function_output":
            return _acknowledge(turn)
        if turn.request.tool_choice != "none":
            call = self._builtin_call(turn)
            if call is not None:
                return call
        if situation.heard_is_current:
            if situation.asks_colour and situation.image is not None:
                colour = situation.image.dominant_colour
                return Reply(phrases.colour_answer(colour, rng), rule="builtin.image_colour")
            rule = "builtin.heard" if trigger.text else "builtin.not_heard"
            rule = "builtin.story" if phrases.is_story_request(trigger.text) else rule
            return Reply(phrases.reply_to_words(trigger.text, rng, persona), rule=rule)
        event = trigger.context.event if trigger.context is not None else None
        if event == "question" and situation.question is not None:
            answer = planned_answer(situation, rng)
            return Reply(phrases.verbal_answer(situation.question, answer), rule="builtin.question_aloud")
        if trigger.context is not None:
            text = phrases.context_reaction(trigger.context, persona, rng)
            return Reply(text, rule=f"builtin.context.{trigger.context.event}")
        greeting = phrases.pick(rng, ("Hi, I'm {persona}.", "Hello, I'm {persona}."), persona=persona)
        return Reply(greeting, rule="builtin.greeting")

    def _builtin_call(self, turn: _Turn) -> Reply | None:
        named = _named_tool(turn)
        if named is not None:
            return Reply(None, (self._call(turn, named),), rule="builtin.tool_named")
        context = turn.situation.trigger.context
        question = turn.situation.question
        is_question = context is not None and context.event == "question"
        if is_question and question is not None and question.tool in turn.tools:
            call = self._call(turn, turn.tools[question.tool])
            return Reply(None, (call,), rule="builtin.question_tool")
        return None


def _acknowledge(turn: _Turn) -> Reply:
    item = turn.situation.trigger.item
    error = output_error(turn.situation.trigger.text)
    name = function_name_for(turn.request.history, item.call_id if item else None)
    outcome = "accepted" if error is None else "refused"
    return Reply(phrases.acknowledge_output(error, name, turn.rng), rule=f"builtin.function_output.{outcome}")


def _rule_matches(rule: Rule, turn: _Turn) -> bool:
    """All of the rule's conditions hold; heard_* only look at a current user turn or chat line."""
    when, situation = rule.when, turn.situation
    if rule.call is not None and (rule.call.tool not in turn.tools or turn.request.tool_choice == "none"):
        return False
    heard = situation.trigger.text if situation.heard_is_current else None
    lowered = heard.lower() if heard is not None else ""
    if when.heard_contains and (heard is None or not any(p.lower() in lowered for p in when.heard_contains)):
        return False
    if when.heard_regex is not None and (heard is None or not when.heard_regex.search(heard)):
        return False
    context = situation.trigger.context
    if when.context_event is not None and (context is None or context.event != when.context_event):
        return False
    if when.tool_available is not None and when.tool_available not in turn.tools:
        return False
    return when.after_function_output is None or _output_matches(when.after_function_output, situation)


def _output_matches(expected: str, situation: Situation) -> bool:
    if situation.trigger.kind != "function_output":
        return False
    refused = output_error(situation.trigger.text) is not None
    return expected == "any" or (expected == "refused") == refused


def _regex_groups(rule: Rule, situation: Situation) -> dict[str, str]:
    if rule.when.heard_regex is None or not situation.heard_is_current:
        return {}
    match = rule.when.heard_regex.search(situation.trigger.text)
    return {k: v for k, v in match.groupdict().items() if v is not None} if match else {}


def _named_tool(turn: _Turn) -> ToolSpec | None:
    """A declared tool the current user turn names, as written ("send_chat") or spoken ("send chat")."""
    if not turn.situation.heard_is_current:
        return None
    heard = turn.situation.trigger.text
    for tool in turn.request.tools:
        spoken = re.escape(tool.name).replace("_", "[ _]")
        if re.search(rf"\b{spoken}\b", heard, re.IGNORECASE):
            return tool
    return None
