"""The question for a missing required argument, worded as a model words it: by what the parameter
holds, from its schema and name, never "Which party size do you mean?".

* an enum of a few options: "Which seating would you like: indoor or outdoor?" (its options, in order,
  as words: "living_room" is "living room"); on or off: "Should I turn it on or off?";
* a count (``party_size``, ``guests``, ``nights``, ``ticket_count``): "How many people will be in your
  party?", "How many guests?", "How many nights?"; a duration "For how long?"; another number
  (``level``): "What level would you like?";
* a date, a time, both (``check_in``, ``start_time``): "What check-in date would you like?", "What start
  time would you like?", "What date and time would you like?";
* a person's own name: "What name should I put the booking under?" (a booking tool), "What's the guest's
  name?" (``guest_name``);
* an email or web address, a phone number, an id: "What's the email address?", "What's the link?",
  "What's the phone number?", "What's the order ID?";
* a list: "Who should I include?" (people), "What items would you like?";
* free text, a search, where to go, where from: "What should it say?", "What should I look for?", "Where
  would you like to go?", "Where should I pick you up?"; what happened (``summary``, ``issue``): "Could
  you briefly describe the problem?"; a title: "What should the title be?";
* a yes/no flag: "Should it be on or off?";
* a payment card's parts: "What's the card number?", "What's the expiry date on the card?" (for
  ``exp_month`` and ``exp_year`` alike), "What's the security code on the back of the card?";
* anything else: "Which restaurant do you mean?".

Several missing: one question at a time (``first_to_ask``), what the call is about before its options:
the matter or subject in the user's own words ("Could you briefly describe the problem?" for a ticket's
``description``) first, then the other open values in the order ``required`` lists them, then choices
among options (an enum, a yes/no flag: "Which priority would you like: low, medium or high?") last. A
model often asks for two together; one at a time keeps each answer's parameter known (the answer to
"Which priority…?" fills ``priority``), and the order is a model's: what the ticket is about first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain import addresses, cards, lexicon, names, schema_values, told
from mockengine.brain.model import ToolSpec

# Most options said in the question ("indoor or outdoor?"); more are left to the user.
MAX_OPTIONS_SAID = 6

_PEOPLE = frozenset(("people", "person", "persons", "guests", "guest", "diners", "covers", "adults", "pax"))
_PARTY = frozenset(("party", "group"))
_COUNT_ONLY = frozenset(("count", "number", "num", "quantity", "qty", "amount", "total", "size", "of", "no"))
_DURATION = frozenset(("minutes", "mins", "hours", "seconds", "duration", "length"))
_BOOKING_VERBS = frozenset(("book", "reserve", "order", "schedule", "register", "make", "request"))
_PERSON_LISTS = frozenset(
    (
        "people",
        "attendees",
        "guests",
        "invitees",
        "participants",
        "recipients",
        "contacts",
        "members",
        "names",
    )
)
_SWITCHES = frozenset(("enabled", "enable", "on", "active", "state", "power", "switch", "status"))
_TEXT = frozenset(("text", "message", "note", "body", "content"))
_SEARCH = frozenset(("query", "search", "term", "keywords", "keyword"))
_GO_TO = frozenset(("destination", "dropoff", "drop off", "to", "arrival"))
_PICK_UP = frozenset(("pickup", "pick up", "origin", "from", "departure"))


# Parameters that hold what the call is about, in the speaker's words: asked for before anything else.
_ABOUT = told.MATTER | frozenset(("description", "subject", "title", "topic", "details"))


def first_to_ask(missing: list[str], tool: ToolSpec) -> str:
    """The parameter of ``missing`` (required, not heard; at least one) asked for first (module doc):
    what the call is about, then open values, then choices, each in ``missing``'s order."""
    properties = schema_values.properties_of(tool.parameters or {}) or {}
    return min(missing, key=lambda name: (_rank(name, properties.get(name)), missing.index(name)))


def _rank(parameter: str, schema: Any) -> int:
    schema = schema if isinstance(schema, Mapping) else {}
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if schema.get("enum") or kind == "boolean":
        return 2
    words = set(lexicon.identifier_words(parameter).split())
    return 0 if kind in ("string", None) and not schema.get("format") and words & _ABOUT else 1


def ask_for(parameter: str, tool: ToolSpec) -> str:
    """The question for ``tool``'s missing required ``parameter``."""
    words = (
        lexicon.identifier_words(parameter).replace("check in", "check-in").replace("check out", "check-out")
    )
    schema = (schema_values.properties_of(tool.parameters or {}) or {}).get(parameter)
    schema = schema if isinstance(schema, Mapping) else {}
    if told.tells_the_matter(parameter, tool.name, tool.description) and not schema.get("enum"):
        return "Could you briefly describe the problem?"
    asked = _by_kind(words, schema, parameter, tool)
    return asked if asked is not None else _by_name(words)


