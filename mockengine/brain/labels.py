"""A required free string still missing, read from the words said right next to its name ("with high
priority", "priority high", "a priority of high" → ``priority: "high"``), taken back out of any other
value that swallowed them ("buy milk with high priority" → ``text: "buy milk"``); and a form filled in
words, each value after its parameter's name and a colon ("subject: Report, body: The report is attached",
``labelled_fields``), read before anything else takes those words."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mockengine.brain import verbatim
from mockengine.brain.lexicon import identifier_words

_DANGLING = re.compile(r"(?:[\s,;:-]+(?:with|of|and|at|a|an|the))*[\s,;:-]*$", re.I)


def fill_beside_label(
    said: str,
    arguments: dict[str, Any],
    sources: dict[str, str],
    names: list[str],
    own: Callable[[str], bool],
) -> None:
    """Fill each of ``names`` not in ``arguments`` from ``verbatim.beside_label`` on ``said``; a value
    ``own`` says is the tool's own words ("start a new game" for new_game) names nothing."""
    for name in [n for n in names if n not in arguments]:
        span = verbatim.beside_label(said, name)
        if span is None or own(str(span.value)):
            continue
        words = said[span.start : span.end]
        for other, value in list(arguments.items()):
            if isinstance(value, str) and words.lower() in value.lower():
                at = value.lower().index(words.lower())
                kept = (_DANGLING.sub("", value[:at]) + " " + value[at + len(words) :].strip(" ,;:")).strip()
                if kept:
                    arguments[other] = kept
        arguments[name], sources[name] = span.value, f"{words} (said next to its name)"


# A field's name opening a value the way a form is filled in words: "subject: Report, body: The report is
# attached", "Hobbies: chess, hiking". The name opens the words, a clause (after a comma, a full stop, a
# semicolon) or follows "and", "with" or "the"; a colon follows it. A recipient's name (to, cc, bcc) needs
# no colon before an email address ("… CC dave@example.com").
_OPENS = r"(?:^|(?<=[,;.!?\n])|(?<=\band)|(?<=\bwith)|(?<=\bthe))\s*"
_RECIPIENTS = frozenset(("to", "cc", "bcc"))
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_TRAILING = re.compile(r"(?:[\s,;:-]+(?:and|with|the|plus))*[\s,;:.-]*$", re.IGNORECASE)
_ITEM_BREAK = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*;\s*", re.IGNORECASE)


def _label(name: str) -> str | None:
    """A parameter's name as said: its words, the last one singular or plural ("hobby", "hobbies")."""
    words = [re.escape(word) for word in identifier_words(name).split()]
    if not words:
        return None
    return r"\s+".join([*words[:-1], rf"{words[-1]}(?:e?s)?"])


def labelled_fields(text: str, properties: dict[str, Any]) -> list[tuple[str, Any, int, int]]:
    """The values ``text`` gives the parameters in ``properties`` (name → JSON Schema) by their names, a
    form filled in words: ``(name, value, start, end)`` each, ``[start, end)`` the label and its value,
    in the text's order; [] unless one label takes a colon or is a copy's (cc, bcc). A value runs to the
    next label or the end (trailing "and" and punctuation left out); a string takes it as said, an enum
    the option it names, a number the number it is, a list of strings its items ("chess, hiking" →
    ``["chess", "hiking"]``; of a recipient list, the email addresses). An object, or a value of the
    wrong kind, is left to the other readings."""
    found: list[tuple[int, int, str, bool]] = []  # label start, value start, name, colon
    for name in properties:
        label = _label(name)
        if label is None:
            continue
        colon = re.compile(rf"{_OPENS}(?P<label>\b{label})\s*:\s*", re.IGNORECASE)
        found += [(m.start("label"), m.end(), name, True) for m in colon.finditer(text)]
        if name.lower() in _RECIPIENTS:
            bare = re.compile(rf"{_OPENS}(?P<label>\b{label})\s+(?={_EMAIL.pattern})", re.IGNORECASE)
            found += [(m.start("label"), m.end(), name, False) for m in bare.finditer(text)]
    if not any(colon or name.lower() != "to" for _, _, name, colon in found):  # "cc dave@…" is a label
        found = _bare_form(text, properties)
        if not found:
            return []
    found.sort()
    values: list[tuple[str, Any, int, int]] = []
    seen: set[str] = set()
    for index, (start, value_start, name, _) in enumerate(found):
        end = found[index + 1][0] if index + 1 < len(found) else len(text)
        raw = _TRAILING.sub("", text[value_start:end]).strip()
        value = _typed(raw, properties[name], name)
        if value is not None and name not in seen:
            seen.add(name)
            values.append((name, value, start, value_start + len(raw)))
    return values


