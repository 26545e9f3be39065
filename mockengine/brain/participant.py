"""The scripted participant: decides every reply from the scenario, the request and a seed.

How a reply is decided, first applicable step wins:

0. A response's own instructions ask for a call by the tool's name ("Call get_weather for Rome.",
   ``instructed_call``) → that call, their values over the user's words (not under ``"none"``, another
   tool forced, or while a function output is answered).
1. ``tool_choice`` forces a tool → exactly one call to it and no message (HRP silent question request).
   A matching scenario rule that calls the same tool may supply the arguments; for an app's own tool the
   user's words do, where they say something.
2. ``tool_choice`` is ``"required"`` → a matching scenario rule's call, else the open question's tool,
   else the tool the words ask for (``acting.plan``), else, once the calls for the newest words have
   their outputs, a tool not called since (one whose name ends the turn first: pydantic-ai's
   ``final_result``), else a declared tool the user named, else a tool that delivers the reply
   (``ends_the_turn``), else the least harmful tool (``_least_harmful``: one that only reads first).
3. The instructions hold ``Say exactly: "…"`` → say that.
4. The first scenario rule whose conditions hold (a rule whose tool is not declared, or any call while
   ``tool_choice`` is ``"none"``, is passed over).
5. Built-in behaviour (the HyperStudy participant every scenario inherits):
   - a function output: a refused call is retried once with a corrected value (the range or choices the
     host's error names), else what failed is said; an accepted one is acknowledged (the chat side, which
     acts only through tools, waits), or for an app's own tool grounded in one sentence from its fields;
   - while the study is paused: silence; once it resumes (``resumed`` the newest item) a question shown
     during the pause and still open is answered, as if it had just been shown;
   - a HyperStudy tool the user named; an app's own tools the words ask for (docs/tools.md: calls with a
     clause said while acting, or a question for a missing required argument); the open question through
     its tool (``answer_*``, ``submit_response`` or any
     single-value answer tool); on the chat side, words addressed to the participant through ``send_chat``;
   - words heard or typed: an answer (image colour, small facts) or an echo;
   - a question with no tool offered: the answer aloud;
   - a context item that asks for something (an introduction, a nudge): a short reaction; one that asks
     nothing (timer, revealed answer, experimenter note, pause): silence;
   - nothing at all yet: a greeting.

Silence is no message and no call, or a call to ``wait`` when that tool is declared (HRP
``modelEndpoint.tools``). Every choice among phrasings or values draws from
``random.Random(f"{seed}:{response_index}")``, so the same request and seed always give the same ``Reply``.

This module is the order of decisions; ``rules`` checks a scenario rule's conditions and fills its
placeholders, ``outputs`` reads refusals for steered retries, ``acting`` acts on an app's own tools, and
``phrases`` words the replies.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any

from mockengine.brain import (
    acting,
    addressed,
    ahead,
    appended_message,
    ellipsis,
    facts,
    forced,
    instructed_call,
    intent,
    languages,
    lexicon,
    narration,
    outputs,
    phrases,
    rules,
    saved_conversation,
    schema_values,
    tasks,
    utterance,
)
from mockengine.brain.arguments import build_arguments, check_schema, planned_answer
from mockengine.brain.context import QuestionContext
from mockengine.brain.markers import role_marker
from mockengine.brain.model import ForcedTool, Reply, ReplyRequest, ToolCall, ToolSpec, TurnView
from mockengine.brain.output_data import output_data
from mockengine.brain.scenario import Rule, Scenario
from mockengine.brain.situation import (
    ANSWER_TOOLS,
    Situation,
    function_name_for,
    newest_words,
    output_error,
    read_situation,
)
from mockengine.brain.turn import Turn

# The OpenAI Agents SDK names a handoff's tool "transfer_to_<agent>" (``Handoff.default_tool_name``).
HANDOFF_PREFIX = "transfer_to_"
# The last word of an agent's name that already says what it is ("weather agent", "billing desk").
_AGENT_NOUNS = frozenset(
    [
        "agent",
        "assistant",
        "bot",
        "desk",
        "team",
        "department",
        "specialist",
        "expert",
        "tutor",
        "coach",
        "advisor",
        "adviser",
        "concierge",
        "helper",
        "guide",
        "manager",
        "support",
        "service",
        "line",
        "operator",
    ]
)

WAIT_TOOL = "wait"
SEND_CHAT_TOOL = "send_chat"


def _in_formal_style(reply: Reply, turn: Turn) -> Reply:
    """A built-in reply of a ``formal`` persona without contractions, whichever part of the brain
    phrased it: the app tools' clauses and groundings ("I've ordered the pizza.") and study
    acknowledgements were said as written, though the persona's style promises none. (A rule's ``say``
    and an instructed text are the author's own words and stay as written.)"""
    if turn.persona.style != "formal" or not reply.text:
        return reply
    return dataclasses.replace(reply, text=phrases.styled(reply.text, "formal", turn.rng))


def _noting_undeclared(reply: Reply, scenario: Scenario, turn: Turn) -> Reply:
    """The built-in ``reply`` with, in its ``why`` (the trace's ``reply`` line), each scenario rule that
    would have fired but for its ``call`` tool not being declared: such a rule is skipped as documented,
    and a tool name misspelt in a scenario (``orderPizza`` for ``order_pizza``) left no trace of why the
    rule never fired."""
    skipped = [
        f"scenario rule {rule.id!r} skipped: its tool {rule.call.tool!r} is not declared"
        f" (declared: {', '.join(sorted(turn.tools)) or 'none'})"
        for rule in scenario.rules
        if rule.call is not None
        and rule.call.tool not in turn.tools
        and rules.rule_matches(dataclasses.replace(rule, call=None), turn)
    ]
    if not skipped:
        return reply
    return dataclasses.replace(reply, why="; ".join(([reply.why] if reply.why else []) + skipped))


def _asked_transcript(request: ReplyRequest) -> str | None:
    """The user's newest words, as they were said or typed, when the response's own instructions ask for
    a transcript of them (``phrases.asks_for_transcript``): an out-of-band ``response.create`` with
    ``conversation: "none"`` and a transcription prompt, as the OpenAI cookbook's "Transcribing User Audio
    with a Separate Realtime Request" sends after each turn, reads the response's text as the turn's
    transcript. None without such instructions or without user words in the response's input."""
    if not request.response_instructions or not phrases.asks_for_transcript(request.response_instructions):
        return None
    for view in reversed(request.history):
        if view.kind in ("user_text", "user_audio") and view.text.strip():
            return view.text.strip()
    return None


