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
