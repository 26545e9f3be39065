"""What the participant says around a call to an app's own tool: the short clause said while the call
goes out ("Opening gesture project —") and the one grounding sentence after the app's output ("Gesture
Navigation is open, in detail view.", "It's 3 degrees Celsius with snow in Oslo.": ``fields``)."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from mockengine.brain import addresses, cards, fields, implied, lexicon, names, order_placed, places, units
from mockengine.brain.failures import PartialFailure, failure_reason, partial_failure
from mockengine.brain.output_data import fields_in_text, output_data
from mockengine.brain.wordlists import DESTINATION_WORDS, DONE_COUNTS, READ_VERBS, STATE_LOOKUPS

_STATE_KEYS = ("mode", "status", "state")
# A plain-text output is read out up to its first sentence's end, at most this long.
_SAID_MAX_CHARS = 200
_CLAUSE_ENDINGS = (" —", "…")
_GERUNDS = {
    "get": "Checking",
    "go": "Going",
    "set": "Setting",
    "run": "Running",
    "stop": "Stopping",
    "flip": "Flipping",
    "view": "Checking",
    "list": "Checking",
    "show": "Showing",
}


def clause(name: str, arguments: Mapping[str, Any], rng: random.Random) -> str:
    """The short clause said while the first call goes out: the action as a gerund and what it acts on
    ("Opening gesture project —", "Pausing —", "Setting timer —"), else "On it —"."""
    name_words = lexicon.identifier_words(name).split()
    ending = rng.choice(_CLAUSE_ENDINGS)
    if order_placed.names_an_order(name):  # create_order {item: burgers}: no "Creating burgers —"
        return "Placing your order" + ending
    spoken = [v for v in arguments.values() if isinstance(v, str) and v.lower() in _VERBS]
    verb = spoken[0].lower() if spoken else (name_words[0] if name_words[0] in _VERBS else None)
    if verb is None:
        return "On it" + ending
    gerund = _GERUNDS.get(verb) or _gerund(verb)
    # a payment card's number or security code is never read back aloud ("Paying 4242424242424242 —"),
    # nor a postal part as the thing changed ("Updating 62704 —")
    things = [
        v
        for k, v in arguments.items()
        if isinstance(v, str)
        and _is_thing(k)
        and not addresses.names_postal_code(k)
        and not (cards.takes_card_number(k) or cards.takes_security_code(k))
    ]
    rest = " ".join(name_words[1:]) if not spoken and verb == name_words[0] else ""
    target = things[0] if things else rest
    return (f"{gerund} {target}" if target else gerund) + ending


def _is_thing(parameter: str) -> bool:
    return bool(set(lexicon.identifier_words(parameter).split()) & _THINGS)


_THINGS = frozenset(
    [
        "card",
        "title",
        "name",
        "query",
        "product",
        "item",
        "text",
        "song",
        "track",
        "file",
        "page",
        "project",
        "tag",
        "code",
        "message",
        "event",
    ]
)
_VERBS = frozenset(
    [
        "open",
        "launch",
        "play",
        "pause",
        "resume",
        "restart",
        "close",
        "show",
        "flip",
        "filter",
        "navigate",
        "go",
        "rate",
        "favorite",
        "get",
        "set",
        "add",
        "remove",
        "create",
        "cancel",
        "delete",
        "search",
        "find",
        "send",
        "start",
        "stop",
        "turn",
        "lock",
        "unlock",
        "apply",
        "track",
        "list",
        "view",
        "check",
        "book",
        "schedule",
        "remind",
        "complete",
        "mark",
        "move",
        "update",
        "edit",
        "save",
        "buy",
        "order",
        "pay",
        "call",
        "share",
        "translate",
        "shuffle",
        "mute",
        "unmute",
        "skip",
        "request",
        "sync",
        "import",
        "export",
        "upload",
        "download",
        "notify",
        "invite",
        "publish",
        "archive",
        # a call handed on (LiveKit's and Pipecat's transfer_call): "Done: billing." was said of it
        "transfer",
        "forward",
    ]
)


def _gerund(verb: str) -> str:
    if verb in _DOUBLED:
        stem = verb + verb[-1]
    elif verb.endswith("e") and not verb.endswith("ee"):
        stem = verb[:-1]
    else:
        stem = verb
    return (stem + "ing").capitalize()


_DOUBLED = frozenset(
    [
        "stop",
        "flip",
        "drop",
        "plan",
        "skip",
        "shop",
        "tap",
        "pin",
        "log",
        "ship",
        "run",
        "get",
        "set",
        "put",
        "cut",
        "dim",
        "swap",
        "zip",
        "tag",
        "plug",
        "transfer",
    ]
)


def grounding(output: str, call_name: str | None, call_arguments: str | None) -> str:
    """One sentence from a function output's fields: the thing's name and its state. A plain-text
    output of a few words (what a tool returning a string sends, e.g. the Agents SDK's ``function_tool``)
    is itself the answer: its first sentence is said as written."""
    if _NOT_APPROVED.search(output):  # the user refused the call: "Okay, I won't book the table."
        return declined(call_name or "", _json(call_arguments or ""))
    if _TOOL_RAISED.search(output):  # the tool raised: an apology, not the SDK's words read out
        return failed(call_name or "", _json(call_arguments or ""))
    verb = lexicon.identifier_words(call_name or "").split()[:1]
    # a calculation (convert_currency) answers like a lookup, its arguments the inputs, not the thing
    calculation = bool(verb) and verb[0] in _CALCULATIONS
    lookup = bool(verb) and verb[0] in _LOOKUPS or calculation or _named_for_report(call_name or "")
    # a lookup's counts are what it found (get_login_stats → {"successful": 10, "failed": 3}), no batch of
    # its own that partly failed
    partial = None if lookup else partial_failure(_json(output))
    if partial is not None:  # {"sent": 12, "failed": 2}: the 2 said, never "I've sent the newsletter."
        return partly_done(call_name or "", _json(call_arguments or ""), _json(output), partial)
    reason = failure_reason(output, call_name, _json(call_arguments or ""))
    if reason is not None:  # {"ok": false}: "I couldn't book the table: …", never "I've booked the table."
        return failed(call_name or "", _json(call_arguments or ""), reason)
    data = _json(output)
    wrapped = _wrapped_text(data) if lookup else None
    if wrapped is not None:  # {"result": "sunny"} (Pipecat's result_callback): the text the tool returned
        output, data = wrapped, _json(wrapped)
    # a lookup's fields written as text ("temp=21 conditions='sunny'") are its fields; an action's text
    # ("Booked: table for two, time: 7pm") stays its answer
    written = fields_in_text(output) if lookup and (data is None or isinstance(data, str)) else None
    data = written if written is not None else data
    if lookup and isinstance(data, list):
        # a bare list is the things looked up: search_products → [] is "There are no products for usb
        # cable.", not "Done: usb cable."
        looked_up = lexicon.identifier_words(call_name or "").split()[1:]
        data = {" ".join(looked_up) if looked_up and fields.plural(looked_up[-1]) else "results": data}
    converted = _conversion(_json(call_arguments or ""), data) if calculation else None
    if converted is not None:  # convert_currency → 92.5: "100 USD is 92.5 EUR.", not its fields read back
        return converted
    if isinstance(data, Mapping):  # {"value": 18, "unit": "C"} is "18 degrees Celsius", 0.82 humidity 82 %
        data = fields.readable(data)
    if not lookup:  # an order placed: "I've placed your order for 3 burgers to 12 Main Street."
        record = _record(data)
        code = _confirmation(record)
        placed = order_placed.said(
            call_name or "",
            _json(call_arguments or ""),
            output if not isinstance(data, Mapping) else None,
            ("confirmation", code) if code else _new_reference(record, _json(call_arguments or ""), "order"),
            _state(record),
        )
        if placed is not None:
            return placed
    said = _plain_text(output if data is None else data)
    if said is not None:
        return said
    arguments = _json(call_arguments or "")
    named = _display_name(data) or (None if calculation else _first_string(arguments))
    day = _spoken_day(named) if lookup and named is not None else None
    if day is not None:
        # check_availability {date: "2026-12-12"}: "Saturday, December 12 is available", not the ISO date;
        # the date the output gives back is the one asked, no news ("the date for 2026-12-12 is …")
        raw = _json(output)
        echoed = {k for k, v in raw.items() if v == named} if isinstance(raw, Mapping) else set()
        if isinstance(data, Mapping) and echoed and set(data) - echoed:
            data = {k: v for k, v in data.items() if k not in echoed}
        named = day
    if lookup and named is not None:
        # "San Francisco, CA" sent as its description asks: a model says "in San Francisco" (the state of a
        # well-known city adds nothing said; "Paris, TX" keeps it)
        city, _, code = named.rpartition(", ")
        named = city if city and places.known_us_city(city) == code else named
    state = _state(data)
    concept = lexicon.concept(verb[0]) if verb else ""
    where = f", in {state} view" if state else ""
    scalar = _scalar_answer(output if data is None else data) if lookup else None
    where_said = _place_preposition(named, arguments) if _is_place(named, arguments) else " for "
    if lookup and (output.strip() == "null" or data == {}):
        # nothing came back (a tool that returned None or {}): "Done: Paris." said no weather
        data = {"status": "ok"}
    if (
        lookup
        and _only_acknowledged(data)
        and not set(lexicon.identifier_words(call_name or "").split()) & (STATE_LOOKUPS)
    ):
        # {"status": "ok"} from get_weather(Paris) tells nothing of Paris's weather ("The status in Paris is
        # ok." read it as the weather): the call went through, and no detail came back
        topic = " ".join(lexicon.identifier_words(call_name or "").split()[1:]) or "that"
        subject = f"the {topic}" if topic != "that" else topic
        return (
            f"I checked {subject}{where_said}{named}, but no details came back."
            if named
            else (f"I checked {subject}, but no details came back.")
        )
    heat = (
        _temperature(call_name or "", scalar, arguments) if scalar is not None and not calculation else None
    )
    if heat is not None:  # get_weather → 21: "It's 21 degrees in Paris." ("The weather in Paris is 21.")
        return f"It's {heat}{where_said}{named}." if named else f"It's {heat}."
    if scalar is not None:  # a lookup answered with one value ("10:00", 21): that value is the answer
        topic = "result" if calculation else " ".join(_reported(call_name or ""))
        return _one_value(topic, scalar, named, where_said)
    field = _one_field(data, named) if lookup else None
    if field is not None:  # {"time": "10:42"} from get_time(Tokyo): "It's 10:42 in Tokyo."
        return _one_value(*field, named, where_said)
    told = fields.sentence(data, named, where_said) if lookup and isinstance(data, Mapping) else None
    if told is not None and not data.get("error"):  # "It's 3 degrees Celsius with snow in Oslo."
        return told
    if named is not None and concept in ("launch", "open"):
        name = named[0].upper() + named[1:]
        return f"{name} is {'playing' if concept == 'launch' else 'open'}{where}."
    done = (
        None
        if lookup
        else _nothing_done(call_name or "", data) or _action_done(call_name or "", arguments, data)
    )
    if done is not None:
        return done
    if state and _state_key(data) != "mode":
        # a status ("success", "pending") is no view: "Done: Paris." or "Done: Paris. It's pending."
        told = f" It's {state}." if state.lower() not in _ACKNOWLEDGEMENTS else ""
        return f"Done: {named}.{told}" if named is not None else f"Done.{told}"
    if named is None:
        return f"Done{where}." if where else "Done."
    return f"Done: {named}{where}."


def _switched(words: list[str], arguments: Any) -> str | None:
    """A switch thrown by a tool that toggles a thing (LiveKit's ``toggle_light(room, on: bool)``): "I've
    turned off the kitchen light." (it was "Done: kitchen."); None unless the name opens with a switch
    verb and one argument is a boolean."""
    if not words or words[0] not in _SWITCH_VERBS or not isinstance(arguments, Mapping):
        return None
    flags = [v for v in arguments.values() if isinstance(v, bool)]
    if len(flags) != 1:
        return None
    rest = [w for w in words[1:] if w not in _PARTICLES]
    place = next(
        (v for k, v in arguments.items() if isinstance(v, str) and v.strip() and _names_place(str(k))),
        None,
    )
    thing = " ".join(([place.strip()] if place else []) + rest)
    return f"I've turned {'on' if flags[0] else 'off'} the {thing}." if thing else None


_SWITCH_VERBS = frozenset(("toggle", "switch", "turn"))


def _names_place(key: str) -> bool:
    """A parameter that holds where (``room``, ``location``, ``city``)."""
    words = set(lexicon.identifier_words(key).split())
    return implied.holds_place(key) or bool(words & {"room", "location", "place", "area", "zone"})


def _level_set(verb: str, rest: list[str], arguments: Any) -> str:
    """ " to 80" after a level set (``set_volume {volume: 80}``: "I've set the volume to 80."; it said
    "I've set the volume."): the number whose parameter is named for the thing set; "" otherwise."""
    if verb not in ("set", "adjust", "change") or not rest or not isinstance(arguments, Mapping):
        return ""
    levels = [
        v
        for k, v in arguments.items()
        if _is_number(v) and set(lexicon.identifier_words(str(k)).split()) & set(rest)
    ]
    return f" to {_amount(levels[0])}" if len(levels) == 1 else ""


def _booked_for(arguments: Any) -> str | None:
    """The day (and time) a booking's arguments give, as a model says it: ``{date: "2026-12-12", time:
    "19:00"}`` → "Saturday, December 12 at 7 pm"; ``{datetime: "2026-12-10T09:00:00"}`` → "Thursday,
    December 10 at 9 am". None when no argument is an ISO date."""
    if not isinstance(arguments, Mapping):
        return None
    day = clock = None
    for value in arguments.values():
        if not isinstance(value, str):
            continue
        stamp = _ISO_STAMP.fullmatch(value.strip())
        if stamp is not None and day is None:
            day = _spoken_day(stamp.group("day"))
            clock = clock or (_spoken_clock(stamp.group("clock")) if stamp.group("clock") else None)
        elif _CLOCK.fullmatch(value.strip()) and clock is None:
            clock = _spoken_clock(value.strip())
    if day is None:
        return None
    return f"{day} at {clock}" if clock else day


def _spoken_clock(value: str) -> str | None:
    """A 24-hour time as a model says it: "19:00" → "7 pm", "10:30" → "10:30 am", "12:00" → "12 pm"."""
    match = _CLOCK.fullmatch(value)
    if match is None:
        return None
    hour, minute = int(match.group(1)), int(match.group(2))
    if hour > 23 or minute > 59:
        return None
    half = "am" if hour < 12 else "pm"
    shown = hour % 12 or 12
    return f"{shown} {half}" if minute == 0 else f"{shown}:{minute:02d} {half}"


# An ISO date, with its time of day when it is a date-time ("2026-12-10T09:00:00", "… 09:00").
_ISO_STAMP = re.compile(
    r"(?P<day>\d{4}-\d{2}-\d{2})(?:[T ](?P<clock>\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
)
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::\d{2})?")


