"""The brain's ``Reply`` as Chat Completions output: one ``Choice``, a ``chat.completion`` body, or the
``chat.completion.chunk`` stream, in the shapes of ``openai/types/chat/chat_completion*.py``.

A reply is fitted to the request before it is shaped (``fit_choice``), in this order:

1. ``tool_choice`` is obeyed exactly: ``none`` drops every call; otherwise only calls to offered tools
   stay; a named tool keeps one call to it; ``required`` / named with no call left is a brain bug
   (``BrainDisobeyed``). ``parallel_tool_calls: false`` keeps the first call.
2. ``response_format``: a text reply becomes JSON (``structured_text``); a ``json_schema`` object takes
   the values the user's last message (and the tool results after it) gives its properties
   (``_with_words``); a ``json_object`` one follows a schema the instructions give (``prompted_schema``).
3. ``stop``: the text ends before the earliest stop sequence, and no call follows it.
4. ``max_completion_tokens`` / ``max_tokens``: text, then each call's arguments, spend the budget; the
   part that does not fit is cut (arguments may end as invalid JSON, as on the live service) and the
   finish reason is ``length``. A call after the budget ran out is dropped.
5. ``logprobs: true``: the text that is left gets its tokens' log probabilities (``logprobs.py``); a
   choice without text gets ``{"content": null, "refusal": null}`` (our choice: the live service's for a
   tool-call-only message is not public).

A spoken reply (``modalities`` with "audio", ``chat.completion.speak``) has ``content: null`` and
``message.audio``; streamed, ``delta.audio`` pieces (``_audio_deltas``).

Streaming (observed on the live service): the first chunk carries ``role`` (with ``content: ""``, or with
``content: null`` and the first call's header when there is no text); text comes in word-sized pieces;
each tool call starts with a fragment holding ``index``, ``id``, ``type``, ``name`` and empty
``arguments``, then fragments with ``index`` and an ``arguments`` piece only; a last chunk has an empty
delta and the ``finish_reason``; with ``include_usage`` every chunk has ``usage: null`` and one more chunk
with ``choices: []`` carries the usage. Content chunks carry ``obfuscation`` padding unless the request
set ``stream_options.include_obfuscation: false``.
"""

from __future__ import annotations

import base64
import functools
import json
import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from mockengine.brain import implied, occasions, slots
from mockengine.brain.arguments import ArgumentsError
from mockengine.brain.fields import plural
from mockengine.brain.heard import heard_value
from mockengine.brain.kinds import kind_of
from mockengine.brain.lexicon import identifier_words
from mockengine.brain.model import ForcedTool, Reply, ToolCall
from mockengine.brain.referents import Referent
from mockengine.brain.schema_values import (
    Hints,
    admits_null,
    neutral_number,
    object_target,
    properties_of,
    value_for,
)
from mockengine.brain.utterance import acted_tail
from mockengine.brain.wordlists import FEELINGS
from mockengine.chat.audio import ChoiceAudio, stream_pieces
from mockengine.chat.logprobs import split_by_pieces, token_logprobs
from mockengine.chat.request import ChatRequest
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory

CHAT_ID_PREFIX = "chatcmpl-"
CHAT_ID_LENGTH = 29  # chatcmpl-AbC… as the live service names completions
CALL_ID_LENGTH = 24  # call_… ids of chat tool calls (24 characters on the live service)
_TEXT_PIECE = re.compile(r"\s*\S+|\s+")
_ARGUMENT_PIECE = re.compile(r"\s*\w+|\s*[^\w\s]+|\s+")


class BrainDisobeyed(RuntimeError):
    """The brain answered a ``required`` or named ``tool_choice`` without a call: a bug, never input."""


@dataclass(frozen=True)
class ShapedCall:
    id: str
    name: str
    arguments: str
    is_custom: bool = False

    def wire(self) -> dict[str, Any]:
        if self.is_custom:
            return {"id": self.id, "type": "custom", "custom": {"name": self.name, "input": self.arguments}}
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class Choice:
    """One fitted choice. ``text`` None means no message text (``content: null``). ``logprobs`` is the
    choice's ``logprobs`` object (``{"content": [...] | None, "refusal": None}``) when they were asked for,
    else None."""

    index: int
    text: str | None
    calls: tuple[ShapedCall, ...]
    finish_reason: str
    completion_tokens: int
    logprobs: dict[str, Any] | None = None
    # The spoken reply (``modalities`` with "audio", a choice without tool calls): ``text`` is then its
    # transcript and the message's ``content`` is null.
    audio: ChoiceAudio | None = None
    # The request used the legacy ``functions``: the one call is ``message.function_call``
    # (``delta.function_call`` streamed), not ``tool_calls``.
    legacy_function: bool = False


def fit_choice(
    reply: Reply, request: ChatRequest, index: int, ids: IdFactory, tokens: TokenCounter
) -> Choice:
    """``reply`` fitted to the request's tool_choice, response_format, stop sequences and token budget
    (module doc)."""
    calls = _obeyed_calls(reply, request)
    text = reply.text if reply.text is not None or calls else ""
    if text is not None and not calls and request.response_format != "text":
        text = structured_text(text, request, index, said=_last_user_text(request))
    elif text and not calls:
        text = _json_asked_in_words(text, request, index) or text
    finish = ("function_call" if request.legacy_functions else "tool_calls") if calls else "stop"
    if text and request.stop:
        cut = min((text.find(s) for s in request.stop if s and s in text), default=-1)
        if cut >= 0:
            text, calls, finish = text[:cut], [], "stop"
    # A custom tool's free text is what it is sent, so it is also what the budget is spent on.
    arguments = [_custom_input(c.arguments) if c.name in request.custom_tools else c.arguments for c in calls]
    if request.max_tokens is not None:
        text, arguments, cut_short = _within_budget(text, arguments, request.max_tokens, tokens)
        finish = "length" if cut_short else finish
    shaped = tuple(
        ShapedCall(ids.new("call_", CALL_ID_LENGTH), c.name, args, c.name in request.custom_tools)
        for c, args in zip(calls, arguments, strict=False)
    )
    used = tokens.count(text or "") + sum(tokens.count(c.arguments) for c in shaped)
    logprobs = None
    if request.logprobs:
        rng = random.Random(f"logprobs:{text}:{index}")
        content = token_logprobs(text, request.top_logprobs, tokens, rng) if text else None
        logprobs = {"content": content, "refusal": None}
    return Choice(index, text, shaped, finish, used, logprobs, legacy_function=request.legacy_functions)