class ScriptedBrain:
    """A deterministic ``Brain`` driven by a ``Scenario``.

    ``seed`` defaults to the scenario's, else 0. ``role`` fixes the participant's role (e.g. from a
    ``?role=`` query parameter). The role is, first found: the instructions marker ``[mockengine role=B]``
    (read per reply, like the scenario marker), ``role``, the ``participants`` context item, or — when the
    scenario has personas by role — the one role no other participant holds.
    """

    def __init__(
        self, scenario: Scenario, seed: int | None = None, role: str | None = None, today: date | None = None
    ) -> None:
        self.scenario = scenario
        self.seed = seed if seed is not None else (scenario.seed if scenario.seed is not None else 0)
        self.role = role
        self.today = today  # relative dates ("tomorrow") count from this; None: the UTC date of each reply

    def reply(self, request: ReplyRequest) -> Reply:
        history = saved_conversation.unpacked(request.history)  # Pipecat's packed history, read back
        if history is not request.history:
            if saved_conversation.ends_with_a_reply(request.history):
                return Reply(saved_conversation.READY, rule="builtin.saved_conversation.ready")
            request = dataclasses.replace(request, history=history)
        request = appended_message.read_appended(request)  # Pipecat's appended messages, taken in
        situation = read_situation(request.history)
        role = self._role(request, situation)
        turn = Turn(
            request=request,
            situation=situation,
            tools={tool.name: tool for tool in request.tools},
            rng=random.Random(f"{self.seed}:{request.response_index}"),
            persona=self.scenario.persona_for(role),
            role=role,
        )
        choice = request.tool_choice
        ordered = self._instructed_call(turn)
        if ordered is not None:
            return ordered
        if isinstance(choice, ForcedTool):
            return self._forced(turn, choice.name)
        if choice == "required" and turn.tools:
            return self._required(turn)
        said = phrases.directive(request.instructions)
        if said is not None:
            return Reply(text=said, rule="instructions.say_exactly")
        said = (
            phrases.dictated(
                request.response_instructions, turn.rng, turn.persona.name, known=request.instructions
            )
            if request.response_instructions
            else None
        )
        if said is not None:
            return Reply(text=said, rule="instructions.dictated")
        transcript = _asked_transcript(request)
        if transcript is not None:
            return Reply(text=transcript, rule="instructions.transcript")
        task = tasks.answered(request)  # "Classify …", "Give this conversation a title.", "Summarize …"
        if task is not None:
            return task
        for rule in self.scenario.rules:
            if rules.rule_matches(rule, turn):
                return self._from_rule(turn, rule)
        instructed = self._instructed(turn)
        if instructed is not None:
            return instructed
        return _noting_undeclared(_in_formal_style(self._builtin(turn), turn), self.scenario, turn)

    def _instructed(self, turn: Turn) -> Reply | None:
        """A response whose own instructions say what to say ("Greet the user.", "Tell the user the call
        ends in a minute.", LiveKit's ``generate_reply(instructions=…)``), when nothing new was said since
        the last reply: what they say, as a model follows them, not the last words answered again.
        Instructions it cannot follow after an answered turn ("Do the thing we discussed") get an
        acknowledgement (``phrases.INSTRUCTIONS_ACKNOWLEDGED``; they said the last answer again); before
        anything was said, or when they only shape how a reply is said ("Be brief."), the reply is as
        before."""
        own = turn.request.response_instructions
        if not own or not _nothing_new_said(turn.situation, turn.request.history):
            return None
        said = phrases.instructed(
            own, turn.rng, turn.persona.name, known=turn.request.instructions, user_name=_user_name(turn)
        )
        if said is not None:
            return Reply(said, rule="instructions.response")
        if turn.situation.trigger.kind == "none" or phrases.only_shapes(own):
            return None
        return Reply(phrases.INSTRUCTIONS_ACKNOWLEDGED, rule="instructions.acknowledged")

    def _instructed_call(self, turn: Turn) -> Reply | None:
        """The call a response's own instructions ask for by the tool's name ("Call get_weather for
        Rome.", ``instructed_call``), their values over the user's words, the user's words (then the
        conversation, then the schema) filling the rest, as a model follows the response's instructions;
        the user's city was taken. None when they ask for no call, tools are disallowed, another tool is
        forced, or a function output is being answered (the call is made; a model speaks of its result)."""
        own = turn.request.response_instructions
        choice = turn.request.tool_choice
        if not own or not turn.may_call or turn.situation.trigger.kind == "function_output":
            return None
        found = instructed_call.named(own, list(turn.request.tools))
        if found is None or (isinstance(choice, ForcedTool) and choice.name != found[0].name):
            return None
        tool, sentence = found
        referent = acting.referent(turn.request.history)
        check_schema(tool)
        given = instructed_call.arguments(tool, sentence, referent, self._today())
        said = _words_for_a_demanded_call(turn)
        heard = (
            forced.from_words(tool, said, referent, self._today(), list(turn.request.tools)) if said else None
        )
        arguments = {**(heard.arguments if heard is not None else {}), **given}
        schema = tool.parameters or {}
        if any(name not in arguments for name in schema_values.required_of(schema)) or not acting.is_valid(
            arguments, schema
        ):
            arguments = {**json.loads(self._heard_call(turn, tool).arguments), **given}
        call = ToolCall(tool.name, json.dumps(arguments, ensure_ascii=False))
        spoken = choice == "auto" and turn.request.channel == "realtime"
        text = narration.clause(tool.name, arguments, turn.rng) if spoken else None
        return Reply(text, (call,), rule="instructions.call", why=f"{tool.name}: {sentence!r}")

    def _role(self, request: ReplyRequest, situation: Situation) -> str | None:
        role = role_marker(request.instructions) or self.role or situation.self_role
        if role is not None or not self.scenario.personas:
            return role
        taken = {other.role.lower() for other in situation.others if other.role}
        free = [name for name, _ in self.scenario.personas if name.lower() not in taken]
        return free[0] if taken and len(free) == 1 else None

    def _forced(self, turn: Turn, name: str) -> Reply:
        tool = turn.tools.get(name, ToolSpec(name=name, description="", parameters={}))
        error = outputs.refusal_of(turn, name)
        if error is not None:
            # The host forces the tool again after refusing it: steer by what the error allows.
            retry = self._corrected_call(turn, tool, error)
            if retry is not None:
                return Reply(None, (retry,), rule="forced_tool.retry")
        chosen = self._chosen_among_declared(turn, name)
        if chosen is not None:
            return chosen
        answer_tool = _answer_tool(turn)
        for rule in self.scenario.rules:
            if not rules.rule_matches(rule, turn):
                continue
            if rule.call is not None and rule.call.tool == name:
                return Reply(text=None, tool_calls=(self._rule_call(turn, rule),), rule=f"scenario:{rule.id}")
            if rule.answer and answer_tool is not None and answer_tool.name == name:
                return self._from_rule(turn, rule)
        if name in turn.tools and not turn.is_study_tool(name):
            return Reply(None, (self._heard_call(turn, tool),), rule="forced_tool.from_words")
        return Reply(text=None, tool_calls=(self._call(turn, tool),), rule="forced_tool")

    def _chosen_among_declared(self, turn: Turn, name: str) -> Reply | None:
        """Of two declared tools or more, the call to ``name`` the words make with the choice left open
        (``tool_choice`` ``auto``), alone and with no words beside it, as a forced reply comes: of "the
        time in Tokyo and the weather in Paris" forced to ``get_weather``, ``get_weather(Paris)``, not
        the first city said. None when that reply does not call ``name`` (the forced call is then built
        from the words as they stand). Chat and Responses do the same (``chat.completion._decided``)."""
        if len(turn.tools) < 2 or name not in turn.tools or turn.is_study_tool(name):
            return None
        wide = self.reply(dataclasses.replace(turn.request, tool_choice="auto"))
        kept = [call for call in wide.tool_calls if call.name == name]
        return Reply(None, (kept[0],), rule="forced_tool.from_words") if kept else None

    def _required(self, turn: Turn) -> Reply:
        for rule in self.scenario.rules:
            if rule.call is not None and rules.rule_matches(rule, turn):
                return self._from_rule(turn, rule)
        answer_tool = _answer_tool(turn)
        if answer_tool is not None and turn.situation.question_open:
            return Reply(None, (self._call(turn, answer_tool),), rule="required.question")
        acted = self._act(turn)
        if acted is not None and acted.tool_calls:
            return acted
        finishing = self._after_outputs(turn)
        if finishing is not None:
            return finishing
        named = _named_tool(turn)
        if named is not None:
            return Reply(None, (self._heard_call(turn, named),), rule="required.named")
        ending = _turn_ending_tool(turn)
        if ending is not None and turn.situation.heard_is_current:
            return self._ending_call(turn, ending)
        tool = _least_harmful(turn, self._today())
        if turn.is_study_tool(tool.name) and len(turn.request.tools) > len(turn.study_tool_names):
            # a HyperStudy-named ``respond {message}`` beside an app's tools, no question open: the reply
            return self._ending_call(turn, tool)
        return Reply(None, (self._heard_call(turn, tool),), rule="required.least_harmful")

    def _ending_call(self, turn: Turn, tool: ToolSpec) -> Reply:
        """``required`` when the words ask nothing of any tool: the tool that ends the turn (smolagents'
        ``final_answer``, pydantic-ai's ``final_result``), its free answer the reply that would be said
        without ``required``, as a model told "If no tool call is needed, use final_answer" answers
        "Hello, how are you?" (the first tool with made-up arguments was called instead)."""
        said = self.reply(dataclasses.replace(turn.request, tool_choice="auto")).text
        search = _search_tool(turn) if said is None or phrases.unanswered(said) else None
        if search is not None:  # words it cannot answer itself go where a model would look them up
            return Reply(None, (self._heard_call(turn, search),), rule="required.search")
        call = self._heard_call(turn, tool)
        if said:
            schema = tool.parameters or {}
            heard = json.loads(call.arguments)
            arguments = forced.reported(heard, schema, said)
            texts = [
                k for k, v in (schema.get("properties") or {}).items() if (v or {}).get("type") == "string"
            ]
            if arguments == heard and len(texts) == 1:  # ``reply_to_user {message}``: the reply, not the
                arguments = {**heard, texts[0]: said}  # user's own words echoed ("Hi there")
            if acting.is_valid(arguments, schema):
                call = ToolCall(tool.name, json.dumps(arguments, ensure_ascii=False))
        return Reply(None, (call,), rule="required.ends_turn")

    def _after_outputs(self, turn: Turn) -> Reply | None:
        """``required`` once the calls for the newest words have their outputs: a call to a declared tool
        not called since those words (one whose name says it ends the turn first, pydantic-ai's
        ``final_result``), its arguments from the words and the outputs, as a model reports what its
        tools found; None when the newest item is no output or every tool was called. Calling the same
        tool again instead never ends a framework's loop (pydantic-ai's tool output with other tools runs
        until its request limit)."""
        history = turn.request.history
        if not history or history[-1].kind != "function_call_output" or not turn.may_call:
            return None
        following = self._next_call(turn)  # parallel_tool_calls false: the words' next call first
        if following is not None:
            return following
        words = newest_words(history)
        since = history[words[0] + 1 :] if words is not None else history
        called = {item.name for item in since if item.kind == "function_call"}
        left = [t for t in turn.request.tools if t.name not in called and not turn.is_study_tool(t.name)]
        if not left:
            return None
        tool = next((t for t in left if ends_the_turn(t.name)), left[0])
        found = " ".join(item.text for item in since if item.kind == "function_call_output")
        said = f"{words[1]} {found}" if words is not None else found
        check_schema(tool)
        referent = acting.referent(history)
        filled = forced.from_words(tool, said, referent, self._today())
        if filled.missing:
            forced.from_conversation(tool, filled, history, referent, self._today())
        built = self._call(turn, tool)  # raises ArgumentsError when no value satisfies the schema
        merged = forced.completed(filled, json.loads(built.arguments), tool.parameters or {}, found)
        merged = forced.reported(merged, tool.parameters or {}, found)
        valid = acting.is_valid(merged, tool.parameters or {})
        call = ToolCall(tool.name, json.dumps(merged, ensure_ascii=False)) if valid else built
        return Reply(None, (call,), rule="required.after_outputs")

    def _from_rule(self, turn: Turn, rule: Rule) -> Reply:
        if rule.silent:
            return self._silence(turn, f"scenario:{rule.id}")
        if rule.answer:
            if rule.answer_rating is not None:
                tendency, spread = rule.answer_rating
                persona = dataclasses.replace(
                    turn.persona,
                    rating_tendency=turn.persona.rating_tendency if tendency is None else tendency,
                    rating_spread=turn.persona.rating_spread if spread is None else spread,
                )
                turn = dataclasses.replace(turn, persona=persona)
            reply = self._answer(turn)
            return dataclasses.replace(reply, rule=f"scenario:{rule.id}")
        calls = (self._rule_call(turn, rule),) if rule.call is not None else ()
        text = rules.fill(rule.say, rules.fields(turn, rule)) if rule.say is not None else None
        chat_only = turn.request.channel == "chat" and SEND_CHAT_TOOL in turn.tools and turn.may_call
        if text is not None and not calls and chat_only:
            # The text agent is heard only through its tools: a line to say goes into the chat.
            message = json.dumps({"message": text}, ensure_ascii=False)
            return Reply(None, (ToolCall(SEND_CHAT_TOOL, message),), rule=f"scenario:{rule.id}")
        return Reply(text=text, tool_calls=calls, rule=f"scenario:{rule.id}")

    def _rule_call(self, turn: Turn, rule: Rule) -> ToolCall:
        assert rule.call is not None
        if rule.call.arguments is not None:
            # Sent as written (placeholders filled), so a scenario can also test how a client copes with
            # odd arguments.
            arguments = rules.fill_object(rule.call.arguments, rules.fields(turn, rule))
            return ToolCall(name=rule.call.tool, arguments=json.dumps(arguments, ensure_ascii=False))
        tool = turn.tools.get(rule.call.tool, ToolSpec(name=rule.call.tool, description="", parameters={}))
        groups = rules.regex_groups(rule, turn.situation)
        if rule.call.tool not in turn.tools or turn.is_study_tool(tool.name):
            return self._call(turn, tool, groups)
        # An app's own tool: its arguments from the words, as for a call the host forces (the schema-built
        # values alone booked a table at "maybe later" for 11 when the words said Nobu, six); the regex's
        # named groups still win for the parameters they name.
        heard = self._heard_call(turn, tool)
        if not groups:
            return heard
        from_groups = json.loads(self._call(turn, tool, groups).arguments)
        merged = {**json.loads(heard.arguments), **{k: v for k, v in from_groups.items() if k in groups}}
        valid = acting.is_valid(merged, tool.parameters or {})
        return ToolCall(tool.name, json.dumps(merged, ensure_ascii=False)) if valid else heard

    def _call(
        self,
        turn: Turn,
        tool: ToolSpec,
        overrides: dict[str, str] | None = None,
        situation: Situation | None = None,
        rng: random.Random | None = None,
    ) -> ToolCall:
        arguments = build_arguments(
            tool, situation or turn.situation, rng or turn.rng, turn.persona, overrides
        )
        return ToolCall(name=tool.name, arguments=arguments)

    def _silence(self, turn: Turn, rule: str) -> Reply:
        if WAIT_TOOL in turn.tools and turn.may_call:
            return Reply(None, (ToolCall(WAIT_TOOL, "{}"),), rule=rule)
        return Reply(None, rule=rule)

    def _answer(self, turn: Turn) -> Reply:
        """The open question answered through its tool when one is declared, else aloud."""
        tool = _answer_tool(turn) if turn.may_call else None
        if tool is not None:
            return Reply(None, (self._call(turn, tool),), rule="builtin.question_tool")
        question = turn.situation.question
        if question is None:
            return self._silence(turn, "builtin.no_question")
        answer = planned_answer(turn.situation, turn.rng, turn.persona)
        return Reply(phrases.verbal_answer(question, answer), rule="builtin.question_aloud")

    def _builtin(self, turn: Turn) -> Reply:
        situation, rng, name = turn.situation, turn.rng, turn.persona.name
        trigger = situation.trigger
        if trigger.kind == "function_output":
            return self._after_output(turn)
        if situation.paused:
            return self._silence(turn, "builtin.paused")
        if _resumed_with_a_question(situation):
            return self._answer(turn)
        again = self._said_again(turn)
        if again is not None:
            return again
        if situation.heard_is_current and trigger.text and not _speaks_for_the_app(turn):
            asked = phrases.asked_to_say(utterance.acted_tail(trigger.text))
            if asked is not None:  # "Say 'hello world' twice.": the words, said as asked
                return Reply(asked, rule="builtin.said_as_asked")
        if situation.heard_is_current and trigger.text:
            greeting = phrases.greeting(trigger.text, rng, name)
            if greeting is not None:
                return Reply(greeting, rule="builtin.greeting_asked")
        # The picture is what is asked about, not a tool's value, unless a tool handles pictures.
        image = situation.image
        pictures_tool = turn.may_call and _takes_pictures(turn.request.tools)
        # "what colour is the picture?" gets the colour answer below
        described = situation.asks_about_image and not situation.asks_colour and not pictures_tool
        if situation.heard_is_current and described and image is not None:
            text = phrases.image_described(image.dominant_colour, image.brightness)
            return Reply(text, rule="builtin.image_described")
        if turn.may_call:
            call = self._builtin_call(turn)
            if call is not None:
                return call
        elif turn.request.tool_choice == "none" and situation.heard_is_current:
            declined = self._disallowed(turn)
            if declined is not None:
                return declined
        if situation.heard_is_current:
            if situation.asks_colour and situation.image is not None:
                colour = situation.image.dominant_colour
                return Reply(phrases.colour_answer(colour, rng), rule="builtin.image_colour")
            if situation.asks_brightness and situation.image is not None:
                image = situation.image
                text = phrases.brightness_answer(image.brightness, image.dominant_colour)
                return Reply(text, rule="builtin.image_brightness")
            shown = trigger.item.images[-1] if trigger.item is not None and trigger.item.images else None
            if not trigger.text.strip() and shown is not None:  # an image sent alone is no silence
                text = phrases.image_shown(shown.dominant_colour, shown.brightness)
                return Reply(text, rule="builtin.image_shown")
            rule = "builtin.heard" if trigger.text else "builtin.not_heard"
            heard = utterance.acted_tail(trigger.text)  # a long text is answered by its end
            rule = "builtin.story" if phrases.is_story_request(heard) else rule
            rule = "builtin.composed" if rule == "builtin.heard" and phrases.makes_content(heard) else rule
            first = _assistant_words_before(turn.request.history, trigger.item) is None
            greeted = first and phrases.greets(heard)
            asked = phrases.greeting_in(turn.request.instructions, rng, name) if greeted else None
            if asked is not None:
                # "hi" before the assistant said anything: the greeting the instructions ask for
                return Reply(asked, rule="instructions.greeting")
            told = phrases.if_asked(heard, turn.request.instructions)
            if told is not None:  # "If asked about the hours, tell them we're open 9 to 5"
                return Reply(told, rule="instructions.if_asked")
            language = languages.reply_language(turn.request.instructions)
            if language is not None and rule in ("builtin.heard", "builtin.not_heard"):
                # "Always answer in French.": our stock reply in it, never the English one (languages.py)
                said = languages.stock_reply(language, heard, name, rng, phrases.is_question(heard))
                return Reply(said, rule=f"{rule}.{language}")
            covered = acting.topics(list(turn.request.tools))
            earlier = _user_words_before(turn.request.history, trigger.item)
            known = _told_by_the_app(turn.request.instructions, turn.request.history)
            text = phrases.reply_to_words(heard, rng, name, covered, earlier, known)
            why = addressed.gate(heard).why if turn.request.tools and heard else ""
            return Reply(phrases.styled(text, turn.persona.style, rng), rule=rule, why=why)
        question = trigger.context.as_question() if trigger.context is not None else None
        if question is not None and situation.question is not None:
            return self._answer(turn)
        if trigger.context is not None:
            if not phrases.asks_something(trigger.context):
                return self._silence(turn, f"builtin.context.{trigger.context.event}")
            text = phrases.context_reaction(trigger.context, name, rng)
            return Reply(
                phrases.styled(text, turn.persona.style, rng), rule=f"builtin.context.{trigger.context.event}"
            )
        asked = phrases.greeting_in(turn.request.instructions, rng, name)
        if asked is not None:
            return Reply(asked, rule="instructions.greeting")
        language = languages.reply_language(turn.request.instructions)
        if language is not None:
            return Reply(languages.greeting(language, name), rule=f"builtin.greeting.{language}")
        greeting = phrases.pick(rng, ("Hi, I'm {persona}.", "Hello, I'm {persona}."), persona=name)
        return Reply(greeting, rule="builtin.greeting")

    def _said_again(self, turn: Turn) -> Reply | None:
        """The last answer again, when the newest words ask to hear it ("say that again", "can you repeat
        that?"): a model repeats what it said; it does not take the request for content ("You said say
        that again."). A bare "repeat …" is the app's when a declared tool has a repeat mode ("repeat
        it" to a player); HyperStudy's text agent speaks through its tools, so it is left to them."""
        situation = turn.situation
        if not situation.heard_is_current or SEND_CHAT_TOOL in turn.tools:
            return None
        asked = phrases.asks_to_repeat(utterance.acted_tail(situation.trigger.text))
        if asked is None or asked == "repeat" and any(_repeats(tool) for tool in turn.request.tools):
            return None
        previous = _assistant_words_before(turn.request.history, situation.trigger.item)
        text = phrases.repeated(previous, turn.rng)
        return Reply(phrases.styled(text, turn.persona.style, turn.rng), rule="builtin.repeat")

    def _builtin_call(self, turn: Turn) -> Reply | None:
        named = _named_tool(turn)
        if named is not None and turn.is_study_tool(named.name):
            return Reply(None, (self._call(turn, named),), rule="builtin.tool_named")
        acted = self._act(turn)
        if acted is not None:
            return acted
        situation = turn.situation
        context = situation.trigger.context
        asked = context is not None and context.as_question() is not None
        answer_tool = _answer_tool(turn)
        if asked and answer_tool is not None and situation.question_open:
            return Reply(None, (self._call(turn, answer_tool),), rule="builtin.question_tool")
        if turn.request.channel == "chat":
            return self._chat_action(turn)
        return None

    def _chat_action(self, turn: Turn) -> Reply | None:
        """The text agent acts only through tools: chat back when addressed, otherwise wait."""
        situation = turn.situation
        addressed = situation.heard_is_current or (
            situation.trigger.context is not None and phrases.asks_something(situation.trigger.context)
        )
        if addressed and SEND_CHAT_TOOL in turn.tools:
            call = self._call(turn, turn.tools[SEND_CHAT_TOOL])
            return Reply(None, (call,), rule="builtin.chat.send_chat")
        if not addressed and WAIT_TOOL in turn.tools:
            return Reply(None, (ToolCall(WAIT_TOOL, "{}"),), rule="builtin.chat.wait")
        return None

    def _after_output(self, turn: Turn) -> Reply:
        situation = turn.situation
        item = situation.trigger.item
        error = output_error(situation.trigger.text)
        history = turn.request.history
        # a handoff's output ({"assistant": "Billing"}) is no result to speak of ("Done. Refund issued…")
        batch = [
            (call, output)
            for call, output in outputs.answered_together(history)
            if _handed_to(call, history, turn.tools) is None
        ]
        if len(batch) > 1 and not any(turn.is_study_tool(call.name or "") for call, _ in batch):
            # One call a response: the outputs so far are spoken of once the last call the words asked
            # for is answered ("weather and time in Paris and Tokyo" makes four).
            after = self._next_call(turn)
            if after is not None:
                return after
            # Parallel calls answered together: one sentence for each, as a model speaks of all of them.
            return Reply(outputs.said_of_all(batch), rule="builtin.function_output.grounding")
        name = function_name_for(history, item.call_id if item else None)
        call = next(
            (c for c in history if c.kind == "function_call" and item and c.call_id == item.call_id), None
        )
        if error is None and call is not None and _handed_to(call, history, turn.tools) is not None:
            handed = self._after_handoff(turn)
            if handed is not None:
                return handed
        if error is None:
            after = self._next_call(turn)
            if after is not None:
                return after
            if turn.request.channel == "chat" and WAIT_TOOL in turn.tools and turn.may_call:
                return Reply(None, (ToolCall(WAIT_TOOL, "{}"),), rule="builtin.function_output.accepted")
            if name is not None and not turn.is_study_tool(name):
                # The call this output answers (by call_id): another call of the same tool may be newer.
                arguments = batch[-1][0].text if batch else outputs.last_arguments(history, name)
                text = acting.grounding(situation.trigger.text, name, arguments)
                text = self._said_for_when(turn, text, call, name, arguments)
                return Reply(text, rule="builtin.function_output.grounding")
            text = phrases.acknowledge_output(None, name, turn.rng)
            return Reply(text, rule="builtin.function_output.accepted")
        tool = turn.tools.get(name or "")
        if name is not None and not turn.is_study_tool(name) and not outputs.names_a_fix(error):
            # An app's own tool: say plainly what failed; a retry without a hint would be blind. What
            # else the words asked for, one call a response, does not depend on it: it goes on.
            after = self._next_call(turn)
            if after is not None:
                return after
            arguments = call.text if call is not None else outputs.last_arguments(history, name)
            return Reply(outputs.refused(name, arguments, error), rule="builtin.function_output.failed")
        if tool is not None and turn.may_call and outputs.refusals_in_a_row(history, tool.name) < 2:
            retry = self._corrected_call(turn, tool, error)
            if retry is not None:
                return Reply(None, (retry,), rule="builtin.function_output.retry")
        return Reply(
            phrases.acknowledge_output(error, name, turn.rng), rule="builtin.function_output.refused"
        )

    def _said_for_when(
        self, turn: Turn, text: str, call: TurnView | None, name: str, arguments: str | None
    ) -> str:
        """A forecast's answer said with the time to come the user asked it for ("The forecast in Paris
        tomorrow is sunny.", "This week in Paris: light rain on Tuesday."), as a model says it; it was
        said without the day. Only of a tool that answers a time to come (``ahead``): a present-only
        lookup's answer is not tomorrow's, nor an action's confirmation (create_calendar_event {start}:
        it was "Tomorrow: i've created the calendar event: …")."""
        tool = turn.tools.get(name)
        asked = _user_words_before(turn.request.history, call)
        if tool is None or not asked:
            return text
        if not (ahead.reaches_ahead(tool) or (ahead.takes_a_day(tool) and intent.is_lookup(tool))):
            return text
        when = ahead.said(asked[-1], self._today())
        return narration.with_when(text, when.phrase, arguments) if when is not None else text

    def _after_handoff(self, turn: Turn) -> Reply | None:
        """The agent an OpenAI Agents SDK handoff (``transfer_to_<agent>``) gave the conversation to takes
        up the user's newest words with its own tools, as a model does: "I want a refund for order 4471"
        → ``transfer_to_Billing``, then Billing's ``refund {order_id: 4471}`` (or its question for a
        missing argument), else a reply to the words. It was "Done.". The words that asked for the
        transfer itself ("transfer me to the billing agent, …") are no request to the new agent: what
        is left is acted on, and nothing left gets a greeting. No transfer is planned again (no
        ping-pong between agents); None when anything but transfers was done since the words."""
        history = turn.request.history
        words = newest_words(history)
        if words is None or not turn.may_call:
            return None
        said, heard = words
        since = [
            _handed_to(item, history, turn.tools)
            for item in history[said + 1 :]
            if item.kind == "function_call"
        ]
        if any(agent is None for agent in since):
            return None
        agent = (since[-1] or "") if since else ""
        heard = utterance.without_transfer_request(heard, agent)
        if not heard.strip(" ,.!?;:"):
            # The words only asked for the transfer ("transfer me to the weather agent"): the new agent
            # takes the conversation, as a model does, and reads no request into them (no city "Transfer").
            greeting = phrases.pick(turn.rng, phrases.HANDED_OVER, agent=_agent_called(agent))
            return Reply(greeting, rule="builtin.after_handoff.greeting")
        tools = [tool for tool in turn.request.tools if not tool.name.startswith(HANDOFF_PREFIX)]
        referent = acting.referent(history[:said])
        plan = acting.plan(heard, tools, referent, self._today()) if tools else None
        if plan is None:
            covered = acting.topics(tools)
            earlier = _user_words_before(history, history[said])
            words_reply = phrases.reply_to_words(heard, turn.rng, turn.persona.name, covered, earlier)
            if phrases.unanswered(words_reply):
                # "I want a refund" to the billing agent: taken up, not echoed ("You said I want a refund.
                # Tell me more.")
                taken_up = phrases.pick(turn.rng, phrases.TAKEN_UP, agent=_agent_called(agent))
                return Reply(taken_up, rule="builtin.after_handoff.taken_up")
            return Reply(
                phrases.styled(words_reply, turn.persona.style, turn.rng), rule="builtin.after_handoff"
            )
        if not plan.actions:
            return Reply(plan.question or plan.said, rule="intent.ask.after_handoff", why=plan.why)
        calls = tuple(action.call for action in plan.actions)
        calls = calls if turn.request.parallel_tool_calls else calls[:1]
        text: str | None = None
        if turn.request.channel == "realtime":
            text = acting.clause(plan.actions, turn.rng)
        if plan.question is not None:
            text = f"{text} {plan.question}" if text else plan.question
        return Reply(text, calls, rule="intent.call.after_handoff", why=plan.why)

    def _next_call(self, turn: Turn) -> Reply | None:
        """One call a response: the next one the user's words asked for, once the last one's output is in."""
        if turn.request.parallel_tool_calls or not turn.may_call:
            return None
        history = turn.request.history
        words = newest_words(history)
        if words is None:
            return None
        said, heard = words
        found = ellipsis.conversation_plan(heard, history[:said], list(turn.request.tools), self._today())
        action = acting.next_action(found, history[said + 1 :])
        if action is None:
            return None
        return Reply(None, (action.call,), rule="intent.call.next", why=action.why)

    def _act(self, turn: Turn) -> Reply | None:
        """The app's own tools the user's words ask for (``acting.plan``): calls with a clause said while
        acting (no clause on the chat side), or a question for a missing required argument."""
        if not turn.may_call or not turn.situation.heard_is_current:
            return None
        heard = turn.situation.trigger.text
        history = turn.request.history
        words = newest_words(history)
        before = history[: words[0]] if words is not None else history
        plan = ellipsis.conversation_plan(heard, before, list(turn.request.tools), self._today())
        if plan is None:
            return None
        if not plan.actions:  # a question for a missing argument, or "Okay" to "never mind"
            rule = "intent.ask" if plan.question is not None else "intent.declined"
            return Reply(plan.question or plan.said, rule=rule, why=plan.why)
        calls = tuple(action.call for action in plan.actions)
        if not turn.request.parallel_tool_calls:
            calls = calls[:1]  # the others follow the outputs (_next_call)
        spoken = turn.request.channel == "realtime"
        # a farewell said while the call that ends the conversation goes out ("Goodbye, talk to you soon.")
        text = (plan.said or acting.clause(plan.actions, turn.rng)) if spoken else None
        if plan.note is not None:
            # what no call does is said on both sides: in Chat Completions a model's content beside its
            # tool calls carries it, as nothing else in the response can
            text = f"{text} {plan.note}" if text else plan.note
        if plan.question is not None:
            text = f"{text} {plan.question}" if text else plan.question
        return Reply(text, calls, rule="intent.call", why=plan.why)

    def _disallowed(self, turn: Turn) -> Reply | None:
        """Words that ask for an app's tool while ``tool_choice`` is ``"none"``: a model cannot call it
        and says so ("Sorry, I can't check the weather in Paris right now.", ``narration.disallowed``);
        it answered "I don't know that one, sorry." and echoed a request. A farewell said while the call
        that ends the conversation would go out is said. None when the words ask for no app tool."""
        history = turn.request.history
        words = newest_words(history)
        before = history[: words[0]] if words is not None else history
        tools = list(turn.request.tools)
        plan = ellipsis.conversation_plan(turn.situation.trigger.text, before, tools, self._today())
        if plan is None:
            return None
        if plan.said is not None:
            return Reply(plan.said, rule="builtin.tools_disallowed.said", why=plan.why)
        if plan.actions:
            name, arguments = plan.actions[0].call.name, plan.actions[0].arguments
        elif plan.pending is not None:
            name, arguments = plan.pending[0].name, plan.pending[1]
        else:
            return None
        if turn.is_study_tool(name):
            return None
        return Reply(narration.disallowed(name, arguments), rule="builtin.tools_disallowed", why=plan.why)

    def _heard_call(self, turn: Turn, tool: ToolSpec) -> ToolCall:
        """A call the host demands (``tool_choice``): arguments from the words where they say something,
        schema-built values for required ones they do not."""
        said = _words_for_a_demanded_call(turn)
        if turn.is_study_tool(tool.name) or said is None:
            return self._call(turn, tool)
        check_schema(tool)
        referent = acting.referent(turn.request.history)
        filled = forced.from_words(tool, said, referent, self._today(), list(turn.request.tools))
        if filled.missing:  # "what's the weather in Paris?" earlier: a forced get_time takes Paris
            forced.from_conversation(tool, filled, turn.request.history, referent, self._today())
        if not filled.missing and acting.is_valid(filled.arguments, tool.parameters or {}):
            return ToolCall(tool.name, json.dumps(filled.arguments, ensure_ascii=False))
        built = self._call(turn, tool)  # raises ArgumentsError when no value satisfies the schema
        merged = forced.completed(filled, json.loads(built.arguments), tool.parameters or {}, said)
        valid = acting.is_valid(merged, tool.parameters or {})
        return ToolCall(tool.name, json.dumps(merged, ensure_ascii=False)) if valid else built

    def _today(self) -> date:
        return self.today or datetime.now(UTC).date()

    def _corrected_call(self, turn: Turn, tool: ToolSpec, error: str) -> ToolCall | None:
        """A second try after a refusal: steered by the range or choices the error names, else a fresh
        draw; None when it would repeat the refused arguments."""
        situation = outputs.corrected(turn.situation, error)
        rng = random.Random(f"{self.seed}:{turn.request.response_index}:retry")
        call = self._call(turn, tool, situation=situation, rng=rng)
        refused = outputs.last_arguments(turn.request.history, tool.name)
        return None if refused is not None and outputs.same_json(refused, call.arguments) else call