# A label said without its colon opens a clause: the words' start, after a comma, a semicolon or a full
# stop, or after "with" ("… with subject Report, body The report is attached").
_BARE_OPENS = r"(?:^|(?<=[,;.!?\n])|(?<=\bwith))\s*"


def _bare_form(text: str, properties: dict[str, Any]) -> list[tuple[int, int, str, bool]]:
    """A form filled in words without colons ("subject Report, body The report is attached"): each
    parameter's name (a recipient's aside) opening a clause and followed by a word, read as a label only
    when two or more parameters are named so: one name alone ("with subject Lunch and say …") is read as
    before. ``(label start, value start, name, False)`` each; [] when fewer than two."""
    found: list[tuple[int, int, str, bool]] = []
    for name in properties:
        label = _label(name)
        if label is None or name.lower() in _RECIPIENTS:
            continue
        bare = re.compile(rf"{_BARE_OPENS}(?P<label>\b{label})\s+(?=[\w\"'])", re.IGNORECASE)
        found += [(m.start("label"), m.end(), name, False) for m in bare.finditer(text)]
    return found if len({name for _, _, name, _ in found}) >= 2 else []


# A copy's recipients said as an instruction ("CC dave@example.com", "bcc: erin@example.com").
_COPY_ASKED = re.compile(
    rf"(?:\s*[,;.]?\s*(?:and\s+|also\s+|please\s+)*)\b(?:cc|bcc)\b\s*:?\s*{_EMAIL.pattern}"
    rf"(?:\s*(?:,|\band\b)\s*{_EMAIL.pattern})*",
    re.IGNORECASE,
)


def without_copies_not_taken(text: str, properties: dict[str, Any]) -> str:
    """``text`` without a copy asked of a tool that takes none ("Bus leaves at 9. CC dave@example.com" →
    "Bus leaves at 9." when no ``cc`` / ``bcc`` parameter is declared). A model does not paste an
    instruction to the tool into the message it writes: the copy is left unsent (the tool cannot send it)
    and the message is the words dictated. ``text`` as it is when the tool takes the copy."""
    if {"cc", "bcc"} & {name.lower() for name in properties}:
        return text
    return _COPY_ASKED.sub("", text)


def _typed(raw: str, schema: Any, name: str) -> Any:
    """``raw`` as a value of ``schema``, or None when it is none."""
    if not raw or not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if isinstance(schema.get("enum"), list):
        return next((o for o in schema["enum"] if isinstance(o, str) and o.lower() == raw.lower()), None)
    if kind == "string":
        return raw if schema.get("format") is None or _EMAIL.fullmatch(raw) else None
    if kind in ("integer", "number"):
        number = re.fullmatch(r"-?\d+(?:\.\d+)?", raw.replace(",", ""))
        if number is None:
            return None
        value = float(number.group(0))
        return int(value) if kind == "integer" and value.is_integer() else value if kind == "number" else None
    items = schema.get("items")
    if kind == "array" and isinstance(items, dict) and items.get("type") == "string" and "enum" not in items:
        if name.lower() in _RECIPIENTS | {"recipients", "emails", "attendees"} and _EMAIL.search(raw):
            return _EMAIL.findall(raw)
        listed = [item.strip(" .") for item in _ITEM_BREAK.split(raw) if item.strip(" .")]
        return listed or None
    return None