def _obeyed_calls(reply: Reply, request: ChatRequest) -> list[ToolCall]:
    offered = {tool.name for tool in request.tools}
    choice = request.tool_choice
    calls = [] if choice == "none" else [c for c in reply.tool_calls if c.name in offered]
    if isinstance(choice, ForcedTool):
        calls = [c for c in calls if c.name == choice.name][:1]
    if (choice == "required" or isinstance(choice, ForcedTool)) and not calls:
        raise BrainDisobeyed(f"tool_choice {choice!r} but the reply ({reply.rule}) has no call to obey it")
    return calls if request.parallel_tool_calls else calls[:1]


def _within_budget(
    text: str | None, arguments: list[str], budget: int, tokens: TokenCounter
) -> tuple[str | None, list[str], bool]:
    """Text, then each call's arguments, spend ``budget`` tokens: what does not fit is cut, and a call
    after the budget ran out is dropped (the first call always stays). Returns whether anything was cut."""
    text_tokens = tokens.count(text or "")
    if text_tokens > budget:
        return truncate(text or "", budget, tokens), [], True
    remaining = budget - text_tokens
    for number, argument in enumerate(arguments):
        cost = tokens.count(argument)
        if cost > remaining:
            kept = number + 1 if number == 0 or remaining > 0 else number
            cut = [*arguments[:number], truncate(argument, remaining, tokens)]
            return text, cut[:kept], True
        remaining -= cost
    return text, arguments, False


def _json_asked_in_words(text: str, request: ChatRequest, index: int) -> str | None:
    """A text reply as the JSON the messages ask for in words, with no ``response_format`` and no tools:
    a JSON Schema of an object in the system, developer or user text (``prompted_schema``) and the word
    "JSON" in a system or developer message or the newest user message, as instructor's ``Mode.MD_JSON``
    and LangChain's ``PydanticOutputParser`` ask ("The output should be formatted as a JSON instance that
    conforms to the JSON schema below."). A model writes the JSON; in a ```` ```json ```` block when the
    words ask for a code block. None (the reply stays words) when not asked, or when no value valid for
    the schema could be made."""
    if request.tools or request.audio is not None or not _asks_for_json(request):
        return None
    if prompted_schema(request) is None:
        return None
    said = _last_user_text(request)
    # LangChain's prompt holds the schema, then the query: the words are what follows the schema
    after = max(said.rfind("}") + 1, said.rfind("```") + 3 if "```" in said else 0)
    if said[after:].strip() and _schema_in((said,)) is not None:
        said = said[after:]
    written = _structured(text, request, index, said, wrap=False)
    if written is None:
        return None
    fenced = any(_CODE_BLOCK.search(_flat_text(m.get("content"))) for m in request.messages)
    return f"```json\n{written}\n```" if fenced else written


def _asks_for_json(request: ChatRequest) -> bool:
    newest_user = next((m for m in reversed(request.messages) if m.get("role") == "user"), None)
    return any(
        (message.get("role") in ("system", "developer") or message is newest_user)
        and _JSON_WORD.search(_flat_text(message.get("content")))
        for message in request.messages
    )


# JSON asked for, not only named: "in/as JSON", "a JSON object/instance/response/code block", "return/
# respond … JSON" as an order, "valid JSON". "Can you explain what this JSON schema validates? {…}" or "My
# API returns JSON" name it and ask for words.
_JSON_WORD = re.compile(
    r"\b(?:in|as|into)\s+(?:valid\s+|a\s+|an\s+|the\s+)?json\b"
    r"|\bjson[\s_-]+(?:object|instance|response|output|format|only|code\s*block|codeblock|block|document|reply"
    r"|answer)s?\b"
    r"|(?:^|[.!?:;\n]\s*|\b(?:please|must|should|always|only|to)\s+)(?:return|respond|reply|answer|output"
    r"|produce|provide|give|write|emit|generate)\b[^.\n]{0,40}\bjson\b"
    r"|\bvalid\s+json\b(?!\s+schema)",
    re.IGNORECASE,
)
_CODE_BLOCK = re.compile(r"```json|\bcode ?block\b", re.IGNORECASE)


def structured_text(text: str, request: ChatRequest, index: int, said: str = "") -> str:
    """The reply as the JSON ``response_format`` asks for: ``{"response": text}`` for ``json_object``
    (unless the instructions give a schema: ``prompted_schema``, then as for it); for ``json_schema`` a
    value built from the schema (strings lean on the reply's words), seeded by the reply
    and the choice index, whose properties take what the user ``said`` where it fills them
    (``_with_words``). Raises ``ArgumentsError`` when no value could be built for the schema."""
    written = _structured(text, request, index, said, wrap=True)
    assert written is not None  # wrap: the wrapper stands in for a prompted schema no value fits
    return written