def _spoken_day(value: str) -> str | None:
    """An ISO date as a model says it: "2026-12-12" → "Saturday, December 12"; None for any other
    string."""
    if not _ISO_DATE.fullmatch(value.strip()):
        return None
    try:
        day = date.fromisoformat(value.strip())
    except ValueError:
        return None
    return f"{day.strftime('%A')}, {day.strftime('%B')} {day.day}"


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _conversion(arguments: Any, data: Any) -> str | None:
    """A conversion's answer from its arguments and output: ``{amount: 100, from_currency: "USD",
    to_currency: "EUR"}`` and ``92.5`` (or ``{"result": 92.5, "rate": 0.925}``, ``{"converted_amount":
    92.5}``) → "100 USD is 92.5 EUR.", as a model says it (the output's fields were read back, "the from
    is USD, the to is EUR …"). None unless the arguments give an amount, a unit from and a unit to and
    the output one number for the result."""
    if not isinstance(arguments, Mapping):
        return None
    amount = next((v for v in arguments.values() if _is_number(v)), None)
    ends: dict[str, str] = {}
    for key, value in arguments.items():
        words = set(lexicon.identifier_words(str(key)).split())
        for end, named in (("from", _CONVERTED_FROM), ("to", _CONVERTED_TO)):
            if isinstance(value, str) and value.strip() and words & named and end not in ends:
                ends[end] = value.strip()
    if isinstance(data, Mapping):
        found = [
            v
            for k, v in data.items()
            if _is_number(v) and set(lexicon.identifier_words(str(k)).split()) & _CONVERTED_RESULTS
        ]
        data = found[0] if len(found) == 1 else None
    elif isinstance(data, str):
        data = _json(data.strip())
    if amount is None or len(ends) != 2 or not _is_number(data):
        return None
    return f"{_amount(amount)} {ends['from']} is {_amount(data)} {ends['to']}."


