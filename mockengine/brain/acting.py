"""Acting on an app's own tools: the calls the words ask for, the clause said while acting, the question
when a required argument is missing, and the grounding sentence after the app's output.

``plan()`` is the whole decision for one user turn (``intent`` picks tools, ``slots`` fills arguments);
``referent()`` reads what "it" means from the history; ``grounding()`` speaks a function output.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from jsonschema import validators

from mockengine.brain import (
    addressed,
    addresses,
    asking,
    cards,
    codes,
    implied,
    intent,
    items,
    lexicon,
    moves,
    names,
    narration,
    phrases,
    places,
    schema_values,
    utterance,
)
from mockengine.brain import kinds as kinds_of
from mockengine.brain.arguments import check_schema
from mockengine.brain.model import ToolCall, ToolSpec, TurnView
from mockengine.brain.narration import grounding
from mockengine.brain.slots import Filled, Referent, fill, implied_again
from mockengine.brain.values import Span
from mockengine.brain.wordlists import NOT_TOWNS, ORDERING_VERBS, SHIPPED_THINGS

__all__ = [
    "Action",
    "Plan",
    "arguments_for",
    "clause",
    "grounding",
    "is_valid",
    "next_action",
    "plan",
    "referent",
    "topics",
]

_NAME_KEYS = ("title", "name", "label", "card", "product", "event", "item", "text", "track", "song", "room")


@dataclass(frozen=True)
class Action:
    """One call the words ask for, and why: the tool's match and which words filled which argument."""

    call: ToolCall
    why: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Plan:
    """The decision: calls to make (with a clause to say while acting), or a question to ask instead."""

    actions: tuple[Action, ...]
    question: str | None
    why: str
    said: str | None = None  # what to say when the words ask for no call ("never mind" → "Okay.")
    # the call the question waits on: its tool and the arguments the words gave (an answer completes it)
    pending: tuple[ToolSpec, dict[str, Any]] | None = None
    # the words only gave a value, asking nothing ("my confirmation number is kq7rt"): put after a
    # question, they answer it, and the call it waited on comes first (``ellipsis.conversation_plan``)
    only_given: bool = False
    # said after the calls' clause: what the words also asked that no call does ("I can't order the
    # muffin here, though.")
    note: str | None = None