def _answer_tool(turn: Turn) -> ToolSpec | None:
    """The declared tool that answers the question on screen: the one it names, ``submit_response``, or
    another answer tool."""
    question = turn.situation.question
    if question is not None and question.tool in turn.tools:
        return turn.tools[question.tool]
    for name in ("submit_response", "respond", "answer"):
        if name in turn.tools:
            return turn.tools[name]
    if question is not None and question.tool is None:
        wanted = _voice_tool_for(question)
        if wanted in turn.tools:
            return turn.tools[wanted]
    return None


def _voice_tool_for(question: QuestionContext) -> str | None:
    kind = question.component_type
    if kind == "multiplechoice":
        return "answer_choices" if question.allow_multiple else "answer_choice"
    return {
        "likertscale": "answer_scale",
        "vasrating": "answer_scale",
        "ranking": "answer_ranking",
        "textinput": "answer_text",
        "audiorecording": "answer_text",
        "rapidrate": "answer_dimensions",
    }.get(kind or "")


_SEARCH_WORDS = frozenset(
    ("search", "lookup", "look", "query", "find", "wiki", "wikipedia", "browse", "google")
)
_QUERY_PARAMETERS = frozenset(("query", "q", "question", "search", "search_query", "keywords", "terms"))


def _search_tool(turn: Turn) -> ToolSpec | None:
    """The first declared tool that looks words up: its name says search/look up/find/query and it takes
    a query, question or keywords string (smolagents' ``web_search``, ``wikipedia_search``)."""
    for tool in turn.request.tools:
        properties = (tool.parameters or {}).get("properties") or {}
        words = set(lexicon.identifier_words(tool.name).split())
        if (
            _SEARCH_WORDS & words
            and _QUERY_PARAMETERS & set(properties)
            and not turn.is_study_tool(tool.name)
        ):
            return tool
    return None