_CONVERTED_FROM = frozenset(("from", "source", "base"))
_CONVERTED_TO = frozenset(("to", "target", "into", "quote"))
_CONVERTED_RESULTS = frozenset(("result", "converted", "total", "value", "output", "conversion"))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _amount(value: float) -> str:
    """A number as said: 100 → "100", 92.5 → "92.5", 92.456 → "92.46" (to the cent)."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _action_done(name: str, arguments: Any, data: Any) -> str | None:
    """What a model says after an action went through, from the tool's verb, what it acts on and the
    output's state and confirmation: book_table {name: Smith} → {"status": "confirmed", "confirmation":
    "AB12"} gives "I've booked the table for Smith. It's confirmed, and the confirmation is AB12."
    (it was "Done: Smith, in confirmed view."); turn_on {room: kitchen} → "I've turned it on in the
    kitchen."; send_chat {to: Dario} → "I've sent the chat to Dario.". None when the name opens with no
    verb (the caller says "Done: …")."""
    words = lexicon.identifier_words(name).split()
    switched = _switched(words, arguments)
    if switched is not None:
        return switched
    # an action's own verb, not a noun of one ("favorites", "bookings")
    if not words or not (
        words[0] in _VERBS
        or (
            lexicon.concept(words[0]) in lexicon.ACTIONS
            and not words[0].endswith(("s", "tion", "sion", "ment"))  # "navigation" is no verb to past
        )
    ):
        return None
    verb, rest = words[0], words[1:]
    data = _record(data)
    if rest and rest[0] in _TARGET_PREPOSITIONS:  # add_to_cart: "I've added t-shirts to the cart."
        return _done_to(verb, rest[0], rest[1:], arguments, data)
    particle = rest.pop(0) if rest and rest[0] in _PARTICLES else ""
    # go_back, log_out: the verb and its particle act on nothing ("I've gone back", not "gone it back")
    rest = [_SAID_AS.get(word, word) for word in rest]  # send_sms: "the text", not "the sms"
    thing = f"the {' '.join(rest)}" if rest else "" if particle and verb in _INTRANSITIVE else "it"
    number = _number_of_thing(rest[-1], data, arguments) if rest else None
    if number is not None:  # {"table": 12} after book_table: "I've booked table 12", which one it is
        thing = " ".join([*rest, number])
    done = f"{_past(verb)} {particle} {thing}" if particle and rest else f"{_past(verb)} {thing} {particle}"
    detail = _detail(verb, arguments, data) or _level_set(verb, rest, arguments)
    booked = _booked_for(arguments) if verb in _BOOKING_VERBS else None
    if booked is not None:  # book_table {date, time}: "… the table for Saturday, December 12 at 7 pm."
        detail = f"{detail} on {booked}" if detail else f" for {booked}"  # "from Boston to Denver on …"
    sentence = f"I've {' '.join(done.split())}{detail}."
    state = _state(data)
    if state and _state_key(data) == "mode":  # a view's mode ("grid"): "It's in grid view."
        state = f"in {state} view"
    if state and lexicon.spelled_alike(state, _past(verb)):  # "I've canceled the booking." said it already
        state = None
    code = _confirmation(data)
    reference = _new_reference(data, arguments, verb) if code is None else None
    if reference is not None:  # {"booking_id": "B-1042"}: "…, and the booking ID is B-1042."
        told = f"the {reference[0]} is {reference[1]}"
        if state and state.lower() not in _ACKNOWLEDGEMENTS:
            return f"{sentence} It's {state}, and {told}."
        return f"{sentence} {told[0].upper()}{told[1:]}."
    if state and state.lower() not in _ACKNOWLEDGEMENTS and code:
        return f"{sentence} It's {state}, and the confirmation is {code}."
    if state and state.lower() not in _ACKNOWLEDGEMENTS:
        return f"{sentence} It's {state}."
    return f"{sentence} The confirmation is {code}." if code else sentence


def _nothing_done(name: str, data: Any) -> str | None:
    """An action whose output counts what it did, and the count is 0: delete_files → ``{"deleted": 0}``
    is "No files were deleted." ("Nothing was archived." of a thing not plural), not "I've deleted the
    files."; None otherwise."""
    words = lexicon.identifier_words(name).split()
    if not isinstance(data, Mapping) or not words or words[0] not in _VERBS:
        return None
    counts = [
        value
        for key, value in data.items()
        if lexicon.identifier_words(str(key)) in DONE_COUNTS
        and isinstance(value, int)
        and not isinstance(value, bool)
    ]
    if counts != [0]:
        return None
    rest = words[1:]
    if rest and fields.plural(rest[-1]):
        return f"No {' '.join(rest)} were {_past(words[0])}."
    return f"Nothing was {_past(words[0])}."