def plan(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    """The calls ``text`` asks for among ``tools``, or the question a missing argument needs; None when
    no tool matches (the participant then talks). Only the end of a long text is read
    (``utterance.acted_tail``)."""
    planned = _plan(text, tools, referent, today)
    return _change_out_of_reach(utterance.acted_tail(text), tools, planned) or planned


def _change_out_of_reach(text: str, tools: list[ToolSpec], planned: Plan | None) -> Plan | None:
    """What a model says when the words ask a record changed ("my confirmation number is kq7rt and I want
    to cancel it") and the only calls planned look that record up, because no declared tool makes the
    change (``intent.change_undeclared``): that it cannot do that here, and no lookup passed off as the
    request (nor the lookup's question for an id). None when the plan makes no such lookup, or a tool
    changes the record. The lookups are of records (``_looks_up_record``): "change three hundred pounds
    into swiss francs" asks an ``exchange`` to be called."""
    if planned is None:
        return None
    by_name = {tool.name: tool for tool in tools}
    looked_up = [by_name.get(action.call.name) for action in planned.actions]
    if planned.pending is not None and not planned.actions:
        looked_up = [planned.pending[0]]
    if not looked_up or not all(tool is not None and _looks_up_record(tool) for tool in looked_up):
        return None
    verb = intent.change_undeclared(text, tools)
    if verb is None:
        return None
    return Plan(
        (), None, f"no call: no declared tool can {verb} (only a lookup)", f"Sorry, I can't {verb} that here."
    )


def _looks_up_record(tool: ToolSpec) -> bool:
    """``tool`` looks up a record a business keeps, by a parameter identifying it (``get_reservation``'s
    ``reservation_id``); no lookup that merely reports (``exchange``, ``get_weather``)."""
    required = schema_values.required_of(tool.parameters or {})
    return intent.is_lookup(tool) and any(codes.record_words(name) for name in required)


# The weather's forecast: "the forecast", "weather forecast", "tomorrow's forecast", "forecast for Paris";
# not a forecast of another thing ("the sales forecast").
_FORECAST = re.compile(
    r"(?:^|(?<=[\s,.!?])(?:(?:the|a|weather|today'?s|tomorrow'?s|weekend'?s?|week'?s)\s+)+)forecasts?\b"
    r"(?!\s+(?:of|on)\b)",
    re.IGNORECASE,
)


def _declared_words(tool: ToolSpec) -> str:
    """``tool``'s name and description, as words."""
    return f"{lexicon.identifier_words(tool.name)} {tool.description or ''}"


def _plan(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    if utterance.GUARDRAIL_FEEDBACK.search(text):  # read whole: the tail is its instructions to the model
        return Plan((), None, "no call: an output guardrail's feedback", phrases.GUARDRAIL_APOLOGY)
    text = utterance.repaired(utterance.acted_tail(text))
    candidates = intent.candidates(tools)
    declined = _declined(text, candidates)
    if declined is not None:
        return declined
    farewell = _farewell_call(text, candidates, referent, today)
    if farewell is not None:
        return farewell
    if candidates and not addressed.gate(utterance.clean(text)).request:
        # words that tell, wonder or feel: the participant talks (the trace says why), unless they give
        # what a tool is called on being given ("My name is John Smith." to update_name)
        return _value_given(text, candidates, referent, today)
    # a fee asked ("How much does shipping cost?") goes to no tool that prices only items
    fee = _fee_asked(text)
    priced = [tool for tool in candidates if not (fee and _prices_no_fee(fee, tool))]
    opened = _OPEN_NEW.search(text)
    creating = _creating_tools(opened.group("thing"), priced) if opened else []
    found = intent.actions(text, creating, lambda part, match: stands_alone(part, match, today))
    found = found or intent.actions(text, priced, lambda part, match: stands_alone(part, match, today))
    if not found and _FORECAST.search(text) and not any(_FORECAST.search(_declared_words(t)) for t in priced):
        # "What's the forecast for Paris?" with only ``get_weather`` "Get the current weather": a model
        # calls the one weather tool it has (what it returns is then said), as gpt-4o does; it called
        # nothing. A declared forecast tool keeps its own word ("weather forecast" → get_forecast).
        said_as_weather = _FORECAST.sub("weather", text)
        found = intent.actions(said_as_weather, priced, lambda part, match: stands_alone(part, match, today))
    if not found:
        return (
            _moved(text, candidates)
            or _value_given(text, candidates, referent, today)
            or _address_sent(text, candidates, referent, today)
            or _delivered(text, candidates, referent, today)
            or _ordered(text, candidates)
            or _not_given(text, candidates)
        )
    if found and (
        not any(_verb_said(match) for _, match in found)
        or all(intent.is_lookup(match.tool) for _, match in found)
    ):
        # "Send order 12345 to 40 Elm Rd" beside cancel_order: the noun "order" asked no cancel; the
        # address a thing is sent to asks its shipping address changed, as a model reads it
        # (the tool that takes the address, matched by a word of it such as "street", reads it as well:
        # "Send my order to 12 Baker Street" names no order "12"). A lookup sends nothing either: "Ship
        # order 12345 to Leeds" beside track_order (whose "track" shares a concept with "ship") asks it
        # sent there, not tracked.
        sent = _address_sent(text, candidates, referent, today)
        if sent is not None:
            return sent
    if len(found) == 1:
        found = _coordinated(found[0][0], found[0][1], candidates, today)
    done: list[Action] = []
    for part, match in found:
        check_schema(match.tool)  # a broken schema fails the response, as for any call
        vocabulary = intent.vocabulary_of(match.tool)
        tool = match.tool
        filled = fill(tool.name, tool.parameters or {}, part, referent, today, vocabulary, tool.description)
        if opened and any(str(v).lower() == "new" for v in filled.arguments.values()):
            # "open a new account" to ``lookup_account`` only: "new" is no account's id; a model asks
            why = f"{intent.describe(match)}; 'new' {opened.group('thing')} is none to look up"
            return Plan(tuple(done), None, why) if done else None
        if opened and tool in creating:  # "open a new" is no account's name: asked for
            _drop_words_of(
                filled,
                text[opened.start() : opened.start("thing")],
                schema_values.required_of(tool.parameters or {}),
            )
        if _ANOTHER_ONE.search(part):  # "a refund for my other order": which one is asked
            required = schema_values.required_of(tool.parameters or {})
            for name in [n for n, v in filled.arguments.items() if _identifier(n) and v in _NOT_AN_ID]:
                del filled.arguments[name]  # "other" is no order number
                filled.missing += [name] if name in required else []
        else:
            _established(filled, referent, tool.parameters or {})
        if filled.missing and any(action.call.name == tool.name for action in done):
            continue  # "the weather in Paris and should I bring an umbrella?": the call made covers it
        if filled.missing:
            return _asking(match.tool, filled, intent.describe(match), tuple(done))
        if not is_valid(filled.arguments, match.tool.parameters or {}):
            # Each value fits its property, but not the whole (a dependency, a oneOf): call nothing.
            why = f"{intent.describe(match)}; arguments {filled.arguments} do not fit its schema"
            return Plan(tuple(done), None, why) if done else None
        done.append(_action(match, filled))
        for name, thing in filled.more:  # "add eggs and bread": one call per thing
            other = Filled({**filled.arguments, name: thing}, {**filled.sources, name: thing})
            implied_again(
                other, match.tool.parameters or {}, match.tool.name, match.tool.description
            )  # Rome's country, not Paris's
            if is_valid(other.arguments, match.tool.parameters or {}):
                done.append(_action(match, other))
        referent = _after_call(referent, filled.arguments)
    return Plan(tuple(done), None, "; ".join(a.why for a in done))


# Words that set aside the thing established: "my other order", "a different booking", "another one",
# "I bought something elsewhere" (no order of this shop's).
_ANOTHER_ONE = re.compile(r"\b(?:another|other|different|else|elsewhere)\b", re.IGNORECASE)
_NOT_AN_ID = frozenset(("another", "other", "different", "else"))
# The last word of a parameter's name that makes it an identifier (``order_id``, ``booking_ref``).
_ID_WORDS = frozenset(("id", "number", "num", "no", "ref", "reference", "code"))


def _established(filled: Filled, referent: Referent, schema: Mapping[str, Any]) -> None:
    """Each missing required identifier (``order_id``) the conversation already gave under the same name
    (the newest call's argument or output, else any earlier call's argument: ``get_order_status
    {"order_id": "A12345"}``), filled with it, as a model asked "I want a refund" next carries the order
    it looked up; words naming another fill it first."""
    properties = schema_values.properties_of(schema) or {}
    for name in list(filled.missing):
        if not _identifier(name):
            continue  # a bare ``id`` names no kind of thing: any call's id would do
        words = lexicon.identifier_words(name)
        known = referent.values + referent.established
        value = next((v for k, v in known if lexicon.identifier_words(k) == words), None)
        if value is None or not is_valid({name: value}, {"properties": {name: properties.get(name, {})}}):
            continue
        filled.arguments[name], filled.sources[name] = value, "(established earlier in the conversation)"
        filled.missing.remove(name)


# "open a new account", "create a new playlist": a thing made, not one named "new" to look up.
_OPEN_NEW = re.compile(
    r"\b(?:open|create|start|make|set\s+up|setup|register|add)\s+(?:a\s+|an\s+|another\s+|me\s+a\s+)?"
    r"(?:brand\s+)?new\s+(?P<thing>[a-z]+(?:\s+[a-z]+)?)\b",
    re.IGNORECASE,
)
# The first word of a tool's name that makes a thing (``create_account``, ``open_account``).
_CREATING_VERBS = frozenset(("create", "open", "new", "add", "register", "make", "start", "setup", "signup"))


def _creating_tools(thing: str, tools: list[ToolSpec]) -> list[ToolSpec]:
    """The tools that make a ``thing`` ("account", "savings account"): named with a making verb first and
    a word of the thing after it (``create_account``, ``open_new_account``, ``createAccount``)."""
    concepts = {t.concept for t in lexicon.tokens(thing.lower()) if not t.is_stop}
    made = []
    for tool in tools:
        words = lexicon.identifier_words(tool.name).split()
        if words[:1] and words[0] in _CREATING_VERBS and concepts & {lexicon.concept(w) for w in words[1:]}:
            made.append(tool)
    return made


def _drop_words_of(filled: Filled, said: str, required: list[str]) -> None:
    """``filled`` without the string values made only of the words ``said`` (the request's own verb and
    article: "open a new"), each a required one then missing."""
    words = set(said.lower().split())
    for name, value in list(filled.arguments.items()):
        if isinstance(value, str) and value.strip() and set(value.lower().split()) <= words:
            del filled.arguments[name]
            filled.sources.pop(name, None)
            if name in required and name not in filled.missing:
                filled.missing.append(name)


# "weather and time, news and traffic …": the pairs read, so a long list costs what a short one does.
MAX_CONJUNCTS = 4
_CONJUNCTS = re.compile(
    r"\b([a-z][\w'-]*)\s*(?:,\s*|\s+)(?:and|&)\s+(?:the\s+|a\s+|an\s+)?([a-z][\w'-]*)\b", re.I
)


def _coordinated(
    part: str, match: intent.Match, tools: list[ToolSpec], today: date
) -> list[tuple[str, intent.Match]]:
    """The tools one request names side by side, in the order said: "weather and time in Paris" asks
    ``get_weather`` and ``get_time`` the same thing (each with the arguments the rest of the words give;
    "in Paris and Tokyo" then makes one call per tool and place). A conjunct names a tool when that word
    alone asks for it strongly and is no action ("open and play" are two requests, split before); a tool
    whose required arguments the words do not give is left out."""
    said = utterance.clean(part)
    for found in itertools.islice(_CONJUNCTS.finditer(said), MAX_CONJUNCTS):
        words = (found.group(1), found.group(2))
        tokens = [token for w in words for token in lexicon.tokens(w)]
        if any(token.concept in lexicon.ACTIONS or token.is_stop for token in tokens):
            continue
        own = [intent.best(word, [match.tool]) is not None for word in words]
        if not own[0]:  # "… in Paris and the time in Tokyo": the word before "and" names no tool
            split = _two_requests(said, found, tools, today)
            if split is not None:
                return split
        if own.count(True) != 1:
            continue  # one conjunct names the tool matched, the other another tool
        word = words[own.index(False)]
        # only a tool that declares the word's concept can be named by it (cheap with many tools)
        concepts = set(lexicon.concepts_of(word))
        declaring = [t for t in tools if t is not match.tool and concepts & intent.vocabulary_of(t)]
        other = intent.best(word, declaring) if declaring else None
        if other is None:
            continue
        schema = other.tool.parameters or {}
        vocabulary = intent.vocabulary_of(other.tool)
        filled = fill(other.tool.name, schema, part, Referent(), today, vocabulary, other.tool.description)
        if filled.missing:
            continue
        return [(part, match), (part, other)] if own[0] else [(part, other), (part, match)]
    return [(part, match)]


def _two_requests(
    said: str, found: re.Match[str], tools: list[ToolSpec], today: date
) -> list[tuple[str, intent.Match]] | None:
    """Two requests under one verb, each with its own place: "what is the weather in Paris and the time
    in Tokyo?" → the tool the words before "and" ask for (``get_weather``), and the tool the word after
    it names (``get_time``, "time in Tokyo"), when they differ and each half fills its tool alone; None
    otherwise. Read whole, such words matched one tool (the first declared of the two) for both
    places."""
    word = found.group(2)
    concepts = set(lexicon.concepts_of(word))
    declaring = [t for t in tools if concepts & intent.vocabulary_of(t)]
    second = intent.best(word, declaring) if declaring else None
    head, tail = said[: found.end(1)], said[found.start(2) :]
    first = intent.best(head, tools) if second is not None else None
    if first is None or second is None or first.tool is second.tool:
        return None
    if not (stands_alone(head, first, today) and stands_alone(tail, second, today)):
        return None
    return [(head, first), (tail, second)]


# What an order costs beyond its items: a fee, a charge, a tax, a tip. "How much does shipping cost?" asks
# no menu item's or product's price (``get_menu_item {item}`` took "shipping" as the item).
FEES = frozenset(
    (
        "shipping", "delivery", "postage", "postal", "handling", "tax", "taxes", "vat", "gst", "service",
        "tip", "tips", "gratuity", "fee", "fees", "charge", "charges", "surcharge", "corkage", "cover",
        "booking", "deposit", "cancellation", "processing", "packaging", "admin", "cost", "costs",
    )
)  # fmt: skip
_PRICE_OF = re.compile(
    r"\bprice of (?:the |a |an |your |any )?(?P<thing>[\w' -]+?)\s*(?:[?.!,;]|\b(?:to|for|on|in|at|from)\b|$)"
)


def _fee_asked(text: str) -> list[str]:
    """The words of a fee or charge ``text`` asks the price of (``FEES``: "How much does shipping cost?" →
    ["shipping"], "how much is the service charge?" → ["service", "charge"]); [] when it asks none (a
    thing priced with a word of no fee: "the delivery pizza", "the tip of the day"). Read once a turn."""
    found = _PRICE_OF.search(lexicon.rewrite(text.lower()))
    if found is None:
        return []
    words = found.group("thing").split()
    if not words or not set(words) <= FEES or words == ["cost"]:
        return []
    return words


def _prices_no_fee(fee: list[str], tool: ToolSpec) -> bool:
    """``tool`` declares no word of the ``fee`` asked (``_fee_asked``): a lookup of items (``get_menu_item``,
    ``lookup_product``) prices things sold, and a fee is none. A tool that declares it
    (``get_shipping_cost``, "Delivery fees by zone") is asked. The words said are the signal; the list is
    small and documented (docs/tools.md, "Which tool")."""
    declared = intent.vocabulary_of(tool)
    return not any(lexicon.concept(w) in declared for w in fee if w not in _FEE_HEADS)


_FEE_HEADS = frozenset(("fee", "fees", "charge", "charges", "cost", "costs"))


def stands_alone(part: str, match: intent.Match, today: date) -> bool:
    """A question part ("… and what time is it in Tokyo?") fills its tool's required arguments from its
    own words, never from what "it" names, and each required free string is said as a value is (a named
    place: "Tokyo", not "sunset" or "difference with Tokyo")."""
    tool = match.tool
    schema = tool.parameters or {}
    vocabulary = intent.vocabulary_of(tool)
    filled = fill(tool.name, schema, part, Referent(), today, vocabulary, tool.description)
    if filled.missing:
        return False
    properties = schema_values.properties_of(schema) or {}
    for name in schema_values.required_of(schema):
        value = filled.arguments.get(name)
        if not isinstance(value, str) or (properties.get(name) or {}).get("enum"):
            continue
        if not said_as_value(value, part):
            return False
    return True


def said_as_value(value: str, part: str) -> bool:
    """``value`` is in ``part`` as a name ("Tokyo"), or typed in lower case as the place a preposition ends
    the part with ("in tokyo?")."""
    if places.is_proper_name(value) and value.lower() in part.lower():
        return True
    return re.search(rf"\b(?:in|at|for|from)\s+{re.escape(value)}\W*$", part, re.IGNORECASE) is not None


def next_action(found: Plan | None, since: tuple[TurnView, ...]) -> Action | None:
    """With one call a response (``parallel_tool_calls: false``): the next call of ``found``, the plan
    for the newest words ("the weather in Paris and the time in Tokyo": get_time after get_weather's
    output), from the items ``since`` them (the calls made). Calls made count by tool and order, not by
    their arguments, so a plan that changed its values since ("tomorrow" after midnight) neither repeats
    a call nor skips one; an output whose call item was deleted still counts its call. None when every
    call was made, the words ask for none, or a call made is not the one the words ask for next (the
    plan changed: no guessed call)."""
    planned = [action.call.name for action in found.actions] if found is not None else []
    position = 0
    for name in _made(since):
        if position == len(planned) or name not in (None, planned[position]):
            return None
        position += 1
    return found.actions[position] if found is not None and position < len(planned) else None


def _made(since: tuple[TurnView, ...]) -> list[str | None]:
    """The tools of the calls made, in order, one a ``call_id`` (None for a call whose item is gone)."""
    names: dict[str, str | None] = {}
    for item in since:
        if item.kind == "function_call":
            names[item.call_id or item.item_id] = item.name
        elif item.kind == "function_call_output" and item.call_id:
            names.setdefault(item.call_id, None)
    return list(names.values())


def _declined(text: str, tools: list[ToolSpec]) -> Plan | None:
    """No call, said plainly, for words that decline ("never mind", "don't play it") or ask what the
    assistant can do (its tools, in words); None for anything else."""
    reason = (utterance.not_asking(text) or utterance.not_asking(utterance.clean(text))) if tools else None
    if reason in ("a request not to act", "a dismissal"):
        return Plan((), None, f"no call: {reason}", "Okay, I'll leave it.")
    if reason == "a question about the assistant" and _for_the_faq(text, tools):
        return None  # "How many bags can I bring on the plane?": the app's FAQ answers it (``_asked_faq``)
    if reason == "a question about the assistant":
        names = [lexicon.identifier_words(tool.name) for tool in tools[:4]]
        listed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
        return Plan((), None, f"no call: {reason}", f"I can {listed} for you.")
    return None


# A tool that ends the conversation, by its name (``end_call``, ``hang_up``, ``end_conversation``,
# ``disconnect_call``) or by when its description says to call it ("End the call when the user says
# goodbye", "Use when the caller wants to hang up").
_ENDING_VERBS = frozenset(
    ("end", "hang", "hangup", "disconnect", "terminate", "close", "leave", "exit", "quit")
)
_ENDED = frozenset(("call", "conversation", "chat", "session", "phone", "up", "dialog", "dialogue"))
_ON_FAREWELL = re.compile(
    r"\b(?:says?|said|saying|bids?)\s+(?:good\s*bye|bye|farewell)\b"
    # "wants to end the call", "wants to leave.", "wants to hang up"; not "wants to stop their
    # subscription", "wants to go to the checkout", "to leave the queue": an ending of something else
    r"|\b(?:wants?|asks?|ready|wishes|is\s+ready)\s+to\s+(?:hang\s+up\b|(?:end|leave|finish|stop|quit|go)"
    r"(?:\s+(?:the\s+|this\s+|our\s+)?(?:call|conversation|chat|session|phone\s+call))?"
    r"(?=\s*(?:[.,;:!?)]|$|\b(?:or|and|now)\b)))"
    r"|\b(?:user|caller|customer)\s+(?:is\s+done|is\s+finished|is\s+leaving|hangs\s+up)\b",
    re.IGNORECASE,
)
FAREWELL_SAID = "Goodbye, talk to you soon."


def ends_the_conversation(tool: ToolSpec) -> bool:
    """``tool`` ends the call or conversation: named so (``end_call``, ``hang_up``, ``endConversation``)
    or described as called when the user says goodbye or wants to leave (``_ON_FAREWELL``)."""
    words = lexicon.identifier_words(tool.name).split()
    # the thing ended is the name's last word: ``end_phone_call`` ends a call, ``end_phone_verification``
    # a verification, though "phone" stands in its name
    named = bool(words) and words[0] in _ENDING_VERBS and (len(words) == 1 or words[-1] in _ENDED)
    return named or bool(_ON_FAREWELL.search(tool.description or ""))


# An ending tool's reason option that says the user said goodbye (``end_call {reason: enum [user_goodbye,
# agent_done, …]}``): by its words, a farewell's ("user_goodbye", "farewell", "said_bye"), else the user's
# own ending ("user_ended", "caller_hung_up", "customer_request").
_GOODBYE_OPTION = frozenset(("goodbye", "bye", "farewell"))
_USER_OPTION = frozenset(("user", "caller", "customer", "client"))
# A goodbye of the agent's own doing, which the user's farewell is not: "goodbye_message_played",
# "agent_goodbye", "bot_said_goodbye", "goodbye_prompt_sent".
_AGENTS_GOODBYE = frozenset(
    ("message", "played", "play", "sent", "send", "agent", "assistant", "bot", "prompt", "audio", "tts")
)
_USER_ENDED_OPTION = frozenset(
    ("end", "ended", "ends", "hangup", "hung", "left", "done", "request", "requested")
)


def _goodbye_option(options: Any) -> Any:
    """The option of an ending tool's enum that means the user said goodbye, or None when none says so."""
    if not isinstance(options, list):
        return None
    worded = [
        (option, set(lexicon.identifier_words(option).split()))
        for option in options
        if isinstance(option, str)
    ]
    said_goodbye = [
        (option, words)
        for option, words in worded
        if words & _GOODBYE_OPTION or "good bye" in lexicon.identifier_words(option)
    ]
    for option, words in said_goodbye:  # "user_goodbye", "caller_said_bye"
        if words & _USER_OPTION:
            return option
    for option, words in worded:  # "customer_ended", "caller_hung_up"
        if words & _USER_OPTION and words & _USER_ENDED_OPTION:
            return option
    for option, words in said_goodbye:  # "goodbye", "farewell"; not the agent's "goodbye_message_played"
        if not words & _AGENTS_GOODBYE:
            return option
    return None


def _farewell_call(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    """A message that only says goodbye ("Goodbye!", "Thanks, bye!", "talk to you later"), with a tool
    declared that ends the conversation (``ends_the_conversation``): that tool called and the farewell
    said, as a model told "End the call when the user says goodbye" does; it answered "Goodbye" and
    called nothing, and under ``tool_choice: "required"`` called ``lookup_order {"order_id":
    "Goodbye"}``. None for thanks alone ("Thanks."), which ends nothing, or a tool whose required
    arguments the words do not give."""
    if not utterance.ONLY_FAREWELL.search(utterance.clean(text)):
        return None
    for tool in tools:
        if not ends_the_conversation(tool):
            continue
        check_schema(tool)
        schema = tool.parameters or {}
        filled = fill(tool.name, schema, utterance.clean(text), referent, today, description=tool.description)
        properties = schema_values.properties_of(schema) or {}
        for name in list(filled.missing):  # ``reason: enum [user_goodbye, …]``: the goodbye said
            option = _goodbye_option(kinds_of.one_branch(properties.get(name) or {}).get("enum"))
            if option is not None:
                filled.arguments[name], filled.sources[name] = option, "(the user says goodbye)"
                filled.missing.remove(name)
        called = _called(tool, filled)
        if called is not None:
            why = f"{tool.name} (the user says goodbye: it ends the conversation)"
            return Plan((called,), None, why, FAREWELL_SAID)
    return None


def topics(tools: list[ToolSpec]) -> frozenset[str]:
    """The concepts the app's own tools declare ("weather"): what the participant can do here."""
    return frozenset(c for tool in intent.candidates(tools) for c in intent.vocabulary_of(tool))


def arguments_for(tool: ToolSpec, text: str, referent: Referent, today: date) -> Filled:
    """Arguments for a tool chosen by someone else (``tool_choice``), from the words (the end of a long
    text, ``utterance.acted_tail``)."""
    words = utterance.clean(utterance.acted_tail(text))
    vocabulary = intent.vocabulary_of(tool)
    return fill(tool.name, tool.parameters or {}, words, referent, today, vocabulary, tool.description)


def _action(match: intent.Match, filled: Filled) -> Action:
    sources = ", ".join(f"{name} ← {words!r}" for name, words in filled.sources.items()) or "no arguments"
    call = ToolCall(match.tool.name, json.dumps(filled.arguments, ensure_ascii=False))
    return Action(call, f"{intent.describe(match)}; {sources}", filled.arguments)


def _asking(tool: ToolSpec, filled: Filled, why: str, done: tuple[Action, ...] = ()) -> Plan:
    """The plan that asks for the first of ``filled``'s missing required arguments of ``tool`` (after the
    calls ``done``), the call waiting on the answer with the arguments the words gave."""
    question = ask_for(asking.first_to_ask(filled.missing, tool), tool)
    why = f"{why}; missing required {', '.join(filled.missing)}"
    return Plan(done, question, why, pending=(tool, dict(filled.arguments)))


def _called(tool: ToolSpec, filled: Filled) -> Action | None:
    """The call of ``tool`` with ``filled``'s arguments, chosen by a rule rather than the matcher; None
    when a required argument is missing or the arguments do not fit the whole schema."""
    if filled.missing or not is_valid(filled.arguments, tool.parameters or {}):
        return None
    return _action(intent.Match(tool, 0.0, (), True), filled)


def _after_call(referent: Referent, arguments: Mapping[str, Any]) -> Referent:
    values = tuple((k.lower(), v) for k, v in arguments.items() if isinstance(v, str))
    if not values:
        return referent
    return Referent(values + referent.values, values[0][1])


# A tool whose description says it is called when the user gives something ("Called when the user
# provides their name.", "Use this when the customer gives their phone number"): LiveKit's restaurant
# example declares its tools so, and a model calls them on a statement that gives the value.
_ON_PROVIDED = re.compile(
    r"\b(?:called|call(?: this)?|use(?: this)?|invoke(?: this)?|trigger(?:ed)?)\b[^.]{0,40}?"
    r"\bwhen\s+(?:the\s+)?"
    r"(?:user|customer|caller|client|guest|patient|person)\s+(?:provides|gives|shares|tells|states|says"
    r"|mentions|supplies|specifies|offers)\b",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d")
# A number's own label just before the digits: not a phone's ("order number", "account no.", "PIN").
_OTHER_NUMBER = re.compile(
    r"\b(?:order|account|acct|confirmation|booking|reservation|reference|ref|tracking|policy|member|membership"
    r"|card|credit\s+card|invoice|ticket|case|claim|customer|id|serial|routing|pin|zip|postal)\s*"
    r"(?:number|no\.?|#|code|id)?\s*(?:is|was|:|=)?\s*$",
    re.IGNORECASE,
)
_NOT_GIVING = ("a request not to act", "a dismissal", "a closing remark", "thanks or a farewell")


def _value_given(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    """The call a value given without a request is for: a name or contact (``_provided``), what a tool
    keeps of the user told (``_told_to_keep``), a record's id (``_record_given``), a card's details
    (``_card_stated``), a question a FAQ answers (``_asked_faq``), tried in that order; None when the
    words give none of them."""
    return (
        _provided(text, tools, referent, today)
        or _told_to_keep(text, tools, referent, today)
        or _record_given(text, tools)
        or _card_stated(text, tools, referent, today)
        or _asked_faq(text, tools)
    )


def _provided(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    """The calls of the tools the words give a value to, among those declared to be called when the
    user gives it (``_ON_PROVIDED``): "My name is John Smith." → ``update_name {name: "John Smith"}``,
    "My number is 555 123 4567." → ``update_phone``. Each required argument must be a value of its own
    form said in the words: a name introduced or booked under, a phone number, a time, a date, a number;
    a free phrase is never enough. None when no such tool is given its values."""
    if utterance.negated(text) or utterance.not_asking(text) in _NOT_GIVING:
        return None  # "don't save my number", "never mind"
    done: list[Action] = []
    for tool in tools:
        schema = tool.parameters or {}
        required = schema_values.required_of(schema)
        if not required or not _ON_PROVIDED.search(tool.description or ""):
            continue
        filled = fill(tool.name, schema, utterance.clean(text), referent, today, description=tool.description)
        properties = schema_values.properties_of(schema)
        if filled.missing or not all(
            _given(name, properties.get(name), filled.arguments.get(name), filled.sources.get(name, ""), text)
            for name in required
        ):
            continue
        called = _called(tool, filled)
        done += [called] if called is not None else []
    if not done:
        return None
    return Plan(tuple(done), None, "given what a tool is called on: " + "; ".join(a.why for a in done))


# A tool that keeps what it is told of the user: its name or its description opens with a verb that
# saves, remembers, stores or records (``save_hobbies``, "Remember the user's preferences", "Use this to
# store …"); the verb, not the noun ("Find a store near the user", ``get_records`` keep nothing).
_KEEPS = re.compile(
    r"^\W*(?:(?:use|call)\s+(?:this|it)(?:\s+(?:tool|function))?\s+to\s+)?"
    r"(?:save[sd]?|remember(?:s|ed)?|memori[sz]e[sd]?|store[sd]?|record(?:s|ed)?|keep(?:s)?\s+track)\b",
    re.IGNORECASE,
)
# A statement that takes back or denies what it tells ("My hobbies are not chess", "I don't like …").
_UNTOLD = re.compile(r"\bnot\b|n[’']t\b|\bnever\b|\bno\s+longer\b|\bhate\b|\bdislike\b", re.IGNORECASE)
# What the speaker likes is what a list of these holds ("I love chess and hiking" of ``hobbies``).
_LIKED_THINGS = frozenset(
    lexicon.stem(w)
    for w in ("hobby", "hobbies", "interest", "interests", "like", "likes", "preference", "preferences")
    + ("favorite", "favorites", "favourite", "favourites", "passion", "passions", "pastime", "pastimes")
)


def _told_to_keep(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    """The call of a tool that keeps what the user tells of themselves (``_KEEPS``), on a statement that
    tells it with no request: "My hobbies are chess and hiking" (each required parameter stated by its
    name, ``items.stated``) or "I love chess and hiking" (a list of what the speaker likes, ``hobbies``,
    ``interests``, ``preferences``: ``items.tells_liking``) → ``save_hobbies {hobbies: ["chess",
    "hiking"]}``, as a model with such a tool saves what it exists to save; it talked ("You said …").
    A question, a denial or a free phrase of another kind is no value told. None when no such tool is
    told all it requires."""
    if (
        utterance.negated(text)
        or _UNTOLD.search(text)
        or phrases.is_question(text)
        or utterance.not_asking(text) in _NOT_GIVING
    ):
        return None
    done: list[Action] = []
    for tool in tools:
        schema = tool.parameters or {}
        required = schema_values.required_of(schema)
        keeps = _KEEPS.search(lexicon.identifier_words(tool.name)) or _KEEPS.search(tool.description or "")
        if not required or not keeps:
            continue
        properties = schema_values.properties_of(schema)
        if not all(_told(text, name, properties.get(name)) for name in required):
            continue
        # one value stated by its name is what follows its name ("my hobbies are chess and hiking"):
        # read whole, a tool not named for it took "are chess" for a hobby
        rest = items.stated_as(text, required[0]) if len(required) == 1 else None
        told = utterance.clean(rest if rest is not None else text)
        filled = fill(tool.name, schema, told, referent, today, description=tool.description)
        if filled.missing:
            continue
        called = _called(tool, filled)
        done += [called] if called is not None else []
    if not done:
        return None
    return Plan(tuple(done), None, "told what a tool keeps: " + "; ".join(a.why for a in done))


def _told(text: str, name: str, about: Any) -> bool:
    """The statement tells parameter ``name`` (schema ``about``): by its name ("my hobbies are …"), or,
    for a list of what one likes (``_LIKED_THINGS``), as what the speaker likes ("I love chess …")."""
    if items.stated(text, name):
        return True
    listed = isinstance(about, Mapping) and kinds_of.kind_of(name, about) == "list"
    words = {lexicon.stem(w) for w in lexicon.identifier_words(name).split()}
    return listed and bool(words & _LIKED_THINGS) and items.tells_liking(text)


# A thing asked to be sent somewhere: "send it to", "please deliver them to", "ship my order to"; "went
# to", "take me to" (a ride) and "get to" (directions) send nothing.
# The thing sent may be a record named by its number ("send the order 12345 to", "ship order number
# 12345 to", "send order #12345 to"), and the address said as a place of the speaker's ("to my office at").
_SENT = (
    r"(?i)\b(?:send|ship|deliver|mail|post|forward|redirect|reroute)\b"
    r"(?:\s+(?:the|my|our|your|this|that|these|those))?(?:\s+\w+)?(?:\s+(?:number\s+|no\.?\s+)?#?\w+)?\s+to\s+"
    r"(?:(?:my|our)\s+(?:\w+\s+){0,2}?(?:at|on)\s+)?"
)
# A question of where a thing goes ("Does it go to …", "Why did it ship to …"): no request to send it.
_ASKED_OF_IT = re.compile(r"^\W*(?:why|how|does|did|do|is|was|has|where)\b", re.IGNORECASE)


def _address_sent(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    """A request that gives a street address and none of any tool's words ("Send it to 40 Elm Rd.,
    Leeds"): the one tool that takes a street (``update_shipping_address(street, city, postal_code?)``)
    is called with it, as a model takes the address itself for the request; a required part not said is
    asked for. None when no street with its house number is said as where a thing is sent ("send / ship /
    deliver … to": "I live at 40 Elm Rd", "Take me to 40 Elm Rd", "Why did it go to …" send nothing), or
    no tool, or more than one, takes a street."""
    street = addresses.street_with_number_in(text)
    if street is None:
        return _town_sent(text, tools, referent, today)
    if not re.search(_SENT + re.escape(street), text) or _ASKED_OF_IT.search(text):
        return None  # where a thing is sent ("send it to 40 Elm Rd"), not where one lives or went
    takers = [
        tool
        for tool in tools
        if any(
            "street" in lexicon.identifier_words(name).split()
            for name in schema_values.properties_of(tool.parameters or {})
        )
    ]
    if len(takers) != 1:
        return None
    tool = takers[0]
    said = text[text.index(street) :]  # the address alone, read as an address's parts are
    vocabulary = intent.vocabulary_of(tool)
    schema = tool.parameters or {}
    # the address fills the address's parameters; the record sent ("Send order 12345 to …") is said
    # before it (a house number is no order id)
    ids = [n for n in schema_values.properties_of(schema) if codes.record_words(n)]
    address_schema = {
        **schema,
        "properties": {n: v for n, v in schema_values.properties_of(schema).items() if n not in ids},
        "required": [n for n in schema_values.required_of(schema) if n not in ids],
    }
    filled = fill(tool.name, address_schema, said, referent, today, vocabulary, tool.description)
    if ids:
        before = text[: text.index(street)]
        sent = fill(tool.name, schema, before, referent, today, vocabulary, tool.description)
        for name in [n for n in ids if n in sent.arguments]:
            filled.arguments[name], filled.sources[name] = (
                sent.arguments[name],
                sent.sources.get(name, before),
            )
        filled.missing = [n for n in schema_values.required_of(schema) if n not in filled.arguments]
        order = list(schema_values.properties_of(schema))  # in the schema's order, as a model writes them
        filled.arguments = dict(sorted(filled.arguments.items(), key=lambda item: order.index(item[0])))
    match = intent.Match(tool, 0.0, (), True)
    if filled.missing:
        return _asking(tool, filled, f"{tool.name} (a street address given)", ())
    if not is_valid(filled.arguments, tool.parameters or {}):
        return None
    action = _action(match, filled)
    return Plan((action,), None, f"a street address given: {action.why}")


# Things asked to be brought to a street address: "3 burgers delivered to 12 Main Street", "Send two
# pizzas to 45 Oak Avenue"; the things counted or by their article, right before where they go.
_THINGS_TO = re.compile(
    r"\b(?P<things>(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a\s+dozen|some)\s+"
    r"(?:[a-z][\w'-]*\s+){0,4}?[a-z][\w'-]*)\s*,?\s+(?:(?:delivered|sent|brought|shipped|dropped\s+off)\s+)?"
    r"(?:over\s+|out\s+|round\s+)?to\s+(?:(?:my|our)\s+(?:\w+\s+){0,2}?(?:at|on)\s+)?$",
    re.IGNORECASE,
)
# Words of a parameter's name that hold where an order goes.
_WHERE_TO = frozenset(
    ("address", "street", "destination", "location", "city", "town", "postcode", "zip", "postal", "state")
)


def _delivered(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    """Things asked to be brought to a street address ("3 burgers delivered to 12 Main Street") with no
    tool's verb said: the one ordering tool that takes where the order goes (``create_order(items,
    quantity?, address)``) is called with the things (read alone: "3 burgers" is ``quantity: 3``,
    ``items: ["burgers"]``) and the address (read alone: its number is no quantity), as a model takes the
    words for an order; a required part not said is asked for. It was echoed ("You said 3 burgers
    delivered to 12 Main Street. Tell me more."). None when no such things and address are said, the words
    ask about a delivery ("Why were …"), or no tool, or more than one, orders and takes an address."""
    street = addresses.street_with_number_in(text)
    if street is None or _ASKED_OF_IT.search(text):
        return None
    found = _THINGS_TO.search(text[: text.index(street)])
    if found is None:
        return None
    ordering = [tool for tool in tools if _orders_to_an_address(tool)]
    if len(ordering) != 1:
        return None
    tool = ordering[0]
    schema = tool.parameters or {}
    properties = schema_values.properties_of(schema)
    where = [n for n in properties if _WHERE_TO & set(lexicon.identifier_words(n).lower().split())]
    vocabulary = intent.vocabulary_of(tool)

    def part(names: list[str], words: str) -> Filled:
        cut = {
            **schema,
            "properties": {n: v for n, v in properties.items() if n in names},
            "required": [n for n in schema_values.required_of(schema) if n in names],
        }
        return fill(tool.name, cut, words, referent, today, vocabulary, tool.description)

    things = part([n for n in properties if n not in where], found.group("things"))
    if re.match(r"(?i)(?:a|an|one)\s", found.group("things")):
        # "a pizza delivered to …" is one: a count the words leave is 1, not asked ("How many …?")
        for name in [n for n in things.missing if {"quantity", "qty", "count"} & set(n.lower().split("_"))]:
            things.arguments[name], things.sources[name] = 1, "(one thing, by its article)"
    sent = part(where, text[text.index(street) :])
    order = list(properties)
    merged = {**things.arguments, **sent.arguments}
    filled = Filled(
        dict(sorted(merged.items(), key=lambda item: order.index(item[0]))),
        {**things.sources, **sent.sources},
    )
    filled.missing = [n for n in schema_values.required_of(schema) if n not in filled.arguments]
    why = f"{tool.name} (things asked to be brought to a street address)"
    if filled.missing:
        return _asking(tool, filled, why, ())
    if not is_valid(filled.arguments, schema):
        return None
    action = _action(intent.Match(tool, 0.0, (), True), filled)
    return Plan((action,), None, f"{why}: {action.why}")


def _orders_to_an_address(tool: ToolSpec) -> bool:
    """A tool that orders (its name's verb orders, or it is named for an order: ``create_order``) and
    takes where the order goes (``address``, ``delivery_address``)."""
    words = lexicon.identifier_words(tool.name).lower().split()
    if not (set(words[:1]) & ORDERING_VERBS or "order" in words[1:]) or intent.is_lookup(tool):
        return False
    return any(
        _WHERE_TO & set(lexicon.identifier_words(name).lower().split())
        for name in schema_values.properties_of(tool.parameters or {})
    )


# The town a thing is sent to, the words' last: "Send order 12345 to Leeds", "ship it to New York."
# (a question or "please" or "instead" may end the words: "Can you send order 12345 to Leeds?")
_TOWN_SENT = re.compile(
    _SENT + r"(?P<town>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))"
    r"(?:\s*,?\s*(?:please|instead|thanks|thank\s+you))*\s*[.!?]?\s*$"
)


def _town_sent(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    """A thing sent to a town alone ("Send order 12345 to Leeds"): the one tool that takes a street and a
    city (``update_shipping_address(order_id, street, city)``), its city the town and its record the one
    named before; a required part not said (the street) is asked for, as a model asks rather than
    guessing it. What is sent is an order or a parcel (a record's number, ``wordlists.SHIPPED_THINGS``):
    "Send the report to Finance" ships nothing. A country ("to France") is no city: it fills a country
    parameter if there is one, and the rest is asked. None when no capitalised name ends the words, or
    no tool, or more than one, takes both a street and a city (a person, "Send it to Sam", is read as a
    town then: the street is asked all the same)."""
    found = _TOWN_SENT.search(text)
    if found is None or _ASKED_OF_IT.search(text):
        return None
    town = found.group("town")
    if not all(word[0].isupper() for word in town.split()) or town.lower() in NOT_TOWNS:
        return None  # "to Tuesday": when, not where
    shipped = text[found.start() : found.start("town")].lower()
    if not (re.search(r"\d", shipped) or set(re.findall(r"[a-z]+", shipped)) & SHIPPED_THINGS):
        return None  # "Send the report to Finance": no order or parcel, no shipping

    def names(tool: ToolSpec) -> dict[str, list[str]]:
        props = schema_values.properties_of(tool.parameters or {})
        return {n: lexicon.identifier_words(n).lower().split() for n in props}

    takers = [
        tool
        for tool in tools
        if any("street" in words for words in names(tool).values())
        and any({"city", "town"} & set(words) for words in names(tool).values())
    ]
    if len(takers) != 1:
        return None
    tool = takers[0]
    schema = tool.parameters or {}
    ids = [n for n in schema_values.properties_of(schema) if codes.record_words(n)]
    # a country is no city ("to France"): it fills the tool's country, if it has one, and the rest is asked
    wanted = {"country"} if implied.is_country(town) else {"city", "town"}
    city = next((n for n, words in names(tool).items() if wanted & set(words)), None)
    arguments: dict[str, Any] = {}
    sources: dict[str, str] = {}
    if ids:
        before = text[: found.start("town")]
        sent = fill(tool.name, schema, before, referent, today, intent.vocabulary_of(tool), tool.description)
        for name in [n for n in ids if n in sent.arguments]:
            arguments[name], sources[name] = sent.arguments[name], sent.sources.get(name, before)
    if city is not None:
        arguments[city], sources[city] = town, town
    order = list(schema_values.properties_of(schema))  # in the schema's order, as a model writes them
    filled = Filled(dict(sorted(arguments.items(), key=lambda item: order.index(item[0]))), sources)
    filled.missing = [n for n in schema_values.required_of(schema) if n not in filled.arguments]
    if filled.missing:
        return _asking(tool, filled, f"{tool.name} (a town given, no street)", ())
    if not is_valid(filled.arguments, schema):
        return None
    action = _action(intent.Match(tool, 0.0, (), True), filled)
    return Plan((action,), None, f"a town sent to: {action.why}")


def _verb_said(match: intent.Match) -> bool:
    """Whether the words that matched a tool include its name's verb ("cancel" of ``cancel_order``, or a
    word of the same concept), not only the thing it acts on ("order")."""
    verb = lexicon.identifier_words(match.tool.name).lower().split()[:1]
    return bool(verb) and lexicon.concept(verb[0]) in {lexicon.concept(cue) for cue in match.cues}


# "a latte and a mocha": another thing asked for in the same words, its own article after "and"
_AND_ANOTHER = re.compile(r"\s*,?\s+and\s+(?:also\s+)?(?=(?:a|an|some|another|one)\s+[a-z])", re.IGNORECASE)


def _ordered(text: str, tools: list[ToolSpec]) -> Plan | None:
    """A thing asked to be given ("Can I get a latte?") to the one ordering tool whose only required
    parameter is the thing ordered (``order_drink(drink)``): that tool, called with the thing
    (``intent.ordered_thing``); None otherwise. Things asked for together ("a latte and a mocha", "a tea
    and a muffin" beside order_drink and order_food) get one call each in the same response, as a model
    calls a tool that takes one thing once per thing. A thing of a known kind no tool takes ("a muffin"
    with only order_drink) is said to be out of reach (``Plan.note``; alone, no call and that sentence);
    any other thing not ordered keeps all or none: "a latte and a refund" orders nothing here."""
    parts = _AND_ANOTHER.split(text)
    # the later things are asked for in the first one's words ("I'd like a latte and a mocha")
    texts = [parts[0]] + [f"I'd like {part}" for part in parts[1:]]
    done: list[Action] = []
    other_kind: list[str] = []
    for said in texts:
        found = intent.ordered_thing(said, tools)
        if found is None:
            # "a tea and a muffin" with only order_drink: a thing of a kind no tool takes (food) is no
            # reason to order nothing; a model orders the tea and says the muffin is out of its reach.
            # Our choice (no documented behaviour): the calls it can make, and that sentence.
            other = intent.thing_of_other_kind(said, tools)
            if other is None:
                return None
            other_kind.append(other)
            continue
        tool, name, thing = found
        called = _called(tool, Filled({name: thing}, {name: thing}))
        if called is None:
            return None
        done.append(called)
    things = " or the ".join(other_kind)
    if not done:
        # "Can I get a muffin?" with only order_drink: no call, and why
        return Plan(
            (), None, f"no call: no declared tool takes {things}", f"Sorry, I can't order the {things} here."
        )
    why = "a thing asked for to its ordering tool: " + "; ".join(a.why for a in done)
    if not other_kind:
        return Plan(tuple(done), None, why)
    note = f"I can't order the {things} here, though."
    return Plan(tuple(done), None, f"{why}; no declared tool takes {things}", note=note)


def _not_given(text: str, tools: list[ToolSpec]) -> Plan | None:
    """What a model says to a thing asked for that no declared tool gives ("Can I get a refund for my
    booking AB12?" to an app that books and cancels tables): that it cannot help with it here, no call
    of a tool that merely shares a noun (``intent.got_undeclared``); None otherwise."""
    thing = intent.got_undeclared(text, tools)
    if thing is None:
        return None
    return Plan(
        (), None, f"no call: no declared tool gives {thing}", f"Sorry, I can't help with {thing} here."
    )


def _record_given(text: str, tools: list[ToolSpec]) -> Plan | None:
    """A record's id given as what it is, nothing else asked ("my confirmation number is kq7rt", "My order
    number is A12345."): the one lookup whose only required parameter identifies that record is called
    with it, as a model looks the record up (``codes.record_code``: a word for the record, an id word, then
    an id that looks like one). None when no lookup, or more than one, takes it: "my confirmation number is
    great" gives none, "my order number is A12345" is no reservation's."""
    if utterance.negated(text) or utterance.not_asking(text) in _NOT_GIVING:
        return None
    found: list[tuple[ToolSpec, str, Span]] = []
    for tool in tools:
        required = schema_values.required_of(tool.parameters or {})
        if len(required) != 1 or not intent.is_lookup(tool):
            continue
        span = codes.record_code(text, required[0], labelled=True)
        if span is not None:
            found.append((tool, required[0], span))
    if len(found) != 1:
        return None
    tool, name, span = found[0]
    called = _called(tool, Filled({name: span.value}, {name: text[span.start : span.end]}))
    if called is None:
        return None
    return Plan((called,), None, f"a record's id given: {called.why}", only_given=True)


# The words before a card number that only give it: "My card number is", "It's", "Here's my Visa:",
# "card number", or nothing ("4242 4242 …, expires 04/28"); "I lost my card 4242 …" tells a story.
_GIVES_CARD = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|sure|yes|yeah|yep|right|so|alright|great)\b[\W]*)*"
    r"(?:(?:here'?s|here\s+is|it'?s|it\s+is|that'?s|that\s+is|use|try)\s+)?"
    r"(?:(?:my|the|our|this)\s+)?(?:(?:credit|debit|payment|visa|mastercard|amex|bank)\s*)?"
    r"(?:card\s*)?(?:number|no\.?|#)?\s*(?:is|:)?\s*$",
    re.IGNORECASE,
)


# The words that may follow a card number given: its other details and their labels, and courtesy
# ("…, expires 04/28, CVC 123, thanks"); any other word tells of the card ("… was declined").
_CARD_DETAIL_WORDS = frozenset(
    (
        "expires", "expire", "expiring", "expiry", "expiration", "exp", "date", "valid", "until", "thru",
        "through", "end", "ends", "cvc", "cvv", "cvv2", "cvc2", "cv2", "csc", "cid", "security", "code",
        "and", "the", "is", "its", "it's", "it", "on", "back", "of", "card", "number", "with", "please",
        "thanks", "thank", "you", "ok", "okay", "that's", "that", "all", "a",
    )
)  # fmt: skip


def _only_card_details(tail: str) -> bool:
    """``tail`` (the words after a card number) gives only the card's other details (its expiry, its
    security code) and courtesy words (``_CARD_DETAIL_WORDS``), no clause about the card."""
    expiry = cards.expiry_for(tail, {})
    if expiry is not None:
        tail = tail[: expiry.start] + " " + tail[expiry.end :]
    code = cards.security_code_for(tail)
    if code is not None:
        tail = tail[: code.start] + " " + tail[code.end :]
    words = re.findall(r"[a-z][a-z0-9']*", tail.lower())
    return all(w in _CARD_DETAIL_WORDS for w in words)


def _card_stated(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    """A payment card stated with no request ("My card number is 4242 4242 4242 4242", "It's 4242 …,
    expires 04/28, CVC 123"), given to the first declared tool that takes a card number (``pay``,
    ``charge_card``, ``add_payment_method``): called when the words fill all it requires, else its first
    missing argument asked for ("What's the expiry date?"), as a model in a checkout does with card
    details it is handed. None when no card is stated in the giving form (``_GIVES_CARD``), the words
    refuse ("don't charge my card 4242 …"), or no tool takes one. The live model's choice is not
    documented; this one is ours (docs/tools.md)."""
    number = cards.card_number_for(text)
    if number is None or not _GIVES_CARD.match(text[: number.start]):
        return None
    if not _only_card_details(text[number.end :]):
        return None  # "My card 4242 … was declined", "… that got stolen", "…, can you cancel it?"
    if utterance.negated(text) or utterance.not_asking(text) in _NOT_GIVING:
        return None
    for tool in tools:
        schema = tool.parameters or {}
        properties = schema_values.properties_of(schema) or {}
        if not any(
            isinstance(sub, Mapping) and kinds_of.kind_of(name, sub) == "card_number"
            for name, sub in properties.items()
        ):
            continue
        check_schema(tool)
        filled = fill(tool.name, schema, utterance.clean(text), referent, today, description=tool.description)
        why = f"{tool.name} (a card stated: it takes a card number)"
        if filled.missing:
            return _asking(tool, filled, why)
        called = _called(tool, filled)
        if called is not None:
            return Plan((called,), None, why)
    return None


# A tool that answers the user's questions: an FAQ lookup, a knowledge base, "Ask any question related to
# our restaurant" (the Agents SDK's faq_lookup_tool, LangChain examples' ask_vector_db).
_ANSWERS_QUESTIONS = re.compile(
    r"\bfaqs?\b|frequently asked|\b(?:ask|answer)s?\s+(?:any\s+|the\s+user'?s?\s+|common\s+)?questions?\b"
    r"|knowledge\s*base",
    re.IGNORECASE,
)
_A_QUESTION = re.compile(
    r"^\W*(?:what|what's|which|when|where|who|why|how|is|are|do|does|can|could|will|would|should|did)\b.*\?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def _for_the_faq(text: str, tools: list[ToolSpec]) -> bool:
    """A question read as one about the assistant or the app that is the service's policy, not the
    assistant's ("How many bags can I bring on the plane?", "Is it safe to bring a power bank?"), with a
    question-answering tool declared (the Agents SDK's ``faq_lookup_tool``): the FAQ's, as a model asks
    it (it said "I can faq lookup tool for you."). "What can you do?", "How does this work?" stay the
    assistant's."""
    if utterance.not_asking(text) != "a question about the assistant" or _ABOUT_THE_ASSISTANT.search(text):
        return False
    return any(_ANSWERS_QUESTIONS.search(_declared_words(tool)) for tool in tools)


# What asks about the assistant itself, not the service it serves.
_ABOUT_THE_ASSISTANT = re.compile(
    r"\b(?:you|your|yourself)\b|\bthis (?:app|assistant|thing|service|bot)\b"
    r"|\bhow (?:does|do) (?:this|that|it)\b|^\W*help\W*$|\bwhat(?:'s| is) this\b",
    re.IGNORECASE,
)


def _asked_faq(text: str, tools: list[ToolSpec]) -> Plan | None:
    """A question no tool's words take, put to the app's question-answering tool (``_ANSWERS_QUESTIONS``)
    with the question as asked, as a model does ("Can I bring my dog on the plane?" →
    ``faq_lookup_tool {question: …}``); None when the words ask no question or no such tool takes one
    string."""
    asked = text.strip()
    refused = utterance.not_asking(asked)
    if not _A_QUESTION.match(asked) or (refused is not None and not _for_the_faq(asked, tools)):
        return None
    for tool in tools:
        schema = tool.parameters or {}
        required = schema_values.required_of(schema)
        properties = schema_values.properties_of(schema)
        about = f"{lexicon.identifier_words(tool.name)} {tool.description or ''}"
        if len(required) != 1 or not _ANSWERS_QUESTIONS.search(about):
            continue
        (name,) = required
        if (
            not isinstance(properties.get(name), Mapping)
            or kinds_of.kind_of(name, properties[name]) != "string"
        ):
            continue
        arguments = {name: asked}
        if is_valid(arguments, schema):
            match = intent.Match(tool, 0.0, (), True)
            return Plan(
                (_action(match, Filled(arguments, {name: "(the question as asked)"})),),
                None,
                "a question for the app's FAQ",
            )
    return None


def _given(name: str, schema: Any, value: Any, source: str, text: str) -> bool:
    """``value`` is one the words gave ``name`` in its own form: a person's name introduced ("my name is
    …", "it's under …"), a phone number, a time, a date or a number heard; not a free phrase."""
    if not isinstance(schema, Mapping) or value is None or source.startswith("("):
        return False
    kind = kinds_of.kind_of(name, schema)
    phone = addresses.address_for(text, "phone")
    at = text.lower().find(source.lower())
    if (
        phone is not None
        and kind in ("time", "number")
        and 0 <= at < phone.end
        and phone.start < at + len(source)
    ):
        return False  # "at five five five, …": a phone's digits are no time
    if kind in ("time", "date", "datetime", "number", "currency"):
        return True
    if addresses.named_for_phone(name) or kind in ("address", "patterned"):
        if phone is not None and _OTHER_NUMBER.search(text[: phone.start]):
            return False  # "My order number is 5551234567": ten digits, no phone
        return (
            isinstance(value, str)
            and len(_DIGITS.findall(value)) >= 7
            or kind == "address"
            and "@" in str(value)
        )
    if names.takes_a_name(name) or lexicon.identifier_words(name).split()[-1:] == ["name"]:
        # written with capitals, a name is capitalised ("my name is hard to spell" gives none); a
        # transcript in lower case may give one in lower case
        cased = text != text.lower()
        written = next(
            (w for w in text.split() if w.lower().strip(".,!?") == str(value).split()[0].lower()), ""
        )
        if cased and not written[:1].isupper():
            return False
        return source.endswith(("(introduced)", "(booked under)")) or (
            names.introduced(text) is not None and str(value) in text
        )
    return False


def _moved(text: str, tools: list[ToolSpec]) -> Plan | None:
    """ "close the blinds" to an app whose only device tool switches on or off (``moves``): the device
    kept, on or off asked for; None when the words move nothing or no one tool switches devices."""
    if utterance.not_asking(text) is not None or utterance.negated(text):
        return None  # "close the blinds, never mind"
    thing = moves.moved_thing(utterance.clean(text))
    switch = moves.switch_tool(tools) if thing is not None else None
    if thing is None or switch is None:
        return None
    tool, device, state = switch
    why = f"{tool.name} ({thing!r} moved: on or off is not said); missing required {state}"
    return Plan((), ask_for(state, tool), why, pending=(tool, {device: thing}))


def ask_for(parameter: str, tool: ToolSpec) -> str:
    """The question for a missing required argument, worded by what it holds (``asking.ask_for``):
    "Which card do you mean?", "How many people will be in your party?", "Which seating would you like:
    indoor or outdoor?"."""
    return asking.ask_for(parameter, tool)


def clause(actions: tuple[Action, ...], rng: random.Random) -> str:
    """The clause said while the first of ``actions`` goes out (``narration.clause``)."""
    return narration.clause(actions[0].call.name, actions[0].arguments, rng)


def referent(history: tuple[TurnView, ...]) -> Referent:
    """What "it" means: the newest function output's named fields, then the newest call's arguments."""
    values: list[tuple[str, str]] = []
    name: str | None = None
    for item in reversed(history):
        if item.kind == "function_call_output" and name is None:
            data = _json(item.text)
            if isinstance(data, Mapping) and "error" not in data:
                found = _named_fields(data)
                values += found
                name = name or (found[0][1] if found else None)
        elif item.kind == "function_call":
            data = _json(item.text)
            if isinstance(data, Mapping):
                found = [(k.lower(), v) for k, v in data.items() if isinstance(v, str)]
                values += found
                name = name or (found[0][1] if found else None)
            if name is not None:
                break
        elif item.kind in ("user_text", "user_audio") and values:
            break
    titled = [value for key, value in values if key in ("title", "name", "label")]
    return Referent(tuple(values), titled[0] if titled else name, _identifiers_used(history))


def _identifiers_used(history: tuple[TurnView, ...]) -> tuple[tuple[str, str], ...]:
    """The identifiers (``order_id``, ``bookingRef``) the calls of ``history`` used, newest first."""
    used: list[tuple[str, str]] = []
    for item in reversed(history):
        data = _json(item.text) if item.kind == "function_call" else None
        if isinstance(data, Mapping):
            used += [(k.lower(), v) for k, v in data.items() if isinstance(v, str) and v and _identifier(k)]
    return tuple(used)


def _identifier(name: str) -> bool:
    """``name`` is a kind of thing's identifier (``order_id``, ``ticket_number``): not a bare ``id``."""
    words = lexicon.identifier_words(name).split()
    return len(words) >= 2 and words[-1] in _ID_WORDS


_ID_ENDINGS = ("id", "ref", "reference", "code", "number")


def _named_fields(data: Mapping[str, Any], depth: int = 0) -> list[tuple[str, str]]:
    """String fields that name a thing, e.g. ``card.id``, ``focusedCardId``, ``title`` (depth ≤ 2)."""
    found: list[tuple[str, str]] = []
    for key, value in data.items():
        lowered = key.lower()
        # a name, an id, a reference or code ("booking_ref": what "undo that" acts on)
        if isinstance(value, str) and (lowered in _NAME_KEYS or lowered.endswith(_ID_ENDINGS)):
            found.append((lowered, value))
        elif isinstance(value, list) and value and isinstance(value[0], Mapping) and depth < 2:
            # A list of things (an inbox, search results): "it" is the first, any of its fields.
            first = value[0]
            found += [(k.lower(), v) for k, v in first.items() if isinstance(v, str) and v]
        elif isinstance(value, Mapping) and depth < 2:
            inner = _named_fields(value, depth + 1)
            ids = [v for k, v in inner if k == "id"]
            found += [(lowered, ids[0])] if ids else []
            found += inner
    return found


def is_valid(arguments: Mapping[str, Any], schema: Mapping[str, Any]) -> bool:
    """``arguments`` validate against the tool's ``parameters`` schema (a schema jsonschema cannot use,
    such as one with a broken ``$ref``, validates nothing)."""
    try:
        return bool(validators.validator_for(schema)(schema).is_valid(arguments))
    except Exception:  # referencing and schema errors alike
        return False


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