def _turn_ending_tool(turn: Turn) -> ToolSpec | None:
    """The first declared tool whose name says calling it ends the turn (``_ENDS_THE_TURN``), not a
    study tool (those answer the question on screen, ``_answer_tool``)."""
    for tool in turn.request.tools:
        if ends_the_turn(tool.name) and not turn.is_study_tool(tool.name):
            return tool
    return None


def ends_the_turn(name: str) -> bool:
    """Whether a tool named ``name`` delivers the reply itself, so calling it ends the turn: its name
    is the reply (``final_answer``, pydantic-ai's ``final_result``, ``submit_answer``, ``respond``,
    ``reply_to_user``, ``finish``), its words only a reply noun (``_REPLY_NOUNS``), a verb of handing it
    over and the user. A name whose verb acts on some other thing (``submit_ticket``, ``get_result``,
    ``check_answer``) changes or reads the world: calling it is no reply (a greeting under ``required``
    filed a ticket with made-up arguments)."""
    words = lexicon.identifier_words(name).split()
    if not words:
        return False
    nouns = [w for w in words if w in _REPLY_NOUNS]
    rest = [w for w in words if w not in _REPLY_NOUNS]
    if nouns:
        return set(rest) <= _HANDING_OVER
    return words[0] in _REPLY_VERBS and set(words[1:]) <= _TO_THE_USER