def _done_to(verb: str, preposition: str, target: list[str], arguments: Any, data: Any) -> str:
    """An action whose name says where it acts (``add_to_cart``, ``remove_from_playlist``,
    ``move_to_folder``): "I've added t-shirts to the cart.", the thing by the argument that names it,
    the target by the argument named after it ("to Archive"), else "the cart"."""
    values = {str(k): v for k, v in arguments.items()} if isinstance(arguments, Mapping) else {}
    strings = [(k, v) for k, v in values.items() if isinstance(v, str) and v.strip()]
    noun = " ".join(target)
    named = next(
        (v for k, v in strings if target and target[-1] in lexicon.identifier_words(k).split()), None
    )
    where = named or (_handed_on_to(target) if verb in _HANDING else f"the {noun}" if noun else "")
    thing = next(
        (v for k, v in strings if v != named and _is_thing(k) and not k.lower().endswith("id")),
        "you" if verb in _HANDING else "it",  # transfer_to_department: the caller is put through
    )
    sentence = f"I've {_past(verb)} {thing} {preposition} {where}".strip() + "."
    code = _confirmation(data)
    return f"{sentence} The confirmation is {code}." if code else sentence


def _handed_on_to(target: list[str]) -> str:
    """Where a call is handed on, as a model says it, from the words of the tool's name after "to"
    (``transfer_to_<x>``): a department bare ("billing", "support"; it was "the billing"), a person
    with "a" ("a human agent"), a group with "the" ("the sales team")."""
    if not target:
        return ""
    if target[-1] in _HUMAN:
        return f"a {' '.join(target)} agent" if target[-1] == "human" else f"a {' '.join(target)}"
    return f"the {' '.join(target)}" if target[-1] in _GROUPS else " ".join(target)


_HUMAN = frozenset(("human", "person", "agent", "representative", "operator", "specialist", "supervisor"))
_GROUPS = frozenset(("team", "department", "desk", "line", "queue", "office", "manager"))
# A tool name's word as a model says it: "I've sent the text", not "the sms".
_SAID_AS = {"sms": "text", "mms": "text", "msg": "message", "dm": "message", "txt": "text"}
# Verbs that hand a call (or the caller) on: their argument is where it goes ("to billing").
_HANDING = frozenset(("transfer", "forward", "connect", "route", "escalate"))
# A tool name's preposition after its verb: where the action puts or takes its thing.
_TARGET_PREPOSITIONS = frozenset(("to", "into", "onto", "from"))
_PARTICLES = frozenset(("on", "off", "up", "down", "out", "in", "over", "back"))
# Verbs that take no object before their particle: go_back, log_out, sign_in, check_in, step_back.
_INTRANSITIVE = frozenset(("go", "come", "log", "sign", "check", "step", "scroll", "zoom"))
# An argument's name, and the preposition its value takes after the action ("to Dario", "in the kitchen").
_TO = frozenset(("to", "recipient", "recipients", "contact", "channel", "email", "phone", "number"))
_FOR = frozenset(("name", "guest", "customer", "person", "for", "user", "patient", "passenger", "member"))
# An argument that names the business where the action happens ("at Nopa").
_VENUES = frozenset(("restaurant", "venue", "hotel", "salon", "clinic", "store", "shop", "cafe", "bar"))
_BOOKING_VERBS = frozenset(("book", "reserve", "order", "schedule", "buy", "register"))


def _detail(verb: str, arguments: Any, data: Any) -> str:
    """The one argument said after the action: a place ("in the kitchen", "in Paris"), a recipient ("to
    Dario"), whom a booking is for ("for Smith"), else the thing by the title the output gives it or by
    the argument that names it (": Parcel note", ": buy milk"), never by an id; "" for none."""
    values = {str(k): v for k, v in arguments.items()} if isinstance(arguments, Mapping) else {}
    strings = [(k, v) for k, v in values.items() if isinstance(v, str) and v.strip()]
    address = _postal_address(strings)
    if address is not None:  # "to 12 Oak Street, Springfield 62704", not "in Springfield"
        return f" to {address}"
    route = _route(strings)
    if route is not None:  # book_flight {origin, destination}: "from Boston to Denver", not "in Boston"
        return route
    if verb in _HANDING and strings:  # transfer_call {department: billing}: "to billing"
        return f" to {strings[0][1]}"
    for key, value in strings:
        key_words = set(lexicon.identifier_words(key).split())
        if "number" in key_words and key_words - _TO - {"phone", "mobile", "cell"}:
            continue  # an order or account number says which thing, not whom it goes to
        if key_words & DESTINATION_WORDS and value[:1].isupper():  # "I've booked the trip to Lisbon."
            return f" to {value}"
        if implied.holds_place(key) or key_words & {"room", "location", "place", "area", "zone"}:
            return f" in {value}" if value[:1].isupper() else f" in the {value}"
        if key_words & _TO:
            return f" to {value}"
        if key_words & _VENUES and value[:1].isupper() and not _thing_named(strings, key):
            return f" at {value}"  # "I've booked the table at Nopa."; the thing ordered comes first
        if key_words & _FOR and verb in _BOOKING_VERBS:
            return f" for {value}"
    titled = data if isinstance(data, Mapping) else {}
    title = next((titled[k] for k in ("title", "name", "label") if isinstance(titled.get(k), str)), None)
    thing = title or next((v for k, v in strings if _is_thing(k) and not k.lower().endswith("id")), None)
    return f": {thing}" if thing else ""


