"""What a model says once an order went through: "I've placed your order for 3 burgers to 12 Main Street.
The order number is A100.", from the call's things and address and the output's reference, never the
output read back as it came ("Order A100 placed.") nor "I've created the order to 12 Main Street.".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain import lexicon
from mockengine.brain.wordlists import ORDERING_VERBS

# Verbs that make an order when the tool is named for one (create_order, place_order, submit_order).
_MAKES = frozenset(("create", "place", "submit", "make", "new", "add"))
# Names of the arguments that hold the things ordered, and their count.
_THINGS = frozenset(("items", "item", "products", "product", "dishes", "dish", "food", "foods", "order"))
_COUNTS = frozenset(("quantity", "qty", "count", "amount", "number"))
_WHERE = frozenset(("address", "street", "destination", "location"))
# A text output that tells of no order placed ("Out of stock", "Sorry, we're closed").
_NOT_PLACED = re.compile(
    r"\b(?:not|no|fail(?:ed|s)?|error|unavailable|sorry|cannot|can't|couldn't|unable|closed|out of stock"
    r"|rejected|declined|invalid)\b",
    re.IGNORECASE,
)
# An order's number in a text output ("Order A100 placed", "order #4471 confirmed"): a token of capitals
# and digits, with at least one digit.
_CODE = re.compile(r"#?\b(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9-]{2,}\b")


def places_orders(name: str) -> bool:
    """Whether tool ``name`` places an order (``order_food``, ``create_order``, ``place_order``)."""
    words = lexicon.identifier_words(name).lower().split()
    return bool(words) and (words[0] in ORDERING_VERBS or (words[0] in _MAKES and "order" in words[1:]))


def names_an_order(name: str) -> bool:
    """Whether tool ``name`` makes an order it is named for (``create_order``, ``place_order``)."""
    words = lexicon.identifier_words(name).lower().split()
    return bool(words) and words[0] in _MAKES and "order" in words[1:]


def said(
    name: str, arguments: Any, text: str | None, reference: tuple[str, str] | None, state: str | None = None
) -> str | None:
    """The confirmation of an order placed by tool ``name`` with ``arguments`` (the things and where they
    go); ``text`` is the output when it is text, ``reference`` (its name, its value) the one a
    structured output gives, ``state`` its status ("pending" is said; "placed" says nothing new). A tool
    named by its ordering verb (``order_item``) is confirmed so only for a text output. None when the
    tool places no order, the call names no thing ordered, or a text output tells of none
    placed (it is said as it came)."""
    if not places_orders(name) or not isinstance(arguments, Mapping):
        return None
    if not names_an_order(name) and (text is None or len(text.split()) < 3):
        # order_item {item: USB cable} → {"status": "ok"} keeps "I've ordered the item: USB cable."; only
        # its text output ("Order A100 placed") would have been read back as it came
        return None
    if text is not None and _NOT_PLACED.search(text):
        return None
    things = _things(arguments)
    if not things:
        return None
    where = next(
        (
            value
            for key, value in arguments.items()
            if isinstance(value, str) and value.strip() and _WHERE & _words(key)
        ),
        None,
    )
    sentence = f"I've placed your order for {things}" + (f" to {where}" if where else "") + "."
    if reference is None and text is not None:
        code = _CODE.search(text)
        reference = ("order number", code.group(0).lstrip("#")) if code else None
    if state and state.lower() not in _SAID_ALREADY:
        sentence = f"{sentence} It's {state}."
    if reference is None:
        return sentence
    return f"{sentence} The {reference[0]} is {reference[1]}."


# An order's status that placing it already says.
_SAID_ALREADY = frozenset(
    (
        "placed",
        "created",
        "confirmed",
        "ok",
        "okay",
        "success",
        "succeeded",
        "done",
        "accepted",
        "received",
        "true",
    )
)


def _things(arguments: Mapping[str, Any]) -> str:
    """The things ordered as said ("3 burgers", "2 pizzas and a coke"), "" when the call names none."""
    count = next(
        (
            v
            for k, v in arguments.items()
            if _COUNTS & _words(k) and isinstance(v, int) and not isinstance(v, bool)
        ),
        None,
    )
    named: list[str] = []
    for key, value in arguments.items():
        if not _THINGS & _words(key):
            continue
        for each in value if isinstance(value, list) else [value]:
            if isinstance(each, str) and each.strip():
                named.append(each.strip())
            elif isinstance(each, Mapping):
                thing = next((v for k, v in each.items() if isinstance(v, str) and v.strip()), None)
                many = next((v for k, v in each.items() if _COUNTS & _words(k) and isinstance(v, int)), None)
                if thing is not None:
                    named.append(_counted(many, thing.strip()))
    if len(named) == 1 and count is not None:
        named = [_counted(count, named[0])]
    else:
        # "a latte", "a latte and a croissant": one thing of no count is said with its article, as a model
        # says it ("your order for latte" read as a form's field); "fries", "sushi", "2 lattes" stay
        named = [_counted(1, thing) if _one_of_a_kind(thing) else thing for thing in named]
    return " and ".join([", ".join(named[:-1]), named[-1]]) if len(named) > 1 else "".join(named)


def _counted(count: int | None, thing: str) -> str:
    if count is None or thing[:1].isdigit():
        return thing
    if count == 1:
        return f"{_article(thing)} {thing}" if not _determined(thing) else thing
    return f"{count} {thing}"


# Words that open a thing already counted or determined ("the usual", "some fries", "two lattes").
_DETERMINERS = frozenset(
    (
        "a",
        "an",
        "the",
        "some",
        "my",
        "our",
        "your",
        "his",
        "her",
        "their",
        "this",
        "that",
        "these",
        "those",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "twelve",
        "dozen",
        "half",
        "several",
        "few",
        "couple",
        "any",
        "each",
        "every",
        "another",
        "more",
        "extra",
    )
)
# Things ordered by the amount, not one by one ("your order for sushi", not "for a sushi").
_MASS = frozenset(
    (
        "sushi",
        "rice",
        "pasta",
        "spaghetti",
        "ramen",
        "water",
        "milk",
        "bread",
        "cheese",
        "food",
        "popcorn",
        "cereal",
        "granola",
        "broccoli",
        "spinach",
        "chocolate",
        "candy",
        "cash",
        "stuff",
    )
)
# Capital letters said with a vowel sound first ("an SSD", "an HDMI cable"; "a USB cable").
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")


def _determined(thing: str) -> bool:
    return thing.split()[0].lower() in _DETERMINERS


def _one_of_a_kind(thing: str) -> bool:
    """Whether ``thing`` names one of something said without its article ("latte", "oat milk latte"; not
    "fries", "sushi", "2 lattes", "the usual")."""
    words = thing.split()
    if not words or thing[:1].isdigit() or _determined(thing):
        return False
    last = words[-1].lower()
    plural = last.endswith("s") and not last.endswith(("ss", "us", "is", "ys")) and len(last) > 3
    return not plural and last not in _MASS


def _article(thing: str) -> str:
    """ "a" or "an" as the first word of ``thing`` is said: "an espresso", "a USB cable", "an SSD"."""
    first = thing.split()[0]
    if len(first) > 1 and first.isupper() and first.isalpha():  # an initialism, read letter by letter
        return "an" if first[0] in _VOWEL_LETTERS else "a"
    if first.lower().startswith(("uni", "use", "usu", "eu", "one")):  # "a unicorn cake", "a euro coin"
        return "a"
    return "an" if first[:1].lower() in "aeiou" else "a"


def _words(key: object) -> set[str]:
    return set(lexicon.identifier_words(str(key)).lower().split())