def _least_harmful(turn: Turn, today: date) -> ToolSpec:
    """The tool to call under ``required`` when no call was planned and none delivers the reply: the
    tool the words ask for though they leave an argument out ("Submit a ticket saying …"); else, since
    some tool must be called, the one whose call does the least (``_harm``): a ``respond`` that only
    says the reply, then one that only reads (a lookup, a search), then one that files, books or sends
    something with arguments the words never gave, and last one that destroys, ends or pays
    (``delete_account``, ``drop_table``, ``end_call``, ``issue_refund``); among those alike, the one
    missing the fewest required arguments from the words, then the order declared. HyperStudy's own
    tools alone: the first. The real service's choice here is unknown (docs/tools.md, "Order of
    decisions"); this is the least harmful."""
    tools = [t for t in turn.request.tools if not turn.is_study_tool(t.name)]
    if not tools:  # HyperStudy's own tools alone: its first, as its study runner expects
        return turn.request.tools[0]
    heard = turn.situation.trigger.text if turn.situation.heard_is_current else ""
    asked = intent.best(utterance.acted_tail(heard), tools) if heard else None
    if asked is not None:  # the tool the words ask for, its arguments not all given ("Submit a ticket")
        return asked.tool
    referent = acting.referent(turn.request.history)
    # A HyperStudy-named ``respond``/``answer`` beside an app's tools only says the reply (no question is
    # open here: that one was answered before): calling it harms nothing.
    replies = [t for t in turn.request.tools if turn.is_study_tool(t.name) and ends_the_turn(t.name)]

    def harm(indexed: tuple[int, ToolSpec]) -> tuple[int, int, int, int]:
        index, tool = indexed
        if tool in replies:
            return (0, 0, 0, index)
        missing = 0
        if heard:
            filled = forced.from_words(tool, heard, referent, today)
            missing = len(filled.missing) + len(_garbled(tool, filled.arguments))
        # a tool whose description says when to call it in the words said ("Use when the user is angry")
        # before one whose required argument would be the words misread ("order_id": "ridiculous"); never
        # one that pays, destroys or ends the call ("I said goodbye to her" is no goodbye to end_call,
        # "My card was declined" no payment), nor one whose own arguments the words do not give
        harm = _harm(tool)
        described = 0 if heard and harm < 3 and not missing and _described_by(tool, heard) else 1
        if heard and _hands_over(tool) and _ASKS_FOR_A_PERSON.search(heard):
            described = 0  # "I want to talk to a human" of ``escalate``: the person asked for
        return (described, harm, missing, index)

    return min(enumerate([*replies, *tools]), key=harm)[1]