def _route(strings: list[tuple[str, str]]) -> str | None:
    """ " from Boston to Denver" when the arguments name where a trip starts (``origin``, ``from``,
    ``departure_city``) and where it goes (``destination``); None otherwise."""
    start = end = None
    for key, value in strings:
        words = lexicon.identifier_words(key).split()
        # a bare ``from`` / ``to`` may be a message's sender and recipient: no route
        if start is None and set(words) & _ORIGINS and words != ["from"]:
            start = value
        elif end is None and (set(words) & DESTINATION_WORDS or words[:1] == ["to"] and len(words) > 1):
            end = value
    return f" from {start} to {end}" if start is not None and end is not None else None


def _thing_named(strings: list[tuple[str, str]], venue_key: str) -> bool:
    """Whether an argument other than ``venue_key`` names the thing acted on (``item: "USB cable"``
    beside ``store: "Amazon"``): that thing is said, not where ("I've ordered the item: USB cable.")."""
    return any(
        key != venue_key
        and _is_thing(key)
        and not key.lower().endswith("id")
        and not set(lexicon.identifier_words(key).split()) & _FOR
        for key, _ in strings
    )


# A street value read back whole: any that opens with its house number ("12 Main St.", "5 rue de Rivoli",
# "350 5th Ave", "12 Oak Street Apt 4"). Looser than ``addresses.is_street_with_number``, which reads
# words for a slot; a value the app was sent is said as it was sent.
_HOUSE_NUMBER_FIRST = re.compile(r"\d+\w?\s")


def _postal_address(strings: list[tuple[str, str]]) -> str | None:
    """A street with its house number ("12 Oak Street") and the town and zip beside it, as one address
    ("12 Oak Street, Springfield 62704"); None when no argument is such a street."""
    parts = {" ".join(lexicon.identifier_words(k).split()): v for k, v in strings}
    street = next(
        (
            v
            for k, v in parts.items()
            if {"street", "address"} & set(k.split()) and _HOUSE_NUMBER_FIRST.match(v)
        ),
        None,
    )
    if street is None:
        return None
    town = next((v for k, v in parts.items() if k in ("city", "town")), None)
    postal = next((v for k, v in parts.items() if addresses.names_postal_code(k)), None)
    return ", ".join(filter(None, [street, " ".join(filter(None, [town, postal]))]))


_PAST = {
    "set": "set",
    "send": "sent",
    "make": "made",
    "put": "put",
    "run": "run",
    "buy": "bought",
    "pay": "paid",
    "get": "got",
    "find": "found",
    "go": "gone",
    "shut": "shut",
    "cut": "cut",
    "read": "read",
    "write": "written",
    "take": "taken",
    "give": "given",
    "bring": "brought",
    "hold": "held",
    "leave": "left",
    "begin": "begun",
    "keep": "kept",
    "tell": "told",
    "sell": "sold",
    "build": "built",
    "show": "shown",
    "cancel": "canceled",
}


def _past(verb: str) -> str:
    """The participle after "I've": "booked", "sent", "stopped", "added", "copied"."""
    if verb in _PAST:
        return _PAST[verb]
    if verb in _DOUBLED:
        return f"{verb}{verb[-1]}ed"
    if verb.endswith("e"):
        return f"{verb}d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return f"{verb[:-1]}ied"
    return f"{verb}ed"


def _record(data: Any) -> Any:
    """An action's output with the one record it wraps read as its own fields (``{"booking": {"id":
    "B-771", "table": 12}}`` → ``{"booking_id": "B-771", "table": 12}``); anything else as it is."""
    if not isinstance(data, Mapping):
        return data
    nested = [(k, v) for k, v in data.items() if isinstance(v, Mapping)]
    if len(nested) != 1:
        return data
    outer, inner = nested[0]
    flat = {k: v for k, v in data.items() if k != outer}
    for key, value in inner.items():
        name = f"{outer}_id" if lexicon.identifier_words(str(key)) == "id" else str(key)
        flat.setdefault(name, value)
    return flat


# A thing's number or code read with its noun ("table 12", "room 4B", "seat 14C", "gate B7"): digits with
# at most a letter either side; a word with digits in it ("ok123" as a message) is none.
_THING_NUMBER = re.compile(r"^[A-Z]?\d{1,5}[A-Z]?$")


def _number_of_thing(noun: str, data: Any, arguments: Any) -> str | None:
    """The number or short code the output gives the thing the tool acts on, by a field named as the
    tool's noun (book_table → ``{"table": 12}``), when the call did not send it; else None."""
    if not isinstance(data, Mapping):
        return None
    sent = {str(v) for v in arguments.values()} if isinstance(arguments, Mapping) else set()
    for key, value in data.items():
        if lexicon.identifier_words(str(key)) not in (noun, f"{noun} number"):
            continue
        if isinstance(value, bool) or not isinstance(value, (int, str)) or str(value) in sent:
            return None
        said = str(value).strip()
        return said if _THING_NUMBER.match(said) else None
    return None


def _new_reference(data: Any, arguments: Any, verb: str = "") -> tuple[str, str] | None:
    """An ID the output gives that the call did not send ({"booking_id": "B-1042"} after book_table,
    {"refund_id": "R-77"}), as (its name with "ID", its value), which a model reads back to the caller;
    None when there is none (cancel_booking's output repeating the ``booking_id`` it was given). A bare
    ``id`` a booking ``verb`` made is its reference: ("reference", "B-771")."""
    if not isinstance(data, Mapping):
        return None
    sent = {str(v) for v in arguments.values()} if isinstance(arguments, Mapping) else set()
    for key, value in data.items():
        words = lexicon.identifier_words(str(key)).split()
        if words == ["id"] and verb in _BOOKING_VERBS:
            # a booking's bare id is the caller's reference ("The reference is B-771."); a note's
            # ({"id": "n_41"} after add_note) is the app's own, not said
            words = ["reference", "id"]
        if (
            len(words) > 1
            and words[-1] == "id"
            and isinstance(value, (str, int))
            and not isinstance(value, bool)
            and str(value) not in sent
        ):
            return " ".join(words[:-1] if words[0] == "reference" else [*words[:-1], "ID"]), str(value)
    return None