def _structured(text: str, request: ChatRequest, index: int, said: str, wrap: bool) -> str | None:
    """``structured_text``; where it would write the ``{"response": …}`` wrapper, None unless ``wrap``."""
    wrapper = json.dumps({"response": text}, ensure_ascii=False) if wrap else None
    schema = request.response_schema
    prompted = schema is None
    if schema is None:
        schema = prompted_schema(request)
    if schema is None and request.response_format == "json_object":
        keys, listed = keys_named(request), frozenset[str]()
        if not keys:  # 'Respond in JSON like {"name": "...", "hobbies": ["..."]}': the example's keys
            keys, listed = keys_shown(request)
        if keys:  # "Return JSON with keys name and age": those keys, from the words or null
            named = _schema_of_keys(keys, listed)
            blank: dict[str, Any] = {key: [] if key in listed or _lists(key) else None for key in keys}
            said = _without_format_request(said)
            return json.dumps(_with_words(blank, named, said, Draft202012Validator(named)) if said else blank)
    if schema is None:
        return wrapper
    validator = Draft202012Validator(schema)
    try:
        value = value_for(schema, random.Random(f"{text}:{index}"), Hints(text=text or None))
    except (ArgumentsError, RecursionError):
        if not prompted:
            raise
        value = None
    if prompted and not validator.is_valid(value):  # instructions, not a contract: the plain wrapper
        return wrapper
    if not validator.is_valid(value):
        raise ArgumentsError(f"built content {value!r} does not match the response_format schema")
    if text:
        # The reply's words are one string's filler, never a list's item ("hobbies": ["You said …"]):
        # an array the builder filled with them is emptied where the schema allows.
        emptied = _without_item(value, text)
        value = emptied if validator.is_valid(emptied) else value
    if said and isinstance(value, dict):
        value = _with_words(value, schema, said, _format_checked(validator, value))
    return json.dumps(value, ensure_ascii=False)