# Words of a description that say who calls or how, never what for ("Use when the user says …").
_DESCRIBING = frozenset(
    lexicon.concept(w)
    for w in (
        "user",
        "users",
        "customer",
        "caller",
        "client",
        "person",
        "they",
        "say",
        "says",
        "said",
        "want",
        "wants",
        "ask",
        "asks",
        "use",
        "call",
        "called",
        "tool",
        "function",
    )  # fmt: skip
)


def _described_by(tool: ToolSpec, heard: str) -> bool:
    """``tool``'s description names something the words say, beyond the tool's own name and the words that
    only say who calls it: "Use when the user is angry or frustrated" of "I'm so angry!", "End the call
    when the user says goodbye" of "Goodbye!"."""
    name = {t.concept for t in lexicon.tokens(lexicon.identifier_words(tool.name))}
    described = {t.concept for t in lexicon.tokens(tool.description or "") if not t.is_stop}
    said = {t.concept for t in lexicon.tokens(heard) if not t.is_stop}
    return bool(said & (described - name - _DESCRIBING))


def _garbled(tool: ToolSpec, arguments: dict[str, Any]) -> list[str]:
    """The arguments of a demanded call that are the words misread: an identifier (``order_id``,
    ``ticket_number``) with no digit in it ("Goodbye")."""
    properties = schema_values.properties_of(tool.parameters or {})
    return [
        name
        for name, value in arguments.items()
        if isinstance(value, str)
        and not re.search(r"\d", value)
        and lexicon.identifier_words(name).split()[-1:] in (["id"], ["number"], ["num"], ["no"])
        and isinstance(properties.get(name), dict)
        and "enum" not in properties[name]
    ]


