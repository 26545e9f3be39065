"""Whether a tool's output says the tool failed, and why, as a model reads it.

A model told ``{"ok": false}`` after ``book_table`` says it couldn't book the table, not "I've booked the
table."; ``{"status": "error", "detail": "city not found"}`` is "I couldn't get the weather in Paris: city
not found.", not "The status in Paris is error …"; "HTTP 500 Internal Server Error" or "ValueError: city
not found" written by a tool is a failure, not the answer to read out. Read by the fields' names and the
values' shapes (``wordlists``):

- a success flag that is false: ``ok``, ``success``, ``succeeded``, ``successful``, ``accepted``;
- a status of failure: ``status`` / ``state`` / ``result`` / ``outcome`` of "error", "failed", … beside
  nothing but the failure's own fields (a reason, a code), to a tool that asks for no state; or an HTTP
  status of 400–599 in ``status`` / ``status_code``;
- a non-empty ``error`` / ``errors`` / ``exception`` / ``fault`` field (HRP's ``{"error": …}`` refusal is
  ``situation.output_error``'s and is read there first);
- a text that is an HTTP error ("HTTP 500 …", "404 Not Found"), an exception ("ValueError: …", a Python
  traceback) or opens "Error:" / "Failed:".

The reason is the first of ``reason``, ``detail``, ``message``, … (``wordlists.REASON_FIELDS``), an error
object's message, or the exception's or HTTP status's words; "" when none is given. Where the real
service's model would word it otherwise is unknown: this is chosen to read as a model reads it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mockengine.brain import implied, lexicon
from mockengine.brain.output_data import output_data
from mockengine.brain.wordlists import (
    ASIDE_COUNTS,
    DONE_COUNTS,
    ERROR_FIELDS,
    ERROR_LOOKUPS,
    FAILED_COUNTS,
    FAILED_STATES,
    FAILURE_ONLY_FIELDS,
    HTTP_ERROR_PHRASES,
    HTTP_STATUS_FIELDS,
    READ_VERBS,
    REASON_FIELDS,
    RECORD_FAILED_STATES,
    STATE_FIELDS,
    STATE_LOOKUPS,
    SUCCESS_FLAGS,
)

__all__ = ["PartialFailure", "failure_reason", "partial_failure", "reason_clause"]

_LOOKUP_VERBS = READ_VERBS | frozenset(("lookup", "fetch"))

# A reason longer than this is cut at a word (a stack trace is no reason to read out).
_REASON_MAX_CHARS = 160
_HTTP_PHRASES = "|".join(re.escape(p) for p in HTTP_ERROR_PHRASES)
# "HTTP 500 Internal Server Error", "HTTP/1.1 404 Not Found", "HTTP error 503: …", "Error 404: city not
# found", "404 Not Found", "500 - Internal Server Error".
_HTTP_TEXT = re.compile(
    rf"^\W*(?:(?:HTTP(?:/\d(?:\.\d)?)?(?:\s+error)?|error|status(?:\s+code)?)[\s:]*(?P<code>[45]\d\d)\b"
    rf"|(?P<bare>[45]\d\d)\s*[-:]?\s*(?=(?:{_HTTP_PHRASES})\b))"
    r"\s*[-:]?\s*(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
# "ValueError: city not found", "requests.exceptions.ConnectionError: …", "Exception: …".
_EXCEPTION_TEXT = re.compile(
    r"^\s*(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception)\b(?::\s*(?P<rest>.*))?$", re.DOTALL
)
_TRACEBACK = re.compile(r"^\s*Traceback \(most recent call last\)")
_ERROR_TEXT = re.compile(r"^\s*(?:error|failed|failure)\s*:\s*(?P<rest>.+)$", re.IGNORECASE | re.DOTALL)
# What follows "Error:" when there was none: "Error: None" (a program printing an empty error), or a
# tally ("Failed: 0, Passed: 12" is a count of failures, no failure of the tool).
_NO_ERROR = re.compile(r"^(?:(?:none|null|nil|false|n/?a|-)\W*$|\d+\s*(?:[,;]|$))", re.IGNORECASE)


def failure_reason(output: str, call_name: str | None = None, call_arguments: Any = None) -> str | None:
    """Why the tool ``call_name`` failed, as a clause ("city not found"), "" for a failure with no reason
    given, or None when ``output`` says no failure. A failed status is the answer itself to a tool that
    asks for a state (``get_payment_status`` → ``{"status": "failed"}``: the payment's) and, beside
    other facts (``{"state": "failed", "exit_code": 2}``) or to a lookup of a record by its id
    (``call_arguments`` ``{"payment_id": …}``), the state of the thing looked up."""
    data = output_data(output)
    if isinstance(data, Mapping):
        asked_words = lexicon.identifier_words(call_name or "").split()
        asked = set(asked_words)
        by_id = (
            asked_words[:1] != []
            and asked_words[0] in _LOOKUP_VERBS
            and isinstance(call_arguments, Mapping)
            and any(_is_id(str(key)) for key in call_arguments)
        )
        return _of_fields(
            data,
            states_fail=not asked & STATE_LOOKUPS,
            errors_fail=not asked & ERROR_LOOKUPS,
            record_states=by_id,
        )
    if data is None and output.strip():
        return _of_text(output)
    return None


@dataclass(frozen=True)
class PartialFailure:
    """A batch's outcome: ``done`` parts went through (as ``done_word`` says: "sent"), ``failed`` did not
    (``failed_names``: those the output names, when it lists them), ``asides`` the other counts said
    ("3 skipped"); ``keys`` are the output's fields these were read from."""

    done: int
    done_word: str
    failed: int
    failed_names: tuple[str, ...]
    asides: tuple[tuple[int, str], ...]
    keys: frozenset[str]


def partial_failure(data: Any) -> PartialFailure | None:
    """The counts of a batch that partly or wholly failed, when ``data`` (a tool's output) gives a count
    of failures above 0 (``"failed": 2``, ``"errors": 1``, or the list of them) beside a count of those
    that went through (``"sent": 12``); None otherwise (no such counts, or no failure among them). A model
    says both ("12 sent, but 2 failed"), never only the 12."""
    if not isinstance(data, Mapping):
        return None
    fields = {lexicon.identifier_words(str(key)): (str(key), value) for key, value in data.items()}
    done = next(
        (
            (words, key, value)
            for words, (key, value) in fields.items()
            if words in DONE_COUNTS and _count(value)
        ),
        None,
    )
    failed = next(
        (
            (key, value)
            for words, (key, value) in fields.items()
            if words in FAILED_COUNTS and (_count(value) or isinstance(value, list) and value)
        ),
        None,
    )
    if done is None or failed is None:
        return None
    count = failed[1] if _count(failed[1]) else len(failed[1])
    if count <= 0:
        return None
    names = tuple(n for n in (_said(item) for item in failed[1]) if n) if isinstance(failed[1], list) else ()
    asides = tuple(
        (value, words)
        for words, (key, value) in fields.items()
        if words in ASIDE_COUNTS and _count(value) and value > 0
    )
    keys = frozenset({done[1], failed[0]} | {k for w, (k, v) in fields.items() if w in ASIDE_COUNTS})
    return PartialFailure(done[2], done[0], count, names, asides, keys)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_id(key: str) -> bool:
    words = lexicon.identifier_words(key)
    return words == "id" or words.endswith(" id")


def _of_fields(
    data: Mapping[str, Any], *, states_fail: bool, errors_fail: bool = True, record_states: bool = False
) -> str | None:
    fields = {lexicon.identifier_words(str(key)): value for key, value in data.items()}
    failed = any(fields.get(flag) is False for flag in SUCCESS_FLAGS)
    state = next(
        (
            key
            for key in STATE_FIELDS
            if isinstance(fields.get(key), str)
            and str(fields[key]).strip().lower() in FAILED_STATES
            and not (record_states and str(fields[key]).strip().lower() in RECORD_FAILED_STATES)
        ),
        None,
    )
    only_failure = all(
        key == state or key in FAILURE_ONLY_FIELDS or key in REASON_FIELDS or key in ERROR_FIELDS
        for key in fields
    )
    failed = failed or (state is not None and states_fail and only_failure)
    code = next(
        (v for k, v in fields.items() if k in HTTP_STATUS_FIELDS and _http_error_code(v) is not None), None
    )
    failed = failed or code is not None
    failed = (
        failed
        or errors_fail
        and any(_said(fields.get(key)) or fields.get(key) is True for key in ERROR_FIELDS)
    )
    if not failed:
        return None
    for key in REASON_FIELDS:
        reason = _said(fields.get(key))
        if reason:
            return _clause(reason)
    return _clause(_http_said(int(code), "")) if code is not None else ""


def _of_text(text: str) -> str | None:
    if _TRACEBACK.match(text):
        last = text.strip().splitlines()[-1]
        exception = _EXCEPTION_TEXT.match(last)
        # KeyError: 'Paris' says which key was missing, no reason a user is told
        rest = (exception.group("rest") or "") if exception else ""
        return _clause(rest) if rest and not rest.startswith(("'", '"')) else ""
    http = _HTTP_TEXT.match(text)
    if http is not None:
        code = int(http.group("code") or http.group("bare"))
        return _clause(_http_said(code, http.group("rest")))
    exception = _EXCEPTION_TEXT.match(text)
    if exception is not None:
        rest = (exception.group("rest") or "").strip()
        return _clause(rest) if rest and not rest.startswith(("'", '"')) else ""
    error = _ERROR_TEXT.match(text)
    if error is not None and not _NO_ERROR.match(error.group("rest").strip()):
        return _clause(error.group("rest"))
    return None


def _http_said(code: int, rest: str) -> str:
    """An HTTP error's reason: the words after its phrase when they say more ("city not found"), else the
    status itself ("the service returned an error (HTTP 500 Internal Server Error)")."""
    words = " ".join(rest.split()).strip(" .")
    phrase = next((p for p in HTTP_ERROR_PHRASES if words.lower().startswith(p)), None)
    if words and phrase is None:
        return words
    status = f"HTTP {code} {words}" if words else f"HTTP {code}"
    return f"the service returned an error ({status})"


def _http_error_code(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and 400 <= value <= 599 else None


def _said(value: Any) -> str | None:
    """An error field's words: a string, an error object's message, a list's first; None for none."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, Mapping):
        for key in ("message", "detail", "reason", "description", "msg", "title", "error"):
            inner = _said(value.get(key))
            if inner:
                return inner
        return None
    if isinstance(value, list) and value:
        return _said(value[0])
    return None


def reason_clause(reason: str, names: frozenset[str] = frozenset()) -> str:
    """A failure's reason as the app wrote it (``{"error": "No tables free at 8."}``) said after "I
    couldn't …:" ("no tables free at 8"); see ``_clause``. An opening word among ``names`` (the words of
    the call's arguments: "Dario is not in this meeting" after ``to: "Dario"``) keeps its capital."""
    if not reason.strip():
        return ""
    first = reason.split()[0].strip(".,:;!?")
    return " ".join(reason.split()).strip().rstrip(".!") if first in names else _clause(reason)


def _clause(reason: str) -> str:
    """``reason`` said after "I couldn't …:": one line, within _REASON_MAX_CHARS, its opening lowered
    unless it is a name or an acronym ("City not found" → "city not found", "HTTP 500" kept), no stop."""
    said = " ".join(reason.split()).strip().rstrip(".!")
    if len(said) > _REASON_MAX_CHARS:
        said = said[:_REASON_MAX_CHARS].rsplit(" ", 1)[0] + "…"
    first = said.split(" ", 1)[0]
    if first[:1].isupper() and first[1:].islower() and implied.place(first) is None:
        said = said[0].lower() + said[1:]
    return said