def _confirmation(data: Any) -> str | None:
    """A confirmation, reference or booking code the output gives ({"confirmation": "AB12"},
    {"booking_reference": "X9"}), as a model reads it back; None when there is none."""
    if not isinstance(data, Mapping):
        return None
    for key, value in data.items():
        words = set(lexicon.identifier_words(str(key)).split())
        if (
            words & {"confirmation", "reference"}
            and isinstance(value, (str, int))
            and not isinstance(value, bool)
        ):
            return str(value)
    return None


# The OpenAI Agents SDKs' output for a tool that raised (Python ``default_tool_error_function``, JS
# ``defaultToolErrorFunction``; the JS SDK's for arguments it could not parse too).
_TOOL_RAISED = re.compile(
    r"^\W*an error occurred while (?:running the tool|parsing tool arguments)\b", re.IGNORECASE
)
# An output that says the user refused the call, as a human-in-the-loop approval sends it: the OpenAI
# Agents SDK's "Tool execution was not approved." (needs_approval rejected), and the same said otherwise.
_NOT_APPROVED = re.compile(
    r"^\W*(?:tool (?:execution|call) was not approved|(?:the )?(?:call|action|request|tool call|execution) "
    r"was (?:not approved|rejected|declined|denied)(?: by the user)?|(?:the )?user (?:declined|rejected|"
    r"denied|did not approve)(?: (?:the|this) (?:tool|call|action|request|tool call))?|not approved"
    r"|approval (?:was )?(?:denied|rejected|declined))\W*$",
    re.IGNORECASE,
)


def failed(name: str, arguments: Any, reason: str | None = None) -> str:
    """What a model says when the tool itself failed: "Sorry, I couldn't get the weather in Paris just
    now." (the tool's verb, its topic and the place or thing it was for), else "Sorry, that didn't work
    just now.". With the ``reason`` the output gives (``failures``): "I couldn't book the table for Smith:
    no tables free at 8." ("That didn't work: …" for a tool named by no verb); for a failure whose output
    gives none (``reason`` ""): "Sorry, I couldn't book the table for Smith."."""
    action = _action_for(name, arguments)
    if action is None:
        if reason:
            return f"That didn't work: {reason}."
        return "Sorry, that didn't work." if reason is not None else "Sorry, that didn't work just now."
    if reason:
        return f"I couldn't {action}: {reason}."
    return f"Sorry, I couldn't {action}{'' if reason is not None else ' just now'}."


def disallowed(name: str, arguments: Any) -> str:
    """What a model says when the words ask for a call its tools are not allowed for (``tool_choice:
    "none"``), in the words of ``failed``: "Sorry, I can't check the weather in Paris right now." (a
    lookup's "get" said as the check it is), "Sorry, I can't book the table for Smith right now.", else
    "Sorry, I can't do that right now."."""
    action = _checked_action(name, arguments)
    if action is None:
        return "Sorry, I can't do that right now."
    return f"Sorry, I can't {action} right now."


def only_now(name: str, arguments: Any, when: str) -> str:
    """What a model says when asked for a day ``when`` ("tomorrow") of a lookup that reports only the
    present: "Sorry, I can only check the weather in Paris as it is now, not for tomorrow."."""
    action = _checked_action(name, arguments)
    if action is None:
        return f"Sorry, I can only check how things are now, not for {when}."
    return f"Sorry, I can only {action} as it is now, not for {when}."


def _checked_action(name: str, arguments: Any) -> str | None:
    """``_action_for``, a lookup's "get" said as the check it is ("check the weather in Paris")."""
    action = _action_for(name, arguments)
    if (
        action is not None
        and action.startswith("get ")
        and lexicon.identifier_words(name).split()[0] in _LOOKUPS
    ):
        return f"check {action[4:]}"
    return action


def _action_for(name: str, arguments: Any) -> str | None:
    """A call said as the action it does: the tool's verb, its topic and the place or thing it is for
    ("get the weather in Paris", "book the table for Smith", "launch gesture-nav"); None for a tool
    named by no verb."""
    words = lexicon.identifier_words(name).split()
    verb = words[0] if words else ""
    if not (verb in _VERBS or verb in _LOOKUPS or lexicon.concept(verb) in lexicon.ACTIONS):
        return None
    values = arguments if isinstance(arguments, Mapping) else {}
    named = next((v for v in values.values() if isinstance(v, str) and v.strip()), None)
    rest = " ".join(words[1:])
    target = (f"for {rest}" if verb == "search" else f"the {rest}") if rest else "it"
    where = _place_preposition(named, values) if _is_place(named, values) else " for "
    about = f"{where}{named}" if named else ""
    detail = _detail(verb, values, None)
    things = [v for k, v in values.items() if isinstance(v, str) and v.strip() and _is_thing(k)]
    if detail.startswith((" to ", " in ", " for ", " at ")):
        # whom or where it was for, as the action says it ("send the chat to Dario"), not the first
        # argument ("send the chat for the parcel is here")
        about = detail
    elif not rest and things:  # launch {card: gesture-nav}: "I couldn't launch gesture-nav"
        target, about = things[0], ""
    return f"{verb} {target}{about}"


def partly_done(name: str, arguments: Any, data: Any, partial: PartialFailure) -> str:
    """What a model says of a batch that partly failed: send_newsletter → ``{"sent": 12, "failed": 2}``
    is "I've sent the newsletter, but only partly: 12 sent and 2 failed." (the failures named when the
    output lists a few: "2 failed (a@x.org and b@y.org)"); with none through (``{"sent": 0, "failed":
    3}``) it failed: "I couldn't send the newsletter: all 3 failed."."""
    names = list(partial.failed_names)
    failed_said = f"{partial.failed} failed"
    if names and len(names) == partial.failed <= _NAMED_FAILURES:
        failed_said += f" ({names[0] if len(names) == 1 else ', '.join(names[:-1]) + ' and ' + names[-1]})"
    if partial.done == 0:
        return failed(name, arguments, f"all {failed_said}" if partial.failed > 1 else failed_said)
    rest = (
        {k: v for k, v in data.items() if str(k) not in partial.keys} if isinstance(data, Mapping) else data
    )
    base = _action_done(name, arguments, rest) or "Done."
    went = ", ".join(
        [f"{partial.done} {partial.done_word}", *(f"{count} {word}" for count, word in partial.asides)]
    )
    if ". " in base or ":" in base:  # the action said with more ("…: Party", "The confirmation is …")
        return f"{base} {went[0].upper()}{went[1:]}, but {failed_said}."
    return f"{base[:-1]}, but only partly: {went} and {failed_said}."