def _harm(tool: ToolSpec) -> int:
    """How much calling ``tool`` with made-up arguments does: 1 reads (``lookup_order``, ``search_web``),
    2 changes or runs something or hands the user over (``send_email``, ``run_query``, ``escalate``), 3
    destroys, ends or moves money (``delete_account``, ``drop_table``, ``cancel_order``, ``end_call``,
    ``issue_refund``), by the first word of its name or of its description."""
    name = lexicon.identifier_words(tool.name).split()
    described = [t.lower for t in lexicon.tokens(tool.description or "")[:1]]
    verbs = set(name[:1] + described)
    if verbs & _DESTRUCTIVE or _MONEY_OUT & set(name):
        return 3
    if verbs & _RUNS or _hands_over(tool) or not intent.is_lookup(tool):
        return 2
    return 1


# Verbs a tool's name or description starts with when its call cannot be taken back: it destroys, ends
# the conversation or cancels (``_harm``).
_DESTRUCTIVE_VERBS = (
    "delete remove drop destroy erase wipe purge truncate kill terminate revoke cancel end hang "
    "disconnect close ban deactivate unsubscribe refund charge pay withdraw shutdown reboot reset overwrite"
)
_DESTRUCTIVE = frozenset(_DESTRUCTIVE_VERBS.split())
# Words of a tool's name that move money wherever they stand (``issue_refund``, ``make_payment``).
_MONEY_OUT = frozenset(("refund", "payment", "charge", "withdrawal", "payout"))
# Verbs whose call runs whatever its arguments say (``run_query``, ``execute_command``): never a lookup.
_RUNS = frozenset(("run", "execute", "exec", "eval", "evaluate", "issue", "invoke", "trigger", "spawn"))
# Verbs of a tool that hands the conversation to a person or another agent (``escalate``,
# ``transfer_to_agent``): the user is put through rather than answered, never a mere lookup ("Hello!"
# under ``required`` was escalated to a human).
_HANDS_OVER = frozenset(("escalate", "transfer", "handoff", "forward"))
# Words that ask for a person rather than an answer ("can I speak to a human?", "get me a manager"): a
# verb of asking or being put through before the person, so one named in passing ("My manager told me to
# check order A12345", "my agent booked this") hands no one over.
_ASKS_FOR_A_PERSON = re.compile(
    r"\b(?:talk|speak|chat|connect|transfer|put|get|give|want|need|like|escalate|reach|see)\b[^.?!]{0,30}?"
    r"\b(?:human|real\s+person|(?:live\s+)?agent|representative|rep|operator|manager|supervisor|someone)\b",
    re.IGNORECASE,
)


