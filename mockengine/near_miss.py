"""Near misses: the name a user probably meant, offered in one shape everywhere.

A misspelt fault kind or parameter, scenario name or key, command-line option or choice, environment
variable or pytest marker setting is answered with the closest known name, if one is close, as a
parenthesis right after the name it corrects: ``unknown fault kind 'response_faild' (did you mean
'response_failed'?)``, ``unrecognized arguments: --prot (did you mean '--port'?) 8000``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

# difflib's similarity ratio a choice needs to be offered (its own default): "stauts" → "status" (0.67),
# "heard_contain" → "heard_contains"; "nope" offers nothing among the serve options.
CUTOFF = 0.6


def nearest(word: str, choices: Iterable[str], *, prefix: str = "") -> str | None:
    """The choice closest to ``word``, or None when none is close (ratio below :data:`CUTOFF`).

    Compared without case (``MOCKENGINE_seed`` meant ``MOCKENGINE_SEED``) and without ``prefix``, which
    the word and the choices share (``--``, ``MOCKENGINE_``): left in, a long shared prefix alone makes
    every choice look alike (``MOCKENGINE_FOO`` would offer ``MOCKENGINE_LOOP``)."""
    by_key: dict[str, str] = {}
    for choice in choices:
        by_key.setdefault(_key(choice, prefix), choice)
    near = difflib.get_close_matches(_key(word, prefix), list(by_key), n=1, cutoff=CUTOFF)
    return by_key[near[0]] if near else None


def did_you_mean(word: str, choices: Iterable[str], *, prefix: str = "") -> str:
    """`` (did you mean 'x'?)`` for the :func:`nearest` choice to ``word``, else ``""``: appended right
    after the name it corrects."""
    near = nearest(word, choices, prefix=prefix)
    return f" (did you mean {near!r}?)" if near is not None else ""


def _key(name: str, prefix: str) -> str:
    folded = name.casefold()
    return folded.removeprefix(prefix.casefold()) if prefix else folded