# A partial failure's failed parts are named when the output lists at most this many.
_NAMED_FAILURES = 3


def declined(name: str, arguments: Any) -> str:
    """What a model says when the user did not approve a call: "Okay, I won't book the table." (the
    tool's verb and what it acts on: a thing argument, else the rest of its name), "Okay, I won't open
    gesture project.", else "Okay, I won't go ahead with that."."""
    words = lexicon.identifier_words(name).split()
    values = arguments if isinstance(arguments, Mapping) else {}
    if not words or not (words[0] in _VERBS or lexicon.concept(words[0]) in lexicon.ACTIONS):
        return "Okay, I won't go ahead with that."
    things = [v for k, v in values.items() if isinstance(v, str) and v and _is_thing(k)]
    rest = " ".join(words[1:])
    target = things[0] if things else (f"the {rest}" if rest else "it")
    return f"Okay, I won't {words[0]} {target}."


def with_when(said: str, when: str, call_arguments: str | None) -> str:
    """``said`` (a lookup's answer) with the time to come it answers (``when``: "tomorrow", "this
    week"): after the place it names ("The forecast in Paris tomorrow is sunny."), else before it all
    ("Tomorrow in Paris: sunny, 22 degrees."); as it is when it says the time already."""
    if not said or when.lower() in said.lower():
        return said
    named = [w for w in when.lower().split() if w not in ("on", "at", "in", "for", "this", "next")]
    if named and all(re.search(rf"\b{re.escape(w)}\b", said.lower()) for w in named):
        return said  # "on Saturday" of "Saturday, December 12 is available": said already
    arguments = _json(call_arguments or "")
    place = next(
        (
            value
            for key, value in (arguments.items() if isinstance(arguments, Mapping) else ())
            if isinstance(value, str) and value and implied.holds_place(str(key))
        ),
        None,
    )
    if said.startswith("It's "):  # "It's 21 degrees in Paris." of tomorrow is what it will be
        said = f"It'll be {said[5:]}"
    if place is not None and f" in {place}" in said:
        at = said.index(f" in {place}") + len(f" in {place}")
        return f"{said[:at]} {when}{said[at:]}"
    head = f"{when[0].upper()}{when[1:]}" + (f" in {place}" if place is not None else "")
    first = said.split(" ", 1)[0]
    keep = (
        first in ("I", "I've", "I'll", "I'm", "I'd")
        or first == place
        or (len(first) > 1 and first[1].isupper())
    )
    return f"{head}: {said if keep else said[0].lower() + said[1:]}"


def _temperature(name: str, value: str, arguments: Any) -> str | None:
    """A bare number a lookup of the weather or a temperature returned (get_weather → 21, "21") as a
    temperature said ("21 degrees", "21 degrees Fahrenheit" when the call asked for that unit): a model
    reads the number by what the tool reports; None for another tool's number (a price, a count) or a
    word ("sunny")."""
    if not fields.numeral(value):
        return None
    unit = fields.degrees_asked(arguments)
    words = {w.lower() for w in _reported(name)}
    weather = set(lexicon.identifier_words(name).lower().split()) <= _WEATHER_NAMES  # current_conditions
    if not (words & _HEAT or weather or unit is not None):
        return None
    return f"{value} {unit or 'degrees'}"


# What a tool's name says it reports when it returns a temperature.
_HEAT = frozenset(("weather", "temperature", "temp", "temperatures", "forecast"))
# A lookup named for what it reports, with no verb: its first word says it is the present or the latest
# (current_conditions, latest_news), or every word is the weather's (weather_now, forecast, conditions).
_REPORTED_NOW = frozenset(("current", "latest", "live", "recent", "todays", "nearby"))
_WEATHER_NAMES = _HEAT | frozenset(("conditions", "now", "today", "local", "current"))


def _named_for_report(name: str) -> bool:
    """Whether tool ``name`` is a lookup named for what it reports, with no verb (``current_conditions``,
    ``weather_now``, ``forecast``): its output is the answer, as get_weather's is. It was read as an
    action's ("Done: Berlin."), the weather dropped."""
    words = lexicon.identifier_words(name).lower().split()
    return bool(words) and (words[0] in _REPORTED_NOW or set(words) <= _WEATHER_NAMES)


def _reported(name: str) -> list[str]:
    """The words of what lookup ``name`` reports: its name without its verb (get_weather → weather), the
    whole of a name with none (weather_now), without "current" (current_conditions → conditions)."""
    words = lexicon.identifier_words(name).split()
    if _named_for_report(name):
        return [w for w in words if w.lower() not in _REPORTED_NOW] or words
    return words[1:]


def _one_value(words: str, value: Any, named: str | None, where: str) -> str:
    """A lookup's one value said as a model says it: a time or a temperature as "It's 10:42 in Tokyo." /
    "It's 21 degrees Celsius.", anything else as "The weather in Madrid is sunny." / "The status for
    order 4471 is shipped."; ``words`` is the field's (or the tool's topic) as words, "" when unknown."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # 270.0 is said "270"
    if isinstance(value, str) and value.strip() and value.strip()[-1] in ".!?…":
        # A value that is a sentence of its own ({"weather": "The weather in Paris is sunny."}, as
        # Pipecat's examples return it) is the answer as written: framed, it was "The weather in Paris
        # is The weather in Paris is sunny..".
        # Said whole (up to _SAID_MAX_CHARS), not cut to its first sentence as a plain-text output is:
        # {"message": "Booked! Your table is at 8 p.m."} was "Booked!", the time lost.
        if _plain_text(value) is not None:
            return _capped(" ".join(value.split()))
        value = value.strip().rstrip(".!?…")  # "Partly cloudy.": one full stop, the sentence's own
    measured = units.with_unit(words, value) if words else None
    head = words.rpartition(" ")[0] if measured is not None else words
    said = measured[len(head) + 1 :] if measured is not None else str(value)
    if measured is None and fields.is_temperature(words):  # {"temp": 21}: "It's 21 degrees in Paris."
        said = fields.degrees(words, value, None)
    about = f"{where}{named}" if named else ""
    topic = set(head.lower().split())
    if not topic or topic & _SAID_AS_IT:
        return f"It's {said}{about}."
    # "The conditions in Berlin are overcast." ("news" is one thing)
    verb = "are" if fields.plural(head) and not head.lower().endswith("news") else "is"
    return f"The {head}{about} {verb} {said}."


# A field said as "It's …" ("It's 10:42", "It's 3 degrees Celsius"), not "The time is …".
_SAID_AS_IT = frozenset(("time", "now", "clock", "datetime", "temperature", "temp"))


# The one key an app wraps a tool's text in: {"result": "sunny"}, {"output": "…"}
_WRAPPERS = frozenset(("result", "output", "response", "answer", "content", "text", "value"))


def _wrapped_text(data: Any) -> str | None:
    """The text of an output that is one wrapper key and a string ({"result": "sunny"}), not an
    acknowledgement ({"result": "ok"}); None otherwise. It was said as a field: "The result in Paris is
    sunny."."""
    if not isinstance(data, Mapping) or len(data) != 1:
        return None
    key, value = next(iter(data.items()))
    if str(key).lower() not in _WRAPPERS or not isinstance(value, str) or not value.strip():
        return None
    return None if value.strip().lower() in _ACKNOWLEDGEMENTS else value