def _hands_over(tool: ToolSpec) -> bool:
    """``tool`` hands the conversation over (``escalate``, ``transfer_to_human``), by its first word."""
    words = lexicon.identifier_words(tool.name).split()
    return bool(words) and words[0] in _HANDS_OVER


def _named_tool(turn: Turn) -> ToolSpec | None:
    """A declared tool the current user turn names, as written ("send_chat") or spoken ("send chat")."""
    if not turn.situation.heard_is_current:
        return None
    heard = utterance.acted_tail(turn.situation.trigger.text)
    for tool in turn.request.tools:
        spoken = re.escape(tool.name).replace("_", "[ _]")
        if re.search(rf"\b{spoken}\b", heard, re.IGNORECASE):
            return tool
    return None


__all__ = ["ANSWER_TOOLS", "ScriptedBrain"]


def _handed_to(
    call: TurnView, history: tuple[TurnView, ...], tools: Mapping[str, ToolSpec] | None = None
) -> str | None:
    """The words of the agent a handoff ``call`` gave the conversation to, or None when it is no handoff:
    the OpenAI Agents SDKs name a handoff's tool ``transfer_to_<agent>`` unless the app overrides it,
    describe it "Handoff to the <agent> agent to handle the request. …", and answer it with
    ``{"assistant": "<agent name>"}`` whatever its name (``escalate_to_billing``). A ``transfer_to_<x>``
    still declared (``tools``) with a description of the app's own ("Transfer the caller to the billing
    department.") answered otherwise is the app's own transfer (a phone call's), no new agent: it is said
    done (it was the new agent's greeting, "Hi, you're through to the billing agent.")."""
    name = call.name or ""
    output = next(
        (i.text for i in history if i.kind == "function_call_output" and i.call_id == call.call_id), None
    )
    data = output_data(output) if output is not None else None
    if isinstance(data, dict) and list(data) == ["assistant"] and isinstance(data["assistant"], str):
        return lexicon.identifier_words(data["assistant"])
    if not name.startswith(HANDOFF_PREFIX):
        return None
    declared = (tools or {}).get(name)
    if declared is not None and not _SDK_HANDOFF.match(declared.description or ""):
        return None
    return lexicon.identifier_words(name[len(HANDOFF_PREFIX) :])


# The Agents SDKs' description of a handoff's tool (``Handoff.default_tool_description``).
_SDK_HANDOFF = re.compile(r"\s*Handoff to the\b", re.IGNORECASE)


def _agent_called(name: str) -> str:
    """How a handed-over agent names itself after "the": its name's words, with "agent" added when they
    do not already end in what it is (``transfer_to_travel`` → "travel agent", not "the travel")."""
    words = name.split()
    if not words:
        return "right agent"
    return name if words[-1] in _AGENT_NOUNS else f"{name} agent"


_PICTURE_TOOL = re.compile(r"image|picture|photo|vision|camera|screenshot|ocr", re.IGNORECASE)


def _takes_pictures(tools: Sequence[ToolSpec]) -> bool:
    """A declared tool is about pictures (``analyze_image``, "Describe what the camera sees"): a question
    about the image may be its call."""
    return any(_PICTURE_TOOL.search(f"{tool.name} {tool.description}") for tool in tools)


def _user_words_before(history: tuple[TurnView, ...], item: TurnView | None) -> list[str]:
    """What the user said or typed before ``item`` (all of it when ``item`` is not in ``history``),
    oldest first."""
    words = []
    for each in history:
        if each is item:
            break
        if each.kind in ("user_text", "user_audio") and each.text.strip():
            words.append(each.text)
    return words


def _told_by_the_app(instructions: str, history: tuple[TurnView, ...]) -> list[str]:
    """What the app told the model, oldest first: the session's instructions, then its system items."""
    return [instructions, *(item.text for item in history if item.kind == "system")]


def _assistant_words_before(history: tuple[TurnView, ...], item: TurnView | None) -> str | None:
    """What the assistant said last before ``item`` (its text or transcript), None when nothing."""
    said: str | None = None
    for each in history:
        if each is item:
            break
        if each.kind == "assistant" and each.text.strip():
            said = each.text
    return said


def _speaks_for_the_app(turn: Turn) -> bool:
    """A declared tool says or sends words (``speak``, ``send_message``, ``announce``, HyperStudy's chat):
    "say …" may be a request of it, left to the tools."""
    words = {"say", "speak", "announce", "send", "message", "tts", "broadcast", "chat", "reply"}
    return any(words & set(lexicon.identifier_words(tool.name).split()) for tool in turn.request.tools)


def _repeats(tool: ToolSpec) -> bool:
    """A declared tool with a repeat mode of its own (``set_repeat``, a ``repeat`` option)."""
    return "repeat" in json.dumps([tool.name, tool.parameters]).lower()


def _words_for_a_demanded_call(turn: Turn) -> str | None:
    """The words a call the host demands takes its arguments from: the words being answered, or after a
    function output the newest words said (``tool_choice: "required"`` kept on after a tool's output, as
    the Agents SDK's session keeps it: the next call is about what was asked, not built values such as
    ``{"city": "not sure yet"}``); None when nothing was said."""
    if turn.situation.heard_is_current:
        return turn.situation.trigger.text
    if turn.situation.trigger.kind != "function_output":
        return None
    words = newest_words(turn.request.history)
    return words[1] if words is not None else None


def _user_name(turn: Turn) -> str | None:
    """The name the user gave of themselves in the conversation ("My name is Ana.", "I'm Ana"), the
    latest, or None."""
    for view in reversed(turn.request.history):
        if view.kind in ("user_text", "user_audio") and view.text:
            name = facts.given_name(view.text)
            if name is not None:
                return name
    return None


def _nothing_new_said(situation: Situation, history: tuple[TurnView, ...]) -> bool:
    """Nothing to answer: no words yet, or the newest words (said or typed) or the newest function output
    were answered already (LiveKit's ``generate_reply(instructions=…)`` after a tool's result was read
    out: the instructions, not the output read out again)."""
    trigger = situation.trigger
    if trigger.kind == "none":
        return True
    answerable = situation.heard_is_current or trigger.kind == "function_output"
    if not answerable or trigger.item is None:
        return False
    later = history[next(i for i, item in enumerate(history) if item is trigger.item) + 1 :]
    return any(item.kind == "assistant" for item in later)


# Words in a tool's name that say calling it ends the turn (pydantic-ai's ``final_result``, a
# ``submit_answer``): the one ``required`` calls once the other calls have their outputs.
# A tool that delivers the reply: named for it (a reply noun) with at most a verb of handing it over, or
# a reply verb alone or "to the user" (``ends_the_turn``).
_REPLY_NOUNS = frozenset(("answer", "result", "response", "reply", "output"))
_HANDING_OVER = frozenset(
    ("final", "submit", "send", "give", "provide", "return", "deliver", "to", "the", "user", "my", "your")
)
_REPLY_VERBS = frozenset(("respond", "reply", "answer", "submit", "finish", "finalize", "done"))
_TO_THE_USER = frozenset(("to", "the", "user"))


def _resumed_with_a_question(situation: Situation) -> bool:
    """The study just resumed (the trigger is the ``resumed`` item) with a question on screen that came
    during the pause and is not answered: the silence then was for the pause, not for the question, so
    the reply to ``resumed`` answers it. A question from before the pause had its own turn to be
    answered; it is not answered again."""
    context = situation.trigger.context
    resumed = context is not None and context.event == "resumed"
    return resumed and situation.question_open and situation.question_during_pause
