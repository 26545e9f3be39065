"""``$ref``s in a client's JSON Schema (a tool's ``parameters``, a response format) that cannot be
followed: nothing is fetched, so only pointers (``#/…``) and anchors into the schema itself resolve. The
live service refuses such a schema when it is declared (Chat Completions: "reference '…' cannot be
resolved within the schema."), not when a call is made."""

from __future__ import annotations

from typing import Any


def unresolvable_reference(node: Any, root: dict[str, Any]) -> str | None:
    """The first ``$ref`` in ``node`` (depth first, in document order) that is not a JSON pointer
    (``#/…``) or anchor into ``root``: nothing is fetched, so any other reference cannot be followed.
    Iterative: a schema nested a few hundred deep (which the JSON parser takes) exhausted the recursion."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            stack.extend(reversed(current))
        elif isinstance(current, dict):
            reference = current.get("$ref")
            if isinstance(reference, str) and not _resolves(reference, root):
                return reference
            stack.extend(reversed(list(current.values())))
    return None


def _resolves(reference: str, root: dict[str, Any]) -> bool:
    if not reference.startswith("#"):
        return False
    fragment = reference[1:]
    if fragment and not fragment.startswith("/"):
        return fragment in _anchors(root)
    target: Any = root
    for token in [t.replace("~1", "/").replace("~0", "~") for t in fragment.split("/")[1:]]:
        if isinstance(target, dict) and token in target:
            target = target[token]
        elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
            target = target[int(token)]
        else:
            return False
    return True


def _anchors(node: Any) -> set[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, dict):
            if isinstance(current.get("$anchor"), str):
                found.add(current["$anchor"])
            stack.extend(current.values())
    return found