def _only_acknowledged(data: Any) -> bool:
    """Whether an output holds nothing but an acknowledgement: ``{"status": "ok"}``, ``{"success":
    true}``, ``{"ok": true}``, "ok"."""
    if isinstance(data, Mapping):
        return (
            bool(data)
            and all(str(value).lower() in _ACKNOWLEDGEMENTS or value is True for value in data.values())
            and all(str(key).lower() in ("status", "result", "success", "ok", "state") for key in data)
        )
    return False


def _one_field(data: Any, named: str | None) -> tuple[str, Any] | None:
    """The one scalar fact of a lookup's output (``{"time": "10:42"}``, ``{"temperature_c": 21}``, ids,
    ``ok`` and the thing's own name aside) as (its key as words, its value); None for more, for a
    yes/no or a list (said by ``fields.sentence`` with the rest)."""
    if not isinstance(data, Mapping) or data.get("error"):
        return None
    kept = [
        (words, value)
        for key, value in data.items()
        if (words := lexicon.identifier_words(str(key)))
        and words not in ("ok", "id")
        and not words.endswith((" id", " ids"))
        and value != named
        and value is not None
    ]
    if len(kept) != 1 or isinstance(kept[0][1], bool) or not isinstance(kept[0][1], (int, float, str)):
        return None
    return kept[0] if str(kept[0][1]).strip() else None


def _is_place(named: str | None, arguments: Any) -> bool:
    """``named`` is a place: a value of a call argument that holds one (``city``), or a place the tables
    know ("Tokyo")."""
    if not named:
        return False
    if isinstance(arguments, Mapping) and any(
        value == named and implied.holds_place(str(key)) for key, value in arguments.items()
    ):
        return True
    return implied.place(named) is not None


def _place_preposition(named: str | None, arguments: Any) -> str:
    """How a place looked up is said after the answer: " to " for where a trip goes (``destination``,
    ``to_city``: "there are 2 flights to New York"), " from " for where it starts, else " in "."""
    if isinstance(arguments, Mapping):
        for key, value in arguments.items():
            words = lexicon.identifier_words(str(key)).split()
            if value == named and words and (words[0] == "to" or words[-1] in _DESTINATIONS):
                return " to "
            if value == named and words and (words[0] == "from" or words[-1] in _ORIGINS):
                return " from "
    return " in "


# Verbs of a tool that works a value out of its arguments: "convert_currency" → "The result is 270."
_CALCULATIONS = frozenset(("convert", "calculate", "compute", "estimate"))
_DESTINATIONS = frozenset(("destination", "to", "arrival"))
_ORIGINS = frozenset(("origin", "from", "departure"))
_LOOKUPS = READ_VERBS | frozenset(("lookup", "fetch"))


def _display_name(data: Any, depth: int = 0) -> str | None:
    if not isinstance(data, Mapping) or depth > 2:
        return None
    for key in ("title", "name", "label"):
        if isinstance(data.get(key), str) and data[key]:
            return str(data[key])
    for value in data.values():
        inner = _display_name(value, depth + 1)
        if inner:
            return inner
    for key, value in data.items():
        if isinstance(value, str) and key.lower().endswith("id") and value:
            return value.replace("-", " ").replace("_", " ")
    return None


def _state(data: Any) -> str | None:
    found = _found_state(data)
    return found[1] if found else None


def _state_key(data: Any) -> str | None:
    """Which of :data:`_STATE_KEYS` :func:`_state` read ("mode" is a view's: "grid", "detail")."""
    found = _found_state(data)
    return found[0] if found else None


def _found_state(data: Any, depth: int = 0) -> tuple[str, str] | None:
    if not isinstance(data, Mapping) or depth > 2:
        return None
    for key in _STATE_KEYS:
        if isinstance(data.get(key), str) and data[key]:
            return key, str(data[key]).replace("_", " ")
    for value in data.values():
        inner = _found_state(value, depth + 1)
        if inner:
            return inner
    return None


def _first_string(data: Any) -> str | None:
    if isinstance(data, Mapping):
        return next((v for v in data.values() if isinstance(v, str) and v), None)
    return None


def _scalar_answer(data: Any) -> str | None:
    """A lookup's output that is one value, as words: a number, or a string of one or two words that is
    no acknowledgement ("10:00", "sunny", 21 → "10:00", "sunny", "21"); else None."""
    if isinstance(data, bool) or not isinstance(data, (int, float, str)):
        return None
    words = str(data).strip().rstrip(".")
    if not words or len(words.split()) > 2 or words.lower() in _ACKNOWLEDGEMENTS:
        return None
    return words


_ACKNOWLEDGEMENTS = frozenset(("ok", "okay", "done", "success", "succeeded", "true", "false", "null", "none"))


def _plain_text(data: Any) -> str | None:
    """The first sentence of a text output of three words or more ("ok", "done" stay to the rules)."""
    if not isinstance(data, str) or len(data.split()) < 3:
        return None
    return _capped(names.SENTENCE_BREAK.split(" ".join(data.split()), maxsplit=1)[0])


def _capped(said: str) -> str:
    """``said`` within _SAID_MAX_CHARS (cut at a word, "…"), ending in a sentence's stop."""
    if len(said) > _SAID_MAX_CHARS:
        said = said[:_SAID_MAX_CHARS].rsplit(" ", 1)[0] + "…"
    return said if said[-1] in ".!?…" else said + "."


def _json(text: str) -> Any:
    return output_data(text)
