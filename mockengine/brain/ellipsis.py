"""Words that lean on the request before them: a follow-up by ellipsis and the answer to a question.

After "What's the weather in Paris?" → ``get_weather {city: Paris}`` → its output → the answer, a user
says "And in Berlin?", "What about Tokyo?", "Same for London", "and tomorrow?", "no, not Paris, Berlin"
or only "Berlin?": words that name only what changes. A model calls the same tool again with that
argument replaced and the others kept from the previous call ("and tomorrow?" to a tool with no date
goes to a declared tool that takes the previous call's arguments and a date: ``get_forecast``). The
same holds for the answer to a question the assistant asked for a missing argument ("book a table for
two" → "What name should I put the booking under?" → "Name's Tom"): the call it waited on goes out with
the answer filled in.

``conversation_plan()`` is ``acting.plan()`` for the newest words with the turns before them: the words'
own plan wins when it calls something or declines; the follow-up (or the completed call) replaces a plan
that found nothing or only a question.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from mockengine.brain import (
    acting,
    asking,
    facts,
    implied,
    intent,
    items,
    kinds,
    lexicon,
    names,
    narration,
    places,
    schema_values,
    spans,
    utterance,
    values,
)
from mockengine.brain.acting import Action, Plan
from mockengine.brain.model import ToolCall, ToolSpec, TurnView
from mockengine.brain.referents import Referent
from mockengine.brain.situation import newest_words
from mockengine.brain.slots import ONE_PLACE, fill

__all__ = ["conversation_plan", "elided", "follow_up"]

# How many earlier question-and-answer turns an answer may lean on ("a table" → "for how many?" → "4"
# → "which name?" → "Tom"): each level re-plans the turn before it.
MAX_CHAIN = 4
# A follow-up by ellipsis leans on the newest call even with this many user turns of small talk since.
MAX_TURNS_BACK = 3
# A value the previous tool does not take goes to one of at most this many tools nearest its topic.
MAX_OTHER_TOOLS = 8
# An elided request names only its new values: a few words, no clause.
MAX_ELIDED_WORDS = 6

_LEAD = r"^\W*(?:(?:ok|okay|and|or|so|now|also|then|no|actually|oh|right|great|thanks|thank you)\W+)*"
_MARKER = re.compile(
    _LEAD
    + r"(?P<marker>(?:what|how)\s+about\b|(?:and\s+)?(?:the\s+)?same\s+(?:thing\s+|again\s+|question\s+)?"
    r"(?:for|in|with|but)\b|(?:and|also|now|then)\s+(?=(?:for|in|at|on|with|from|to)\b)|(?:and|or)\b"
    # a correction: "I meant Berlin", "make it Berlin", "actually, Berlin"
    r"|i meant\b|make (?:it|that)\b|change (?:it|that) to\b|actually\b|instead\b"
    # the previous answer asked for again in another form: "can you give me that in Fahrenheit?"
    r"|(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:give|tell|show|say|read)\s+(?:me\s+|us\s+)?"
    r"(?:that|it|this|those|them)\s+(?:again\s+)?(?=(?:in|for|at|on|with|as)\b)"
    r"|(?:switch|convert|change)\s+(?:that|it|this)\s+(?:over\s+)?(?:to|into)\b)\W*",
    re.IGNORECASE,
)
# "(no,) not Paris, Berlin", "not Paris but Berlin": a correction names the value that replaces another.
_CORRECTION = re.compile(
    r"^\W*(?:(?:no|sorry|oops|wait|actually)\W+)*not\s+(?:in\s+|at\s+|for\s+|on\s+)?[\w'-]+(?:\s+[\w'-]+){0,2}?"
    r"\s*(?:,\s*(?:but\s+)?|\s+but\s+)(?:rather\s+|instead\s+)?(?:i meant\s+|i mean\s+|make it\s+)?",
    re.IGNORECASE,
)
_TRAILING = re.compile(r"\W*\b(?:too|as well|instead|please|then|again|now)?\W*$", re.IGNORECASE)
_SKIPPED_SOURCES = ("(schema default)", "(not heard")
# What gives no value, whatever was asked ("not now", "I'm not sure yet", "never mind").
_NO_ANSWER = frozenset(
    (
        "a request not to act",
        "a dismissal",
        "a closing remark",
        "thinking aloud",
        "a question about the assistant",
        "a question for the participant",
    )
)


# Said alone with a question mark, these react to what was said; they name no value ("Really?").
_INTERJECTIONS = frozenset(
    [
        "hello",
        "hi",
        "hey",
        "sorry",
        "pardon",
        "thanks",
        "wow",
        "great",
        "nice",
        "cool",
        "perfect",
        "right",
        "exactly",
        "indeed",
        "maybe",
        "huh",
        "hmm",
        "oh",
        "ok",
        "okay",
        "yes",
        "yeah",
        "no",
        "nope",
        "sure",
        "what",
        "why",
        "how",
        "when",
        "where",
        "who",
    ]
)


def elided(text: str, loose: bool = False) -> str | None:
    """The new values of a request by ellipsis ("Berlin" of "And in Berlin?" keeps its "in": "in
    Berlin"; "Tokyo" of "What about Tokyo?", "tomorrow" of "and tomorrow?", "Berlin" of "no, not Paris,
    Berlin"); None when ``text`` has no such form or holds a clause of its own ("and play some jazz").
    ``loose``: also a value of any words after "in"/"for"/"at" said alone with no question mark ("in
    fahrenheit please"), which may then fill no free string (``follow_up``)."""
    said = utterance.clean(utterance.acted_tail(text)).replace("’", "'")
    corrected = _CORRECTION.match(said)
    if corrected is not None:
        rest = said[corrected.end() :]
    else:
        marked = _MARKER.match(said)
        if marked is None:
            return _asked_alone(said, loose)
        rest = said[marked.end() :]
    rest = _TRAILING.sub("", rest).strip(" ,.;:!?")
    if not rest or len(rest.split()) > MAX_ELIDED_WORDS or intent.has_verb(rest):
        return None
    if facts.answers_itself(rest):
        return None  # "And what is 3 plus 4?" after an order lookup: a sum asked, no order
    return rest


# Said without a question mark, a place alone is a follow-up after a preposition or "also"/"now": "in
# Berlin", "Also Tokyo, please" (a name alone, "Tom", may be anything).
_PLACE_ALONE = re.compile(
    r"^\W*(?:(?:ok|okay|and then|then)\W+)?(?:(?P<lead>also|now)\s+)?(?P<at>(?:in|for|at)\s+)?"
    r"(?P<value>[^,.!?]+?)\W*(?:\b(?:please|too|as well|then|instead)\W*)?$",
    re.IGNORECASE,
)


def _asked_alone(said: str, loose: bool = False) -> str | None:
    """A value asked alone ("Berlin?", "Tomorrow?", "New York?"): a proper name or a day, nothing more;
    without a question mark, a proper name after "in"/"for"/"at" or "also"/"now" ("in Berlin", "Also
    Tokyo"), or (``loose``) any few words after "in"/"for"/"at" ("in fahrenheit please")."""
    if not said.rstrip().endswith("?"):
        alone = _PLACE_ALONE.match(said)
        if alone is None or not (alone.group("lead") or alone.group("at")):
            return None
        value = alone.group("value").strip()
        if len(value.split()) > 3 or intent.has_verb(value):
            return None
        if not (_a_place_name(value) or loose and alone.group("at")):
            return None
        return f"{alone.group('at') or ''}{value}"
    value = said.strip(" ?.!")
    if not value or len(value.split()) > 3 or value.split()[0].lower() in _INTERJECTIONS:
        return None
    if any(t.is_stop or t.lower.endswith("ly") for t in lexicon.tokens(value)):
        return None  # "What?", "Is it?", "Seriously?": a reaction, no value
    day = values.dates(value, date(2000, 1, 1))  # only its form counts, not which day
    whole_day = any(span.start == 0 and span.end >= len(value) for span in day)
    return value if _a_place_name(value) or whole_day else None


def _a_place_name(value: str) -> bool:
    """``value`` is written as a name ("Berlin", "Salt Lake City") or is a place the tables know typed in
    lower case ("berlin": ``implied.place_name``)."""
    return places.is_proper_name(value) or implied.place_name(value) is not None


def conversation_plan(
    heard: str, before: tuple[TurnView, ...], tools: list[ToolSpec], today: date
) -> Plan | None:
    """The plan for the newest words ``heard`` said after the items ``before`` them: their own plan
    (``acting.plan``), else the follow-up they make of the previous request (``follow_up``)."""
    own = acting.plan(heard, tools, acting.referent(before), today)
    if own is not None and own.only_given:
        # "my confirmation number is kq7rt" after "What's the reservation ID?" for a cancel: the answer
        # completes the cancel; the lookup of the id given is for when no question waits on it
        return follow_up(heard, before, tools, today) or own
    if own is not None and (own.actions or own.question is None):
        return own
    return follow_up(heard, before, tools, today) or _carried_over(heard, own, before) or own


def _carried_over(heard: str, own: Plan | None, before: tuple[TurnView, ...]) -> Plan | None:
    """Another tool asked for by ellipsis after a call ("And the time?" after ``get_weather {city:
    Paris}``): the arguments it lacks come from the previous call's of the same name, as a model
    carries them over (``get_time {city: Paris}``). None when the words are no follow-up in form, or the
    previous call gives none of the missing required arguments; a question for the ones it does not
    give ("And the forecast?" → "What date would you like?", the city kept for the answer)."""
    if own is None or own.pending is None or own.actions or elided(heard) is None:
        return None
    words = newest_words(before)
    if words is None:
        return None
    calls = [item for item in before[words[0] + 1 :] if item.kind == "function_call"]
    previous = _json(calls[-1].text) if calls else None
    if not isinstance(previous, dict):
        return None
    tool, arguments = own.pending
    if tool.name == calls[-1].name:
        return None  # the same tool again ("and in my city?"): the words meant a value it lacks
    missing = [name for name in _required(tool) if name not in arguments]
    carried = {name: previous[name] for name in missing if name in previous}
    if not carried:
        return None
    order = list(_properties(tool))
    merged = dict(
        sorted(
            {**arguments, **carried}.items(), key=lambda e: order.index(e[0]) if e[0] in order else len(order)
        )
    )
    why = f"{tool.name} (another tool by ellipsis; carried over {sorted(carried)} from {calls[-1].name})"
    still = [name for name in missing if name not in carried]
    if still:  # "And the forecast?": the city carried over, the date asked for
        asked = acting.ask_for(asking.first_to_ask(still, tool), tool)
        return Plan((), asked, f"{why}; missing required {', '.join(still)}", pending=(tool, merged))
    if not acting.is_valid(merged, tool.parameters or {}):
        return None
    return Plan(
        (Action(ToolCall(tool.name, json.dumps(merged, ensure_ascii=False)), why, merged),), None, why
    )


def follow_up(
    heard: str, before: tuple[TurnView, ...], tools: list[ToolSpec], today: date, depth: int = 0
) -> Plan | None:
    """The previous request again with what ``heard`` changes: after a call, words by ellipsis
    (``elided``) replace the arguments they fill and keep the others; after a question for a missing
    argument, the answer completes the call the question waited on (or asks for the next one). One call
    per value when several are named ("and in Berlin and Rome?"). None when there is no previous request,
    the words have no such form, or they fill nothing the tool takes."""
    candidates = intent.candidates(tools)
    words = newest_words(before)
    if not candidates or depth > MAX_CHAIN:
        return None
    answer = utterance.clean(utterance.acted_tail(heard))
    if utterance.not_asking(answer) in _NO_ANSWER:
        return None  # "not now", "I'm not sure yet": no value for anything
    if words is None:
        return _answer_to_put_question(heard, answer, before, candidates, today)
    said, previous_words = words
    by_name = {tool.name: tool for tool in candidates}
    calls = [
        item for item in before[said + 1 :] if item.kind == "function_call" and (item.name or "") in by_name
    ]
    if calls:
        arguments = _json(calls[-1].text)
        rest = elided(heard)
        loose = rest is None and elided(heard, loose=True) is not None
        rest = rest or elided(heard, loose=True)
        if rest is None or not isinstance(arguments, dict):
            return None
        previous = by_name[calls[-1].name or ""]
        again = _again(previous, arguments, rest, candidates, today, loose=loose)
        return again if again is not None else _no_day_taken(previous, arguments, rest)
    answered = _answer(heard, answer, before, said, previous_words, tools, today, depth)
    if answered is None:
        answered = _answer_to_put_question(heard, answer, before[said + 1 :], candidates, today)
    if answered is not None or elided(heard) is None:
        return answered
    # "And in Berlin?" after a call and some small talk ("thanks! tell me a joke"): the newest call a few
    # turns back is still the request the words lean on
    call = _newest_call(before[:said], by_name)
    arguments = _json(call.text) if call is not None else None
    if call is None:
        return _unrecorded_again(heard, previous_words, before[:said], tools, candidates, today)
    if not isinstance(arguments, dict):
        return None
    return _again(by_name[call.name or ""], arguments, elided(heard) or "", candidates, today)


# A day said alone by ellipsis ("and tomorrow?", "what about on Friday?")
_DAY_ONLY = re.compile(
    r"^(?:on\s+|for\s+)?(?:(?:this|next)\s+)?(?P<day>tomorrow|tonight|(?:the\s+)?weekend|week"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?:\s+(?:morning|afternoon|evening|night))?$",
    re.IGNORECASE,
)


def _no_day_taken(tool: ToolSpec, arguments: dict[str, Any], rest: str) -> Plan | None:
    """ "and tomorrow?" after ``get_weather {city: Paris}`` when neither it nor any declared tool takes a
    day (``_again`` found none): a model says its tool reports only the present ("Sorry, I can only check
    the weather in Paris as it is now, not for tomorrow."); the words were echoed ("So you're asking and
    tomorrow. I'm not sure, to be honest."). None when ``rest`` is no day said alone, the tool is no
    lookup, or it takes a date or a time."""
    day = _DAY_ONLY.match(rest.strip(" ?.!"))
    if day is None or not intent.is_lookup(tool):
        return None
    for name, sub in _properties(tool).items():
        if isinstance(sub, dict) and kinds.kind_of(name, sub) in ("date", "time", "datetime"):
            return None
    when = re.sub(r"^(?:on|for)\s+", "", day.group(0), flags=re.IGNORECASE)
    said = narration.only_now(tool.name, arguments, when)
    return Plan((), None, f"no call: {tool.name} takes no day ({when!r})", said=said)


# What the assistant's question asks the user to want: "would you like", "do you want", "you'd like me to
# check" (a look's verb only: "would you like to visit" keeps its verb)
_WISHED = re.compile(
    r"\b(?:(?:would|do|did|will)\s+you\s+|you(?:'d|\s+would)?\s+)(?:like|want|need)"
    r"(?:\s+(?:me\s+)?to\s+(?:know|check|get|see|hear|look\s+up))?\b",
    re.IGNORECASE,
)


def _answer_to_put_question(
    heard: str, answer: str, after: tuple[TurnView, ...], tools: list[ToolSpec], today: date
) -> Plan | None:
    """The call a question the assistant put last (in ``after``: the items after the user's newest
    words) asks a value for, completed by ``heard``, when no request of the user's waits on it: a question
    an app's per-response instructions had the model put ("Ask the user which city they want the weather
    for." → "Could you tell me which city you want the weather for?"), then "Berlin, please." A model
    calls ``get_weather {city: Berlin}``; the answer was echoed. The question must ask for a tool's topic
    (``intent.best``, read without what it asks the user to want: "Which city would you like the weather
    for?" is "Which city the weather for?"), with a word other than the parameter's ("weather"), and name
    one of its required parameters ("city"); None otherwise ("Which city would you like to visit?")."""
    if not after or after[-1].kind != "assistant" or not after[-1].text.rstrip().endswith("?"):
        return None
    question = [part for part in names.SENTENCE_BREAK.split(after[-1].text.strip()) if part.strip()][-1]
    # "would you like", "do you want": the user's wish, which the matcher read as a question for the
    # participant ("do you want …?") or as another action ("like"); the thing wished for is the topic
    match = intent.best(question, tools) or intent.best(_WISHED.sub("", question), tools)
    if match is None:
        return None
    said = set(re.findall(r"[a-z]+", question.lower()))
    asked = [name for name in _required(match.tool) if set(re.findall(r"[a-z]+", name.lower())) <= said]
    if len(asked) != 1:
        return None
    parameter = {lexicon.concept(word) for word in re.findall(r"[a-z]+", asked[0].lower())}
    if not {lexicon.concept(cue.lower()) for cue in match.cues} - parameter:
        return None  # only the parameter is named: "Which city would you like to visit?"
    return _again(match.tool, {}, elided(heard) or answer, [match.tool], today, asked=asked[0])


def _unrecorded_again(
    heard: str,
    previous_words: str,
    earlier: tuple[TurnView, ...],
    tools: list[ToolSpec],
    candidates: list[ToolSpec],
    today: date,
) -> Plan | None:
    """ "And in Rome?" after "What is the weather in Paris?" and its answer, when the conversation kept no
    call: the call the previous words asked for, again with what the words change. Clients that keep
    only the messages' text send that (the Vercel AI SDK's ``response.messages`` holds the last step's
    answer alone; a chat memory of human and AI turns), and a model still reads the request in them."""
    asked = acting.plan(previous_words, tools, acting.referent(earlier), today)
    if asked is None or not asked.actions:
        return None
    call = asked.actions[0].call
    arguments = _json(call.arguments)
    tool = next((t for t in candidates if t.name == call.name), None)
    if tool is None or not isinstance(arguments, dict):
        return None
    return _again(tool, arguments, elided(heard) or "", candidates, today)


def _newest_call(before: tuple[TurnView, ...], by_name: dict[str, ToolSpec]) -> TurnView | None:
    """The newest call of a declared tool in ``before`` (the items before the newest words' user turn),
    if at most MAX_TURNS_BACK user turns, that one included, came after the words that asked for it."""
    turns = 1
    for item in reversed(before):
        if item.kind == "function_call" and (item.name or "") in by_name:
            return item
        if item.kind in ("user_text", "user_audio"):
            turns += 1
            if turns > MAX_TURNS_BACK:
                return None
    return None


def _answer(
    heard: str,
    answer: str,
    before: tuple[TurnView, ...],
    said: int,
    previous_words: str,
    tools: list[ToolSpec],
    today: date,
    depth: int,
) -> Plan | None:
    """The call a question after ``previous_words`` waited on, completed by ``heard`` (``follow_up``)."""
    if not any(item.kind == "assistant" for item in before[said + 1 :]):
        return None  # no question was put
    earlier = before[:said]
    waiting = acting.plan(previous_words, tools, acting.referent(earlier), today)
    carried = _carried_over(previous_words, waiting, earlier)  # "And the forecast?" → "Which date?"
    if carried is not None and carried.pending is not None:
        waiting = carried
    if waiting is None or waiting.actions or waiting.pending is None:
        waiting = follow_up(previous_words, earlier, tools, today, depth + 1)
    if waiting is None or waiting.actions or waiting.pending is None:
        return None
    tool, arguments = waiting.pending
    lacking = [name for name in _required(tool) if name not in arguments]
    asked = asking.first_to_ask(lacking, tool) if lacking else None
    return _again(tool, arguments, elided(heard) or answer, [tool], today, asked=asked)


def _again(
    previous: ToolSpec,
    arguments: dict[str, Any],
    rest: str,
    tools: list[ToolSpec],
    today: date,
    asked: str | None = None,
    loose: bool = False,
) -> Plan | None:
    """``previous`` (else a declared tool that takes every argument of it and what ``rest`` names) with
    the values ``rest`` names in place of its own: one call per value named ("Berlin and Rome"). The
    answer to a question (``asked``: the parameter asked for) must give that parameter. ``loose``: the
    words were only a few after a preposition ("in fahrenheit please"), which fill a value of a kind
    (an option, a number, a date) but no free string ("in a minute" is no city)."""
    own = set(_properties(previous))
    others = [
        t
        for t in tools
        if t is not previous and set(arguments) <= set(_properties(t)) and set(_properties(t)) - own
    ]
    # the tools nearest the previous one's topic first, and only a few: each is a fill of the words
    topic = intent.vocabulary_of(previous)
    others.sort(key=lambda t: -len(intent.vocabulary_of(t) & topic))
    others = others[:MAX_OTHER_TOOLS]
    for tool in (previous, *others):
        # "Berlin and Rome" are a call each; "Tom and Jerry" asked for a name is one booking's name, and
        # "War and Peace" one title
        parts = places.split_names(rest) if _one_call_each(tool, rest, today, asked) else [rest]
        changes = [_heard(tool, part, today) for part in parts]
        if asked is not None and changes and asked not in changes[0]:
            # "Nobu" to "Which restaurant?" once the guest is known: the answer fills what the call
            # still lacks (read whole, the name went to the person parameter ``guest``)
            lacking = _lacking(tool, arguments)
            changes = [_heard(lacking, part, today) for part in parts] if lacking is not None else changes
        if asked is not None and tool is previous and changes and asked not in changes[0]:
            kept_too = _other_values(tool, arguments, rest, today)
            if kept_too:
                # "tomorrow at seven" to "What name…?": no name, but the date and time the call
                # lacked, which a model keeps while it asks for the name again
                merged = {**arguments, **kept_too}
                sources = ", ".join(f"{k} ← {v!r}" for k, v in kept_too.items())
                why = f"{tool.name} (the answer gave other values; {sources}); still missing {asked}"
                return Plan((), acting.ask_for(asked, tool), why, pending=(tool, merged))
        if not changes or not all(changes) or (asked is not None and asked not in changes[0]):
            continue
        if asked is not None:
            changes = [_answering(change, asked, arguments) for change in changes]
        if not all(
            _said_as_values(tool, c, p, arguments, asked) for c, p in zip(changes, parts, strict=True)
        ):
            continue
        if loose and any(_free_string(tool, name) for change in changes for name in change):
            continue
        kept = {k: v for k, v in arguments.items() if k in _properties(tool)}
        actions: list[Action] = []
        missing: list[str] = []
        for changed in changes:
            merged = {**kept, **changed}
            order = list(_properties(tool))
            merged = dict(
                sorted(merged.items(), key=lambda e: order.index(e[0]) if e[0] in order else len(order))
            )
            missing = [n for n in _required(tool) if n not in merged]
            if missing:
                break
            if not acting.is_valid(merged, tool.parameters or {}):
                return None
            how = "the answer to the question" if asked is not None else "a follow-up by ellipsis"
            sources = ", ".join(f"{k} ← {v!r}" for k, v in changed.items())
            why = f"{tool.name} ({how}; kept {sorted(set(kept) - set(changed)) or 'nothing'}); {sources}"
            actions.append(Action(ToolCall(tool.name, json.dumps(merged, ensure_ascii=False)), why, merged))
        if missing:
            merged = {**kept, **changes[0]}
            why = f"{tool.name} (the answer to the question); missing required {', '.join(missing)}"
            return Plan(
                (), acting.ask_for(asking.first_to_ask(missing, tool), tool), why, pending=(tool, merged)
            )
        return Plan(tuple(actions), None, "; ".join(a.why for a in actions))
    return None


def _lacking(tool: ToolSpec, arguments: dict[str, Any]) -> ToolSpec | None:
    """``tool`` with only the parameters ``arguments`` has no value for; None when its schema lists no
    properties of its own (a ``$ref`` or ``anyOf`` root), which it is not cut down from."""
    schema = tool.parameters or {}
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return None
    left = {name: sub for name, sub in properties.items() if name not in arguments}
    required = [name for name in _required(tool) if name in left]
    return ToolSpec(tool.name, tool.description, {**schema, "properties": left, "required": required})


def _other_values(tool: ToolSpec, arguments: dict[str, Any], rest: str, today: date) -> dict[str, Any]:
    """The values of a kind (a date, a time, a number, an option: no free string, which any words would
    fill) that ``rest`` gives for required parameters ``arguments`` still lacks; {} when it gives none."""
    lacking = _lacking(tool, arguments)
    if lacking is None:
        return {}
    heard = _heard(lacking, rest, today)
    return {
        name: value
        for name, value in heard.items()
        if name in _required(tool) and (not isinstance(value, str | dict | list) or _dated(value))
    }


def _dated(value: Any) -> bool:
    """Whether the string ``value`` is a date or a time the words said (``2026-03-03``, ``19:00``), which
    no free words fill."""
    return isinstance(value, str) and re.fullmatch(_DATE_OR_TIME, value) is not None


_DATE_OR_TIME = r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?|\d{2}:\d{2}"


def _answering(changed: dict[str, Any], asked: str, before: dict[str, Any]) -> dict[str, Any]:
    """What the answer to a question for ``asked`` changes: that parameter, and others only where the
    call had no value yet and the answer's words are not the asked value again. "Ada Lovelace" to "Which
    guest do you mean?" filled the free-string ``restaurant`` too, and the booking at Luigi's went to a
    restaurant "Ada Lovelace"."""
    given = {leaf.lower() for leaf in _strings(changed[asked])}
    return {
        name: value
        for name, value in changed.items()
        if name == asked or name not in before and not (isinstance(value, str) and value.lower() in given)
    }


def _strings(value: Any) -> list[str]:
    """Every string in ``value`` (an object's, an array's, or itself)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _strings(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _strings(item)]
    return []


def _free_string(tool: ToolSpec, parameter: str) -> bool:
    """``parameter`` of ``tool`` takes free words (a string with no options, a name), not a value of a
    kind."""
    about = _properties(tool).get(parameter)
    return (
        isinstance(about, dict)
        and not about.get("enum")
        and kinds.kind_of(parameter, about)
        in (
            "string",
            "person",
        )
    )


def _a_list(rest: str) -> bool:
    """``rest`` names several values, one call each ("Berlin and Rome", "in Berlin or in Rome", "friday
    and saturday"): names or days, not words that hold "and" ("rock and roll", "for 4 people, name's
    Tom"); "Trinidad and Tobago" is one place (``places.split_names``)."""
    parts = places.split_names(rest)
    if len(parts) < 2:
        return False
    bare = [re.sub(r"^(?:in|at|for|on|to|from)\s+", "", p, flags=re.IGNORECASE) for p in parts]
    return all(places.is_proper_name(p) or _only_when(p, date(2000, 1, 1)) or p.isdigit() for p in bare)


def _one_call_each(tool: ToolSpec, rest: str, today: date, asked: str | None) -> bool:
    """``rest`` names several values of ``tool`` (``_a_list``) for parameters that hold one each: a place
    (``city``), a thing of a list (``item``), a date or a time; not a title or a query ("War and Peace",
    "Simon and Garfunkel"), nor a person's name asked for."""
    if not _a_list(rest) or _a_person(tool, asked):
        return False
    whole = _heard(tool, rest, today)
    properties = _properties(tool)
    return bool(whole) and all(
        spans.fits(name, ONE_PLACE)
        or items.takes_one_thing(name)
        or isinstance(properties.get(name), dict)
        and kinds.kind_of(name, properties[name]) in ("date", "time", "datetime", "enum")
        for name in whole
    )


def _said_as_values(
    tool: ToolSpec, changed: dict[str, Any], words: str, before: dict[str, Any], asked: str | None
) -> bool:
    """Each free string ``changed`` is said as a value is: a follow-up replaces a named place or person
    ("Paris") only with another name ("Berlin", "in berlin"), not with a word of the language ("And I'm
    hungry", "What about lunch?", "and bye"); the answer to a question for a person's name gives a
    name ("Tom", "name's tom"), not "hang on", "it's raining here" or "cancel"."""
    properties = _properties(tool)
    for name, value in changed.items():
        about = properties.get(name)
        if not isinstance(value, str) or not isinstance(about, dict) or about.get("enum"):
            continue
        if kinds.kind_of(name, about) not in ("string", "person"):
            continue
        if asked is None:
            if _names_a_place(name, before.get(name)) and not _said_as_name(value, words):
                return False
        elif name == asked and _a_person(tool, asked) and not _a_name(value, words):
            return False
    return True


# Parameters that hold only a place's name: a word of the language ("lunch") is never one.
_NAMED_PLACES = ("city", "town", "country")


def _names_a_place(parameter: str, replaced: Any) -> bool:
    """The value ``replaced`` (the previous call's for ``parameter``) is a name: written as one
    ("Paris"), a place the tables know typed in lower case ("paris"), or held by a parameter that takes
    only a place's name (``city``)."""
    if not isinstance(replaced, str):
        return False
    known = implied.place(replaced) is not None
    return _a_place_name(replaced) or known or spans.fits(parameter, _NAMED_PLACES)


def _said_as_name(value: str, words: str) -> bool:
    """``value`` is said in ``words`` as a name: written as one ("Berlin", "War and Peace"), a place
    the tables know ("berlin", written "Berlin"), or typed in lower case as the place a preposition ends
    the words with ("in smalltown?"); a language's name is none ("in French")."""
    if names.is_language(value):  # "can you say that in French?" asks for no city "French"
        return False
    joined = re.split(r"\s+(?:and|&)\s+", value)  # "War and Peace", "Simon and Garfunkel"
    if value in words and all(places.is_proper_name(part) for part in joined):
        return True
    if implied.place_name(value) == value and value.lower() in words.lower():
        return True
    return acting.said_as_value(value, words)


def _a_person(tool: ToolSpec, parameter: str | None) -> bool:
    """``parameter`` of ``tool`` holds a person's name (``name`` of a booking, ``guest``, ``pet``)."""
    about = _properties(tool).get(parameter or "")
    if parameter is None or not isinstance(about, dict):
        return False
    return names.takes_own_name(parameter, tool.name) or kinds.kind_of(parameter, about) == "person"


def _a_name(value: str, words: str) -> bool:
    """``value`` is a person's name in ``words``: written as a name ("Tom", "Hmm, Tom I guess"),
    introduced ("name's tom") or booked under ("under Tom"), marked by a title ("Dr. Who"), or all that
    was said ("tom smith") with no word of the language's actions or function words in it ("cancel",
    "hang on")."""
    if names.introduced(words) is not None or names.booked_under(words) is not None:
        return True
    titled = names.titled(value)
    if titled is not None and titled.value == value:  # "Dr. Who", whose "Who" is a word of the language
        return True
    people = re.split(r"\s+(?:and|&)\s+", value)  # "Tom and Jerry": one booking's name
    tokens = [t for person in people for t in lexicon.tokens(person)]
    if any(t.is_stop or t.concept in lexicon.ACTIONS or t.lower in _INTERJECTIONS for t in tokens):
        return False  # "Sorry, what?", "Cancel", "hang on"
    if all(places.is_proper_name(person) for person in people) and value in words:
        return True
    return words.strip(" .!?").lower() == value.lower()


def _heard(tool: ToolSpec, words: str, today: date) -> dict[str, Any]:
    """The arguments of ``tool`` that ``words`` fill themselves (no default, no null); a free string that
    is only a date or a time ("friday") fills none, a date parameter takes it."""
    vocabulary = intent.vocabulary_of(tool)
    filled = fill(tool.name, tool.parameters or {}, words, Referent(), today, vocabulary, tool.description)
    heard: dict[str, Any] = {}
    for name, value in filled.arguments.items():
        source = filled.sources.get(name, "")
        if source.startswith(_SKIPPED_SOURCES) or value is None:
            continue
        about = _properties(tool).get(name)
        typed = isinstance(about, dict) and kinds.kind_of(name, about) in ("date", "time", "datetime")
        if isinstance(value, str) and not typed and _only_when(value, today):
            continue
        heard[name] = value
    return heard


def _only_when(value: str, today: date) -> bool:
    found = values.dates(value, today) or values.times(value)
    return any(span.start == 0 and span.end >= len(value.rstrip(" ?.!")) for span in found)


def _properties(tool: ToolSpec) -> dict[str, Any]:
    return schema_values.properties_of(tool.parameters or {})


def _required(tool: ToolSpec) -> list[str]:
    return schema_values.required_of(tool.parameters or {})


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
