"""The recorded responses a replay has begun on the wire and not yet finished, and how one is ended early.

A replay sends a recorded response event by event. When it stops in the middle of one — a strict
replay's divergence, a fallback to the scripted participant, a recording that ends before that
response's ``response.done`` — the client, which waits for ``response.done`` as it would from the real
service, must still get one. :class:`OpenResponses` follows the re-stamped events that go out (which
responses are open, the output items each has begun and finished), makes the ``response.done`` that
ends one now (``failed`` with its error, or ``cancelled`` with its reason: the protocol's own shapes,
reference §6), and from then on drops that response's recorded events still to come, so a replay that
later moves on past the divergence never sends a second ``response.done`` or deltas of a response that
is over (sans-IO).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from mockengine.protocol import server_events as se
from mockengine.realtime.response import Usage

ITEM_LIFECYCLE = ("conversation.item.added", "conversation.item.done")


@dataclass
class _Open:
    response: dict[str, Any]  # the response object of its response.created
    items: dict[str, dict[str, Any]] = field(default_factory=dict)  # item id → latest wire item


class OpenResponses:
    def __init__(self) -> None:
        self._open: dict[str, _Open] = {}  # live response id → what went out of it
        self._ended: set[str] = set()  # responses ended early: their later recorded events are dropped
        self._ended_items: set[str] = set()  # and those of their output items
        self.conversation_id: str | None = None  # the newest recorded response's, as the client saw it

    @property
    def ids(self) -> list[str]:
        """The open responses, oldest first."""
        return list(self._open)

    def shown(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``events`` on their way out, less those of responses ended early; the rest followed."""
        out = []
        for event in events:
            if self._belongs_to_ended(event):
                continue
            self._follow(event)
            out.append(event)
        return out

    def end(self, response_id: str, event_id: str, status: str, details: dict[str, Any]) -> dict[str, Any]:
        """The ``response.done`` that ends the open ``response_id`` now with ``status`` (``failed`` or
        ``cancelled``) and ``status_details`` ``details``: its output items as far as they went out
        (one not finished is ``incomplete``), usage all zeros (a replay bills nothing)."""
        opened = self._open.pop(response_id)
        self._ended.add(response_id)
        self._ended_items.update(opened.items)
        response = copy.deepcopy(opened.response)
        output = []
        for item in opened.items.values():
            item = copy.deepcopy(item)
            if item.get("status") == "in_progress":
                item["status"] = "incomplete"
            output.append(item)
        response.update(status=status, status_details=details, output=output, usage=Usage().wire())
        return se.response_done(event_id, response=response)

    def _belongs_to_ended(self, event: dict[str, Any]) -> bool:
        response = event.get("response")
        response_id = response.get("id") if isinstance(response, dict) else event.get("response_id")
        if response_id in self._ended:
            return True
        item = event.get("item")
        item_id = item.get("id") if isinstance(item, dict) else event.get("item_id")
        # The items' own lifecycle events, not answers to the client (a truncate of such an item gets
        # its recorded conversation.item.truncated).
        return event.get("type") in ITEM_LIFECYCLE and item_id in self._ended_items

    def _follow(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        response = event.get("response")
        if kind == "response.created" and isinstance(response, dict) and isinstance(response.get("id"), str):
            self._open[response["id"]] = _Open(copy.deepcopy(response))
            if isinstance(response.get("conversation_id"), str):
                self.conversation_id = response["conversation_id"]
        elif kind == "response.done" and isinstance(response, dict):
            self._open.pop(str(response.get("id")), None)
        elif kind in ("response.output_item.added", "response.output_item.done"):
            opened = self._open.get(str(event.get("response_id")))
            item = event.get("item")
            if opened is not None and isinstance(item, dict) and isinstance(item.get("id"), str):
                opened.items[item["id"]] = copy.deepcopy(item)
