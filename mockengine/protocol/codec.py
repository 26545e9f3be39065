"""JSON of server events: orjson where it writes what ``json`` would mean, ``json`` elsewhere.

Every server event goes out as JSON text, among them a reply's audio deltas (about 13 kB of base64
each, several a second per talking session). orjson writes them about 20 × faster than
``json.dumps``. Its text is compact UTF-8 (no spaces after separators, non-ASCII characters as they
are, like ``json.dumps(..., ensure_ascii=False)`` without the spaces), which any JSON parser reads as
the same value. Values orjson refuses fall back to ``json.dumps(value, ensure_ascii=False)``: integers
beyond 64 bits (a client may send one and see it echoed), strings holding lone surrogates, keys that
are not strings.

:func:`dumps_utf8` gives the UTF-8 bytes a WebSocket TEXT frame carries: orjson's own output, with no
``str`` made and encoded again on the way out (issue 15: the session loop sends these bytes as they are).
:func:`dumps` is the same JSON as ``str`` (``dumps(v).encode() == dumps_utf8(v)`` wherever UTF-8 can
carry the text).
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson


def dumps(value: Any) -> str:
    """The JSON text of ``value`` (a JSON-ready dict, list, str, number, bool or None)."""
    try:
        return orjson.dumps(value).decode("utf-8")
    except TypeError:
        return json.dumps(value, ensure_ascii=False)


def dumps_utf8(value: Any) -> bytes:
    """:func:`dumps` as UTF-8 bytes, made once. A lone surrogate, which UTF-8 cannot carry (and which
    ``dumps``' text could not be sent with), is written as a JSON escape (``\\ud800`` for U+D800) instead."""
    try:
        return orjson.dumps(value)
    except TypeError:
        text = json.dumps(value, ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value).encode("ascii")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# Objects and arrays nest at most this deep in what a client sends (a WebSocket frame, an HTTP body): the
# engine walks tool schemas and session configs recursively, and a few hundred levels (under the
# parser's own limit) exhausted its stack (a 500). Real requests stay far below it.
MAX_NESTING = 64


def is_nested_deeper_than(data: Any, limit: int) -> bool:
    """Whether objects and arrays in ``data`` nest deeper than ``limit``. Iterative, so a hostile value
    cannot exhaust the stack here."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return True
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads_strict(raw: str | bytes, max_nesting: int | None = MAX_NESTING) -> Any:
    """The JSON value of an HTTP request body (or a form field holding JSON), read as the live service
    reads JSON: raises ``ValueError`` (with the reason) for text that is not JSON, ``NaN`` / ``Infinity``
    (Python's extensions, which no other parser reads and which would come back in an answer as
    non-JSON), objects and arrays nested deeper than ``max_nesting`` (``None``: as deep as the parser
    goes), and a string with a lone UTF-16 surrogate escape (no character: UTF-8, the tokenizer and piper
    refuse it)."""
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
    except RecursionError as exc:
        raise ValueError("objects and arrays nest deeper than the parser goes") from exc
    if max_nesting is not None and is_nested_deeper_than(value, max_nesting):
        raise ValueError(f"objects and arrays may nest at most {max_nesting} deep")
    text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
    if _SURROGATE_ESCAPE.search(text) is not None:
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except (UnicodeEncodeError, RecursionError) as exc:
            raise ValueError("a string holds an unpaired UTF-16 surrogate escape") from exc
    return value
