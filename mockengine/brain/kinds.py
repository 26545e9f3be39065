"""How a parameter is filled, from its JSON Schema and its name: enum, number, boolean, list, datetime,
date, time, currency, address (an email or web address), patterned (a code its pattern accepts),
identifier, person or string."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain import addresses, cards, codes, lexicon, names
from mockengine.brain.wordlists import CURRENCIES


def kind_of(name: str, schema: Mapping[str, Any]) -> str:
    """How a parameter is filled: enum, number, boolean, datetime, date, time, identifier, string, other;
    a payment card's ``card_number``, ``expiry``, ``expiry_part`` (``exp_month``), ``card_code``."""
    schema = one_branch(schema)
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    words = lexicon.identifier_words(name).split()
    options = schema.get("enum")
    if isinstance(options, list):
        # ISO 4217 options ("GBP", "EUR") are said as currency names ("euros", "fifty bucks")
        coded = all(isinstance(o, str) and len(o) == 3 and o.isupper() for o in options)
        # options that are all currencies' codes need no "currency" in the name (``from``/``to``)
        known = all(o in CURRENCIES for o in options)
        return "currency" if coded and options and (known or codes.is_currency(name, schema)) else "enum"
    if cards.expiry_part(name) is not None:
        return "expiry_part"  # ``exp_month`` / ``exp_year``: one part of a card's expiry, number or string
    if kind in ("number", "integer"):
        return "number"
    if kind == "boolean":
        return "boolean"
    inner = schema.get("items")
    if kind == "array" and isinstance(inner, Mapping) and inner.get("type", "string") == "string":
        return "list"  # ["towels", "pillows"]
    extra = schema.get("additionalProperties")
    numbered = isinstance(extra, Mapping) and extra.get("type") in ("integer", "number")
    if kind == "object" and not schema.get("properties") and numbered:
        return "counts"  # {"apples": 12, "pears": 5}: a number for each thing named
    if kind not in (None, "string"):
        return "other"
    if addresses.kind_of(name, schema) is not None:
        return "address"  # "bob@example.com", "www.example.org"
    # a payment card's parts, read as a card is read out (``cards``): "expiry_date" is no calendar day
    if cards.takes_card_number(name):
        return "card_number"
    if cards.takes_expiry(name):
        return "expiry"
    if cards.takes_security_code(name):
        return "card_code"
    fmt = schema.get("format") or codes.format_of_pattern(schema.get("pattern")) or _described_format(schema)
    if fmt == "date-time" or "datetime" in words:
        return "datetime"
    if fmt == "date" or any(w in ("date", "day") for w in words) or words in _DAY_NAMES:
        return "date"
    if fmt == "time" or any(w in ("time", "hour", "when") for w in words):
        return "time"
    if codes.is_currency(name, schema):
        return "currency"
    if codes.is_code_pattern(schema.get("pattern")):
        return "patterned"  # "^[A-Z0-9]{8}$": a code the words hold as written or spoken
    if words and words[-1] in ("id", "number", "code", "sku", "zip", "pin"):
        return "identifier"
    return "person" if names.takes_a_name(name) else "string"


# Names that are a day by themselves: a hotel's check_in / check_out ("checkin", "checkout").
_DAY_NAMES = (["check", "in"], ["check", "out"], ["checkin"], ["checkout"])
# A description's first sentence that says the value is a date or a date-time: "Check-in date,
# YYYY-MM-DD", "ISO 8601 date", "Start date and time (ISO 8601)"; a time's clock format ("HH:MM").
_DESCRIBED_DATETIME = re.compile(
    r"\bdate[- ]?(?:and[- ])?time\b|\bdatetime\b|YYYY-MM-DD[T ]HH", re.IGNORECASE
)
_DESCRIBED_DATE = re.compile(r"\bdate\b|YYYY-MM-DD|\bISO[- ]?8601\b", re.IGNORECASE)
_DESCRIBED_TIME = re.compile(r"\bHH:MM\b", re.IGNORECASE)


def _described_format(schema: Mapping[str, Any]) -> str | None:
    """The ``format`` a string's description gives in words, as a model reads it: "date-time", "date",
    "time" or None. Only the first sentence counts ("Notes. Mention the date if known." is a note)."""
    description = schema.get("description")
    if not isinstance(description, str):
        return None
    first = re.split(r"(?<=[.!?])\s", description.strip(), maxsplit=1)[0]
    if re.search(r"\bduration\b", first, re.IGNORECASE):
        return None  # "ISO 8601 duration" ("PT30M") is no day
    if _DESCRIBED_DATETIME.search(first):
        return "date-time"
    if _DESCRIBED_DATE.search(first):
        return "date"
    return "time" if _DESCRIBED_TIME.search(first) else None


def one_branch(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """A nullable written as ``anyOf`` (a strict-mode optional: ``{"anyOf": [{"type": "integer"},
    {"type": "null"}]}``, the OpenAI Agents SDK's ``level: int | None``) read as its one branch that is not
    null, so an optional number is still read as a number; any other schema as it is."""
    if "type" in schema:
        return schema
    branches = schema.get("anyOf") or schema.get("oneOf")
    if not isinstance(branches, list):
        return schema
    kept = [b for b in branches if isinstance(b, Mapping) and b.get("type") != "null"]
    if len(kept) != 1 or "$ref" in kept[0]:
        return schema
    return {**kept[0], **{k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}}