def _format_checked(validator: Draft202012Validator, built: Any) -> Draft202012Validator:
    """``validator`` checking string ``format``s too (``uuid``, ``email``, ``date``, …, those jsonschema
    checks without extra packages) when the ``built`` value passes it, so that no words put in later (a
    ``"name"`` the filler read for an ``id``, the ``"unknown"`` of an identifier nobody said) break a
    format the live model keeps; else ``validator`` as it is (a format the builder does not write, such
    as ``ipv4``, must not keep every word out)."""
    checked = Draft202012Validator(validator.schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return checked if checked.is_valid(built) else validator


def _without_item(value: Any, text: str) -> Any:
    """``value`` with every array item equal to ``text`` left out, at any depth."""
    if isinstance(value, dict):
        return {key: _without_item(item, text) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_item(item, text) for item in value if item != text]
    return value


def _with_words(
    value: dict[str, Any], schema: dict[str, Any], said: str, validator: Draft202012Validator
) -> dict[str, Any]:
    """``value`` (a valid object) with each top-level property the user's words fill, as a call's
    arguments are filled (``slots.fill``: "It is 21 degrees in Paris" → ``city: Paris``,
    ``temperature_c: 21``), where the whole still validates. Typed values (numbers, options, dates,
    addresses, codes) are taken as filled; a free string only when it is a name ("Paris", "New York",
    "Alice": the argument filler reads requests, and of a statement such as "Paris is sunny" it may keep
    the whole), never one meant for the reply itself (``summary``, ``answer``, ``explanation``…), which
    keeps the reply's words; a list of strings when each is a name (``participants: ["Alice", "Bob"]``,
    read alone when the whole took none); an object only when built from its parts (Pydantic models); the
    one number property the filler placed nowhere takes the first number said.
    An occasion (a name or title beside a date or a list of participants, ``occasions.is_occasion``)
    takes its title as said for its name ("science fair", never the sentence) and the people named
    outside it for its participants."""
    today = datetime.now(UTC).date().isoformat()
    said = _without_social(said)
    heard_values = _filled_from_words(_canonical_json(schema), said, today) if said else {}
    properties = properties_of(schema)
    for name, about in properties.items():
        if name not in heard_values and isinstance(about, Mapping) and kind_of(name, about) == "list":
            # a list of strings read alone: read with the rest, a string property such as an event's
            # ``name`` takes the names first ("Alice and Bob are going to a science fair")
            alone = {"type": "object", "properties": {name: about}, "required": [name]}
            heard_values = {**heard_values, **_filled_from_words(_canonical_json(alone), said, today)}
    titles: set[str] = set()  # an occasion's title properties, filled with its title
    taken: set[str] = set()  # the properties the words gave a value
    if occasions.is_occasion(properties):
        # an occasion's name is what it is ("science fair"), its people the names said outside it
        titled = occasions.title(said)
        heard_values = dict(heard_values)
        for name, about in properties.items():
            if not isinstance(about, Mapping):
                continue
            kind = kind_of(name, about)
            if (
                titled is not None
                and kind in ("string", "person")
                and _TITLE & set(identifier_words(name).split())
            ):
                heard_values[name] = titled.value
                titles.add(name)
            elif kind == "list" and occasions.takes_people(name):
                heard_values[name] = occasions.people(said, titled) or heard_values.get(name)
    for name, about in properties.items():
        # how the user feels ("mood": "happy" of "I'm 31 and happy"): the filler reads requests and
        # keeps a phrase ("name and happy"), so the feeling word said is read here
        if isinstance(about, Mapping) and about.get("type") == "string" and "enum" not in about:
            if not _FEELING_PROPERTY & set(identifier_words(name).split()):
                continue
            # none said: "unknown" (our choice; the reply's sentence is no mood)
            heard_values = {**heard_values, name: _feeling_said(said) or "unknown"}
            titles.add(name)  # taken as said, though no name
    for name, about in properties.items():
        # the weather said ("sunny" of "It is 21 degrees and sunny in Paris"): no name, so the filler's
        # reading was dropped and the reply's own sentence stood in for the conditions ("You said …")
        if (
            isinstance(about, Mapping)
            and about.get("type") == "string"
            and "enum" not in about
            and _CONDITIONS_PROPERTY & set(identifier_words(name).split())
        ):
            look = _conditions_said(said)
            if look is not None:
                heard_values = {**heard_values, name: look}
                titles.add(name)
    unread = [
        name
        for name, about in properties.items()
        if name not in heard_values
        and isinstance(about, Mapping)
        and about.get("type") in ("integer", "number")
    ]
    if len(unread) == 1:
        # the one number the filler placed nowhere ("Extract: John Doe is 30 years old", LlamaIndex's
        # prompts): the number said, as a forced call's missing parameter takes it (forced.from_words)
        number = heard_value(acted_tail(said), unread[0], properties[unread[0]])
        if number is not None:
            heard_values = {**heard_values, unread[0]: number}
    for name, heard in heard_values.items():
        about = properties.get(name)
        if heard is None or name not in value or not isinstance(about, Mapping):
            continue
        # A nested Pydantic model arrives as a local ``$ref`` (``address: {"$ref": "#/$defs/Address"}``),
        # which ``kind_of`` reads as a string; the object the words built is taken as an inline one is.
        kind = "object" if object_target(about, schema) is not None else kind_of(name, about)
        if kind == "list":  # the people or places said ("Alice", "Bob"), or things listed; never phrases
            if isinstance(heard, list) and heard and not all(_a_name(item) for item in heard):
                heard = _listed_things(heard)
            if heard:
                candidate = {**value, name: heard}
                if validator.is_valid(candidate):
                    value, taken = candidate, taken | {name}
            continue
        if (
            (kind == "person" or "name" in identifier_words(name).split())
            and not _a_name(heard)
            and name not in titles
        ):
            # "John Smith is 42 and lives in Berlin": the filler's "John Smith and lives" opens with the
            # name; a name some list already holds ("Alice and Bob" of the participants) is no one's own
            opening = _OPENING_NAME.match(heard) if isinstance(heard, str) else None
            listed = {v for other in heard_values.values() if isinstance(other, list) for v in other}
            heard = opening.group(0) if opening is not None and opening.group(0) not in listed else heard
        elif implied.holds_place(name) and isinstance(heard, str) and not _a_name(heard):
            # "Paris is sunny." read whole for ``city``: the place it opens with, where it is one (it was
            # the reply's sentence, then "unknown")
            opening = _OPENING_NAME.match(heard)
            place = implied.place_name(opening.group(0)) if opening is not None else None
            heard = place if place is not None and heard.startswith(place) else heard
        if (
            kind in ("string", "person")
            and name not in titles
            and (_SAYS_THE_REPLY & set(identifier_words(name).split()) or not _a_name(heard))
        ):
            continue
        candidate = {**value, name: heard}
        if validator.is_valid(candidate):
            value, taken = candidate, taken | {name}
    for name, about in properties.items():
        # "I don't have any hobbies", "I have no pets": the list the words deny is empty, as a model writes
        # it (the filler took "any hobbies" for the one thing listed)
        if isinstance(about, Mapping) and kind_of(name, about) == "list" and _denied(name, said):
            candidate = {**value, name: []}
            if validator.is_valid(candidate):
                value, taken = candidate, taken | {name}
    return _unsaid(value, properties, taken, validator)


def _unsaid(
    value: dict[str, Any], properties: Mapping[str, Any], taken: set[str], validator: Draft202012Validator
) -> dict[str, Any]:
    """``value`` with each top-level property the words gave nothing made what a model writes for a
    field nobody spoke of, where the whole still validates: null where the schema admits it (a strict
    schema's optional field, ``Optional[int]``; a string meant for the reply itself keeps the reply's
    words), else for a number the neutral one, 0 or the bound nearest it (our choice: an ``age`` nobody
    said was a drawn number, 6, which reads as said), and for a string that holds a value of its own (a
    name, a place, a contact, an identifier: ``_own_value``) ``"unknown"``, as for a mood nobody said
    (our choice: a required ``name`` was the reply's sentence, "You said …", which no one is called).
    Other strings (a poem, a title the reply may be), lists and options keep what was built."""
    for name, about in properties.items():
        if name in taken or name not in value or not isinstance(about, Mapping):
            continue
        kind = kind_of(name, about)
        reply_words = kind == "string" and bool(_SAYS_THE_REPLY & set(identifier_words(name).split()))
        if admits_null(about) and not reply_words:
            unsaid: Any = None
        elif isinstance(value[name], int | float) and not isinstance(value[name], bool):
            unsaid = neutral_number(about)
        elif isinstance(value[name], str) and "enum" not in about and _own_value(name, kind):
            unsaid = "unknown"
        else:
            continue
        candidate = {**value, name: unsaid}
        if validator.is_valid(candidate):
            value = candidate
    return value


def _own_value(name: str, kind: str) -> bool:
    """Property ``name`` (of ``kind``, ``kinds.kind_of``) holds a value of its own that the reply's words
    never are: a name (``name``, ``first_name``, ``username``), a place (``city``, ``location``), a
    contact or an identifier."""
    return (
        kind in ("person", "address", "patterned", "identifier")
        or "name" in identifier_words(name).split()
        or implied.holds_place(name)
    )


def _denied(name: str, said: str) -> bool:
    """Whether ``said`` denies having what the list property ``name`` holds: "I don't have any hobbies",
    "I have no pets", "no allergies", "none" of "hobbies: none"; its name's last word, singular or plural,
    after the denial."""
    words = identifier_words(name).split()
    if not words:
        return False
    noun = re.escape(words[-1][:-3] if words[-1].endswith("ies") else words[-1].rstrip("s"))
    return (
        re.search(
            r"\b(?:(?:do|does|did)(?:\s*n[o']t|\s+not)\s+have|(?:have|has|had|got)\s+(?:no|none|zero)"
            r"|without|\bno)\s+(?:any\s+|real\s+|particular\s+)?(?:[a-z-]+\s+)?"
            + noun
            + r"(?:s|es|ies|y)?\b",
            said,
            re.IGNORECASE,
        )
        is not None
    )


@functools.lru_cache(maxsize=256)
def _filled_from_words(schema_json: str, said: str, today: str) -> dict[str, Any]:
    """``slots.fill``'s arguments for the response schema (JSON) from ``said`` (of a long message its end,
    as for a call): a few milliseconds, the same for every choice of ``n`` and for a repeated request."""
    filled = slots.fill(
        "response", json.loads(schema_json), acted_tail(said), Referent(), date.fromisoformat(today)
    )
    return filled.arguments


# A verb or preposition that opens a list of things ("likes chess and hiking", "such as tea or coffee"):
# the list is what follows its last one.
_LIST_OPENER = re.compile(
    r"^.*\b(?:likes?|loves?|enjoys?|plays?|prefers?|speaks?|collects?|includes?|including|into|such as"
    r"|wants?|needs?|bought|ordered|has|have|are|were)\s+",
    re.IGNORECASE,
)
# The most words a listed thing has ("chess", "rock climbing", "board games online").
_THING_WORDS = 3


def _listed_things(heard: list[Any]) -> list[str] | None:
    """The things a coordinated list at the end of the words names, from the filler's pieces of it:
    ``["Extract Alice is 30", "likes chess", "hiking"]`` → ``["chess", "hiking"]``. The list is the run of
    short pieces (at most three words, no digits) at the end; its first piece loses the verb that opens
    it ("likes chess" → "chess"); a run that is every piece needs no such verb (the filler took it off:
    ``["chess", "reading"]``). None when no such run has a piece opened by such a verb, or a piece
    the verb leaves empty (then the pieces are phrases, not things)."""
    run: list[str] = []
    opened = False
    for piece in reversed(heard):
        if not isinstance(piece, str):
            return None
        stripped = _LIST_OPENER.sub("", piece).strip(" .,;:!?")
        opens = stripped != piece.strip(" .,;:!?")
        if not stripped or len(stripped.split()) > _THING_WORDS or any(c.isdigit() for c in stripped):
            break
        run.insert(0, stripped)
        if opens:
            opened = True
            break
    # the filler took the verb off already ("I like chess and reading" → ["chess", "reading"]): every
    # piece is a short thing, so the whole is the list; one piece alone ("hello", "name is Bob") is no
    # list, only words the filler kept
    return run if opened or len(run) == len(heard) > 1 else None


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# Words in a property's name that ask for the reply's own words, not a value the user said.
_SAYS_THE_REPLY = frozenset(
    ("summary", "answer", "response", "reply", "text", "message", "explanation", "reason", "reasoning")
    + ("description", "content", "comment", "comments", "notes", "details", "feedback", "output", "result")
)


# Words in a property's name that ask how someone feels ("mood", "feeling", "emotional_state").
_FEELING_PROPERTY = frozenset(("mood", "feeling", "feelings", "emotion", "emotional", "sentiment"))
# A feeling (``wordlists.FEELINGS``) said of oneself: "I'm happy", "and happy", "I feel a bit tired",
# "feeling not great"; not a skill or a relation ("good at chess", "happy with the service").
_FEELING_SAID = re.compile(
    r"\b(?:i'?m|i\s+am|am|is|was|feel|feels|feeling|felt|and|but|so|very|pretty|really|quite|bit|super)"
    r"\s+(?P<feeling>(?:not\s+)?(?:"
    + "|".join(sorted(FEELINGS, key=lambda word: (-len(word), word)))
    + r"))\b(?!\s+(?:at(?!\s+all\b)|with|for|to|of)\b)",
    re.IGNORECASE,
)


_CONDITIONS_PROPERTY = frozenset(("condition", "conditions", "weather", "sky", "outlook", "forecast"))
# The weather as said, with the word that grades it ("partly cloudy", "light rain", "heavy snow").
_CONDITIONS_SAID = re.compile(
    r"\b(?P<look>(?:(?:partly|mostly|very|light|heavy|scattered|freezing|patchy)\s+)?"
    r"(?:sunny|cloudy|overcast|rainy|rain|raining|showers|drizzle|drizzly|snow|snowy|snowing|foggy"
    r"|fog|misty|mist|windy|stormy|thunderstorms?|hazy|haze|hail|sleet|humid"
    # "clear" and "fair" of the sky end the phrase or go on to it ("clear skies", "fair and mild"); "it's
    # clear that …", "a fair price" say no weather
    r"|(?:clear|fair)(?!\s+(?!(?:and|skies|sky|weather|today|tonight|now|out)\b)[a-z])))\b",
    re.IGNORECASE,
)


def _conditions_said(said: str) -> str | None:
    """The weather the user said ("sunny", "light rain", "partly cloudy"; two joined by "and": "windy and
    rainy"), lower-cased; None when no common weather word is said."""
    found = [m.group("look").lower() for m in _CONDITIONS_SAID.finditer(said)]
    if not found:
        return None
    return " and ".join(dict.fromkeys(" ".join(look.split()) for look in found[:2]))


def _feeling_said(said: str) -> str | None:
    """The first feeling the user said of themselves ("happy" of "My name is Alice, I'm 31 and happy";
    "not happy" kept whole; "Great, my name is Alice" says none), lower-cased; None when none of the
    common ones is said."""
    found = _FEELING_SAID.search(said)
    return " ".join(found.group("feeling").lower().split()) if found is not None else None


# Words in a property's name that ask for an occasion's title ("name", "title", "event_name").
_TITLE = frozenset(("name", "title", "event"))

# One to four capitalised words at the start of a value: a person's name.
_OPENING_NAME = re.compile(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3}(?=\s|$)")


# A sentence that only greets, thanks or takes leave ("Hello!", "Hi there.", "Thanks!"): it tells no value,
# so no name is "Hello" and no list holds it.
_ONLY_SOCIAL = re.compile(
    r"^\W*(?:(?:hello|hi|hiya|hey|howdy|greetings|good\s+(?:morning|afternoon|evening|day)|thanks|thank\s+you"
    r"|cheers|bye|goodbye)(?:\s+(?:there|everyone|all|so\s+much|a\s+lot))?[\s,]*)+\W*$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _without_social(said: str) -> str:
    """``said`` without its sentences that only greet, thank or say goodbye ("Hello! I'm Bob." → "I'm
    Bob.")."""
    kept = [part for part in _SENTENCE_END.split(said) if part.strip() and not _ONLY_SOCIAL.match(part)]
    return " ".join(kept)


def _a_name(value: Any) -> bool:
    """``value`` is a string of one to four capitalised words ("Paris", "New York", "Alice Smith")."""
    words = value.split() if isinstance(value, str) else []
    return 0 < len(words) <= 4 and all(word[:1].isupper() for word in words)


def _last_user_text(request: ChatRequest) -> str:
    """The text of the last user message and of the tool results after it (what a structured reply
    answers: the Agents SDK's ``output_type`` after a tool call reports what the tool found), else ""."""
    after: list[str] = []
    for message in reversed(request.messages):
        if message.get("role") == "tool":
            after.insert(0, _flat_text(message.get("content")))
        elif message.get("role") == "user":
            return " ".join([_flat_text(message.get("content")), *after])
    return ""


def prompted_schema(request: ChatRequest) -> dict[str, Any] | None:
    """The JSON Schema of an object that a ``json_object`` request's instructions ask the reply to follow
    (pydantic-ai's ``PromptedOutput``: "Always respond with a JSON object that's compatible with this
    schema: {…}"; LangChain's ``json_mode`` with the schema in the prompt), else None. A model follows it;
    a ``{"response": …}`` wrapper fails the client's validation. Only system, developer and user text
    of up to 64 KiB is searched, the first 32 objects each; of a text, the last schema in it (not one
    inside another), of the texts the first that holds one."""
    texts = [
        _flat_text(message.get("content"))
        for message in request.messages
        if message.get("role") in ("system", "developer", "user")
    ]
    # Only small texts that may hold one are searched (and kept as the cache's key).
    found = _schema_in(
        tuple(t for t in texts if len(t) <= _PROMPTED_SCHEMA_MAX_CHARS and '"properties"' in t)
    )
    return json.loads(found) if found is not None else None


# "Return JSON with keys name and age", "with the fields `name`, `age` and `city`", "keys: name, age": the
# keys a json_object reply is told to have, named in words rather than by a schema.
# "keys like `name`, `hobbies`", "Keys: name (string), hobbies (list of strings)": a key's type may follow
# it in brackets, and "like", "such as" or "including" may open the list.
_KEY = r"[\"'`]?[A-Za-z_]\w{0,40}[\"'`]?(?:\s*\([^()]{0,40}\))?"
_KEYS_NAMED = re.compile(
    r"\b(?:keys?|fields?|properties|attributes)\s*(?:called|named|like|such\s+as|including)?\s*:?\s*"
    rf"(?P<keys>{_KEY}(?:\s*(?:,\s*(?:and\s+)?|\s+and\s+){_KEY})+)",
    re.IGNORECASE,
)
# "Extract the user's name and hobbies as JSON", "Return their name, age and city in JSON": the things
# asked for, each a key, when two or more are listed.
_EXTRACTED_AS_JSON = re.compile(
    r"\b(?:extract|return|give|get|output|list|provide)\s+(?:me\s+)?(?:the\s+|their\s+|his\s+|her\s+"
    r"|the\s+(?:user|person|customer|caller)'?s?\s+|(?:the\s+)?(?:user|person|customer|caller)'s\s+)?"
    r"(?P<keys>[A-Za-z_]\w{0,40}(?:\s*(?:,\s*(?:and\s+)?|\s+and\s+)[A-Za-z_]\w{0,40})+)"
    r"\s+(?:as|in|into)\s+(?:a\s+|an\s+)?(?:valid\s+)?json\b",
    re.IGNORECASE,
)
# An example object shown in words: flat, its values placeholders or lists of them ("...", string, 0,
# ["..."]), no object inside.
_SHOWN_OBJECT = re.compile(r"\{[^{}]{1,2000}\}")
_SHOWN_PAIR = re.compile(r"[\"']([A-Za-z_]\w{0,40})[\"']\s*:\s*(\[|[^,\]}]+)")
_NUMBER_KEYS = frozenset(("age", "count", "quantity", "number", "year", "amount", "price", "total", "score"))
# Plural nouns a model writes as one text, not a list.
_TEXT_PLURALS = frozenset(
    ("news", "series", "species", "details", "notes", "comments", "instructions", "directions", "lyrics")
)


def _lists(key: str) -> bool:
    """Key ``key`` names several things (``hobbies``, ``favorite_foods``): a model writes a list of
    strings, [] when none were said (it was a string, so the filler's placeholder, "Hobbies", or the
    user's words stood in)."""
    words = identifier_words(key).split()
    return bool(words) and words[-1] not in _TEXT_PLURALS and key.lower() not in _NUMBER_KEYS and plural(key)


def keys_named(request: ChatRequest) -> list[str]:
    """The keys a ``json_object`` request's system, developer or user words name for the reply ("Return
    JSON with keys name and age" → ``["name", "age"]``), in order; [] when none are named so."""
    for message in request.messages:
        if message.get("role") not in ("system", "developer", "user"):
            continue
        text = _flat_text(message.get("content"))[:_PROMPTED_SCHEMA_MAX_CHARS]
        found = _KEYS_NAMED.search(text) or _EXTRACTED_AS_JSON.search(text)
        if found is not None:
            # a key's type in brackets after it ("hobbies (list of strings)") is no part of its name
            keys = re.sub(r"\s*\([^()]{0,40}\)", "", found.group("keys"))
            names = [k.strip("\"'` ") for k in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", keys)]
            return list(dict.fromkeys(k for k in names if k))
    return []


def keys_shown(request: ChatRequest) -> tuple[list[str], frozenset[str]]:
    """The keys of an example object a ``json_object`` request's system, developer or user words show
    the reply ('Respond in JSON like {"name": "...", "hobbies": ["..."]}', ``{"name": string, "age":
    number}``): its keys in order, and those whose example is a list; ``([], ∅)`` when none is shown. A
    JSON Schema is no example (``prompted_schema`` reads it); nor is an object holding objects."""
    for message in request.messages:
        if message.get("role") not in ("system", "developer", "user"):
            continue
        text = _flat_text(message.get("content"))[:_PROMPTED_SCHEMA_MAX_CHARS]
        for shown in _SHOWN_OBJECT.finditer(text):
            pairs = _SHOWN_PAIR.findall(shown.group(0))
            keys = [key for key, _ in pairs]
            if len(pairs) < 1 or "properties" in keys or "type" in keys:
                continue
            return keys, frozenset(key for key, value in pairs if value.startswith("["))
    return [], frozenset()


def _without_format_request(said: str) -> str:
    """The user's words without the sentence asking for the keys ("Return JSON with keys name and age.
    Tell me about Bob" → "Tell me about Bob"): that sentence names the keys, no values."""
    found = _KEYS_NAMED.search(said)
    if found is None:
        return said
    start = max(said.rfind(mark, 0, found.start()) for mark in ".!?\n")
    rest = re.sub(r"^\s*[.:;!?\-—]*\s*", "", said[found.end() :])
    return f"{said[: start + 1] if start >= 0 else ''} {rest}".strip()


def _schema_of_keys(keys: list[str], listed: frozenset[str] = frozenset()) -> dict[str, Any]:
    """An object of ``keys``: a count or age a nullable number, a plural noun (``hobbies``, ``tags``) or a
    key in ``listed`` (an example showed a list) a list of strings, the rest nullable strings."""

    def typed(key: str) -> dict[str, Any]:
        if key in listed or _lists(key):
            return {"type": "array", "items": {"type": "string"}}
        return {"type": ["integer", "null"] if key.lower() in _NUMBER_KEYS else ["string", "null"]}

    return {
        "type": "object",
        "properties": {key: typed(key) for key in keys},
        "required": keys,
        "additionalProperties": False,
    }


@functools.lru_cache(maxsize=64)
def _schema_in(texts: tuple[str, ...]) -> str | None:
    """``prompted_schema``'s search (its JSON, so the cached value cannot be changed by a caller): once
    per request, not once per choice of ``n``."""
    decoder = json.JSONDecoder()
    for text in texts:
        found: Any = None
        start = text.find("{")
        for _ in range(32):
            if start < 0:
                break
            try:
                value, end = decoder.raw_decode(text, start)
            except (ValueError, RecursionError):
                value, end = None, start + 1
            if _an_object_schema(value):
                # the last one of the text, whole: LangChain's format instructions show an example
                # schema before "Here is the output schema:"; none of its nested schemas
                found = value
            else:
                end = start + 1
            start = text.find("{", end)
        if found is not None:
            return json.dumps(found)
    return None


_PROMPTED_SCHEMA_MAX_CHARS = 64 * 1024


def _an_object_schema(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("properties"), dict):
        return False
    if value.get("type", "object") != "object":
        return False
    try:
        Draft202012Validator.check_schema(value)
    except SchemaError:
        return False
    return True


def _custom_input(arguments: str) -> str:
    """A custom tool's free text: the brain fills the one-string ``input`` object the tool was offered
    as (``request.CUSTOM_TOOL_PARAMETERS``); anything else is sent as written."""
    try:
        data = json.loads(arguments)
    except ValueError:
        return arguments
    return data["input"] if isinstance(data, dict) and isinstance(data.get("input"), str) else arguments


def truncate(text: str, budget: int, tokens: TokenCounter) -> str:
    """The longest prefix of ``text`` that counts at most ``budget`` tokens (binary search on length),
    without trailing whitespace: in BPE vocabularies a space starts the next token."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if tokens.count(text[:middle]) <= budget:
            low = middle
        else:
            high = middle - 1
    return text if low == len(text) else text[:low].rstrip()


def usage(
    prompt_tokens: int, completion_tokens: int, prompt_audio_tokens: int = 0, completion_audio_tokens: int = 0
) -> dict[str, Any]:
    """The ``usage`` object; the audio tokens are part of the prompt and completion totals."""
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": prompt_audio_tokens},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": completion_audio_tokens,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


@dataclass(frozen=True)
class Envelope:
    """What every body or chunk of one completion repeats."""

    id: str
    created: int
    model: str
    system_fingerprint: str
    # The tier that served the request: the requested ``service_tier`` ("flex", "priority", "scale")
    # as the live service reports it, "default" for "auto", "default" or none (``reported_tier``).
    service_tier: str = "default"

    def fields(self, kind: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": kind,
            "created": self.created,
            "model": self.model,
            "service_tier": self.service_tier,
            "system_fingerprint": self.system_fingerprint,
        }


def reported_tier(requested: Any) -> str:
    """The ``service_tier`` a response reports for the requested one: the live service names the tier
    that served it, which is the one asked for ("flex", "priority", "scale") and "default" for "auto"
    or when none was asked."""
    return requested if requested in ("flex", "priority", "scale") else "default"


def completion_body(
    envelope: Envelope, choices: list[Choice], prompt_tokens: int, prompt_audio_tokens: int = 0
) -> dict[str, Any]:
    """The ``chat.completion`` object."""
    body = envelope.fields("chat.completion")
    body["choices"] = [
        {"index": c.index, "message": _message(c), "logprobs": c.logprobs, "finish_reason": c.finish_reason}
        for c in choices
    ]
    body["usage"] = _choices_usage(choices, prompt_tokens, prompt_audio_tokens)
    return body


def _choices_usage(choices: list[Choice], prompt_tokens: int, prompt_audio_tokens: int) -> dict[str, Any]:
    completion_audio = sum(c.audio.tokens for c in choices if c.audio is not None)
    completion = sum(c.completion_tokens for c in choices)
    return usage(prompt_tokens, completion, prompt_audio_tokens, completion_audio)


def _message(choice: Choice) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if choice.audio is not None else choice.text,
        "refusal": None,
        "annotations": [],
    }
    if choice.audio is not None:
        message["audio"] = choice.audio.wire()
    if choice.calls and choice.legacy_function:
        [call] = choice.calls
        message["function_call"] = {"name": call.name, "arguments": call.arguments}
    elif choice.calls:
        message["tool_calls"] = [call.wire() for call in choice.calls]
    return message


def stream_chunks(
    envelope: Envelope,
    choices: list[Choice],
    prompt_tokens: int,
    *,
    include_usage: bool,
    obfuscation: IdFactory | None,
    prompt_audio_tokens: int = 0,
) -> Iterator[dict[str, Any]]:
    """Every ``chat.completion.chunk`` of the stream, choice after choice, then the usage chunk."""
    for choice in choices:
        pieces = _TEXT_PIECE.findall(choice.text or "")
        content = (choice.logprobs or {}).get("content")
        shared = iter(split_by_pieces(content, pieces)) if content else None
        for delta, finish in _deltas(choice):
            logprobs = None
            if shared is not None and delta.get("content"):
                logprobs = {"content": next(shared), "refusal": None}
            chunk = envelope.fields("chat.completion.chunk")
            chunk["choices"] = [
                {"index": choice.index, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
            ]
            if include_usage:
                chunk["usage"] = None
            if obfuscation is not None and finish is None:
                chunk["obfuscation"] = obfuscation.obfuscation()
            yield chunk
    if include_usage:
        chunk = envelope.fields("chat.completion.chunk")
        chunk["choices"] = []
        chunk["usage"] = _choices_usage(choices, prompt_tokens, prompt_audio_tokens)
        yield chunk


def _deltas(choice: Choice) -> Iterator[tuple[dict[str, Any], str | None]]:
    if choice.audio is not None:
        yield from _audio_deltas(choice, choice.audio)
        return
    pending: dict[str, Any] = {"role": "assistant", "content": "" if choice.text is not None else None}
    pending["refusal"] = None
    if choice.text:
        yield pending, None
        pending = {}
        for piece in _TEXT_PIECE.findall(choice.text):
            yield {"content": piece}, None
    if choice.legacy_function:
        for call in choice.calls:  # one at most
            yield {**pending, "function_call": {"name": call.name, "arguments": ""}}, None
            pending = {}
            for piece in _ARGUMENT_PIECE.findall(call.arguments):
                yield {"function_call": {"arguments": piece}}, None
    for number, call in enumerate(() if choice.legacy_function else choice.calls):
        header = call.wire()
        field = "custom" if call.is_custom else "function"
        argument_key = "input" if call.is_custom else "arguments"
        header[field][argument_key] = ""
        yield {**pending, "tool_calls": [{"index": number, **header}]}, None
        pending = {}
        for piece in _ARGUMENT_PIECE.findall(call.arguments):
            yield {"tool_calls": [{"index": number, field: {argument_key: piece}}]}, None
    if pending:
        yield pending, None
    yield {}, choice.finish_reason


def _audio_deltas(choice: Choice, audio: ChoiceAudio) -> Iterator[tuple[dict[str, Any], str | None]]:
    """A spoken reply streamed: the role (``content: null``), then ``delta.audio`` pieces, the first with
    the ``id``: per sentence its transcript word by word, then its PCM16 in base64 pieces; then a delta
    with only ``expires_at`` (no finish reason, as the SDK documents the final audio update), then the
    finish. Each field comes once or adds up, so the SDK's stream accumulator rebuilds ``message.audio``."""
    yield {"role": "assistant", "content": None, "refusal": None}, None
    first = True
    for kind, piece in stream_pieces(audio):
        value = piece if isinstance(piece, str) else base64.b64encode(piece).decode()
        delta: dict[str, Any] = {"id": audio.id, kind: value} if first else {kind: value}
        first = False
        yield {"audio": delta}, None
    yield {"audio": {"expires_at": audio.expires_at}}, None
    yield {}, choice.finish_reason


def message_tokens(request: ChatRequest, tokens: TokenCounter, images: int) -> int:
    """The prompt's tokens without the tools, by a documented rule (not the live tokenizer): 3 per
    message plus its text, name and tool-call tokens, 85 per image, plus 3 to prime the reply."""
    total = 3 + 85 * images
    for message in request.messages:
        total += (
            3 + tokens.count(_flat_text(message.get("content"))) + tokens.count(message.get("name") or "")
        )
        for call in message.get("tool_calls") or []:
            body = call.get("function") or call.get("custom") or {}
            total += tokens.count(body.get("name", "")) + tokens.count(
                body.get("arguments", body.get("input", ""))
            )
    return total


def tool_tokens(request: ChatRequest, tokens: TokenCounter) -> int:
    """The declared tools' JSON (compact)."""
    declared = request.body.get("tools") or request.body.get("functions")
    if not declared:
        return 0
    return _count_once(tokens, json.dumps(declared, separators=(",", ":")))


def _count_once(tokens: TokenCounter, text: str) -> int:
    """The tools' JSON comes again with every turn of a conversation: count it once (if not huge)."""
    return tokens.count(text) if len(text) > 16_384 else _count_cached(tokens, text)


@functools.lru_cache(maxsize=256)
def _count_cached(tokens: TokenCounter, text: str) -> int:
    return tokens.count(text)


def _flat_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return " ".join(
        part.get("text") or part.get("refusal") or "" for part in content if isinstance(part, dict)
    )