def _by_kind(words: str, schema: Mapping[str, Any], parameter: str, tool: ToolSpec) -> str | None:
    card = _card_question(parameter, tool)
    if card is not None:
        return card
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    options = [o for o in schema.get("enum") or () if o is not None]
    if options:
        return _options(words, [str(o) for o in options])
    if kind in ("integer", "number"):
        return _number(words)
    if kind == "array":
        return _list(words)
    if kind == "boolean":
        return "Should it be on or off?" if words in _SWITCHES else f"Should I set {words} to yes or no?"
    fmt = schema.get("format")
    split = words.split()
    if fmt == "date-time" or "datetime" in split:
        return "What date and time would you like?"
    if fmt == "date" or {"date", "day"} & set(split):
        return f"What {words if {'date', 'day'} & set(split) else words + ' date'} would you like?"
    if fmt == "time" or "time" in split:
        return f"What {words if 'time' in split else words + ' time'} would you like?"
    if split == ["when"]:
        return "When would you like it?"
    address = addresses.kind_of(parameter, schema)
    if address is not None:
        return {"url": "What's the link?", "phone": "What's the phone number?"}.get(
            address, "What's the email address?"
        )
    if {"phone", "mobile"} & set(split):
        return "What's the phone number?"
    if names.takes_own_name(parameter, tool.name):
        return _name(split, tool)
    if split and split[-1] in ("id", "number", "code", "reference", "ref"):
        return f"What's the {' '.join(split[:-1] + ['ID']) if split[-1] == 'id' else words}?"
    return None


def _card_question(parameter: str, tool: ToolSpec) -> str | None:
    """A payment card's part, asked as a checkout asks it: "What's the card number?", "What's the expiry
    date on the card?" (both ``exp_month`` and ``exp_year``: one answer, "04/28", fills both), "What's
    the security code on the back of the card?" ("What exp month would you like?" before). An expiry is
    a card's only on a tool about a card (``_about_a_card``): a membership's ``expiry_date`` is not."""
    if cards.takes_card_number(parameter):
        return "What's the card number?"
    if (cards.takes_expiry(parameter) or cards.expiry_part(parameter) is not None) and _about_a_card(tool):
        return "What's the expiry date on the card?"
    if cards.takes_security_code(parameter):
        return "What's the security code on the back of the card?"
    return None


def _about_a_card(tool: ToolSpec) -> bool:
    """``tool`` takes a card number, or its name or description says "card" (``pay_by_card``)."""
    properties = schema_values.properties_of(tool.parameters or {}) or {}
    if any(cards.takes_card_number(name) for name in properties):
        return True
    said = f"{lexicon.identifier_words(tool.name)} {tool.description or ''}".lower()
    return re.search(r"\bcards?\b", said) is not None


def _by_name(words: str) -> str:
    if words in _TEXT:
        return "What should it say?"
    if words in _SEARCH:
        return "What should I look for?"
    if words in _GO_TO:
        return "Where would you like to go?"
    if words in _PICK_UP:
        return "Where should I pick you up?"
    if words == "address":
        return "What's the address?"
    if set(words.split()) & told.MATTER:
        return "Could you briefly describe the problem?"
    if words in ("title", "subject", "label", "description"):
        return f"What should the {words} be?"
    return f"Which {words} do you mean?"


def _options(words: str, options: list[str]) -> str:
    if {o.lower() for o in options} == {"on", "off"}:
        return "Should I turn it on or off?"
    if len(options) > MAX_OPTIONS_SAID:
        return f"Which {words} would you like?"
    # said as words, as a model says them: "living_room" is "living room"
    spoken = [o.replace("_", " ") if re.fullmatch(r"[a-z0-9]+(?:_[a-z0-9]+)+", o) else o for o in options]
    said = spoken[0] if len(spoken) == 1 else f"{', '.join(spoken[:-1])} or {spoken[-1]}"
    return f"Which {words} would you like: {said}?"


def _number(words: str) -> str:
    split = set(words.split())
    if split & _PARTY:
        return "How many people will be in your party?"
    if split & _PEOPLE and split <= _PEOPLE | _COUNT_ONLY:
        return (
            "For how many people?"
            if split & {"people", "person", "persons", "pax", "covers"}
            else (f"How many {next(w for w in words.split() if w in _PEOPLE).rstrip('s')}s?")
        )
    if split & _DURATION:
        return "For how long?"
    counted = [w for w in words.split() if w not in _COUNT_ONLY]
    if not counted and split & {"count", "number", "num", "quantity", "qty"}:
        return "How many would you like?"
    if counted and (counted[-1].endswith("s") and not counted[-1].endswith("ss") or split & _COUNT_ONLY):
        thing = " ".join(counted)
        return f"How many {thing if thing.endswith('s') else thing + 's'}?"
    return f"What {words} would you like?"


def _list(words: str) -> str:
    if set(words.split()) & _PERSON_LISTS:
        return "Who should I include?"
    return f"What {words} would you like?"


def _name(words: list[str], tool: ToolSpec) -> str:
    who = [w for w in words if w != "name"]
    if who and who[0] not in ("first", "full", "last", "your", "user", "caller", "contact", "client"):
        return f"What's the {' '.join(who)}'s name?"
    verb = lexicon.identifier_words(tool.name).split()[:1]
    if set(verb) & _BOOKING_VERBS:
        return "What name should I put the booking under?"
    return "What name should I use?"
