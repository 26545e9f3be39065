"""A decided completion (``chat.completion.Completion``, one choice) as a Responses API ``response``
object, or as its stream of ``response.*`` events, in the shapes of ``openai/types/responses/``.

Output items, in order: one assistant ``message`` (one ``output_text`` part) when the choice has text,
then one ``function_call`` item per call. A choice cut by ``max_output_tokens`` (chat's ``length``) makes
the response ``status: "incomplete"`` with ``incomplete_details.reason: "max_output_tokens"``, and its
last output item ``incomplete``.

Ids come from the request's ``IdFactory`` (seeded: the same request gives the same ids, streamed or not):
``resp_…``, ``msg_…`` and ``fc_…`` with 48 base62 characters (the live ids are as long, in hex), the
``call_…`` ids the chat fitting gave.

The stream: ``response.created`` and ``response.in_progress`` (the response with no output yet), then per
item ``response.output_item.added``; for a message ``response.content_part.added``, the text in
word-sized ``response.output_text.delta`` events, ``response.output_text.done``,
``response.content_part.done``; for a call ``response.function_call_arguments.delta`` pieces and
``.done``; then ``response.output_item.done``; last ``response.completed`` (or ``response.incomplete``)
with the whole response. Every event has its ``sequence_number`` from 0; deltas carry ``obfuscation``
padding as the live service's do, unless the request set ``stream_options.include_obfuscation: false``.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mockengine.chat.completion import Completion
from mockengine.chat.responses_request import ResponsesRequest
from mockengine.chat.shaping import _ARGUMENT_PIECE, _TEXT_PIECE, Choice, reported_tier
from mockengine.chat.snapshots import reported_model
from mockengine.ids import IdFactory

ITEM_ID_LENGTH = 48


@dataclass(frozen=True)
class ShapedResponse:
    """The finished ``response`` object, and what its stream needs."""

    body: dict[str, Any]
    ids: IdFactory

    @property
    def id(self) -> str:
        return str(self.body["id"])

    def events(self, *, obfuscate: bool = True) -> Iterator[dict[str, Any]]:
        return response_events(self.body, self.ids if obfuscate else None)


def shape_response(request: ResponsesRequest, completion: Completion) -> ShapedResponse:
    """The ``response`` object of ``completion`` (its first and only choice)."""
    ids = completion.ids
    response_id = ids.new("resp_", ITEM_ID_LENGTH)
    [choice] = completion.choices
    incomplete = choice.finish_reason == "length"
    output = output_items(choice, ids, incomplete=incomplete)
    created_at = int(time.time())
    body = _envelope(request, response_id, created_at)
    body.update(
        status="incomplete" if incomplete else "completed",
        completed_at=None if incomplete else created_at,
        incomplete_details={"reason": "max_output_tokens"} if incomplete else None,
        output=output,
        usage=response_usage(completion.prompt_tokens, choice.completion_tokens),
    )
    return ShapedResponse(body, ids)


def output_items(choice: Choice, ids: IdFactory, *, incomplete: bool) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if choice.text or not choice.calls:  # a response always has some output: an empty text if need be
        part = {"type": "output_text", "text": choice.text or "", "annotations": [], "logprobs": []}
        items.append(
            {
                "id": ids.new("msg_", ITEM_ID_LENGTH),
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    for call in choice.calls:
        items.append(
            {
                "id": ids.new("fc_", ITEM_ID_LENGTH),
                "type": "function_call",
                "status": "completed",
                "arguments": call.arguments,
                "call_id": call.id,
                "name": call.name,
            }
        )
    if incomplete and items:
        items[-1]["status"] = "incomplete"
    return items


def response_usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


def _envelope(request: ResponsesRequest, response_id: str, created_at: int) -> dict[str, Any]:
    """Every field of the ``response`` object but its outcome: the request's settings echoed."""
    body = request.body
    text = dict(body.get("text") or {})
    text.setdefault("format", {"type": "text"})
    text.setdefault("verbosity", "medium")
    return {
        "id": response_id,
        "object": "response",
        "created_at": created_at,
        "status": "in_progress",
        "background": False,
        "completed_at": None,
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "max_tool_calls": None,
        "model": reported_model(request.model),
        "output": [],
        # As asked, tools or not (the chat translation drops it when there are none).
        "parallel_tool_calls": body.get("parallel_tool_calls") is not False,
        "previous_response_id": body.get("previous_response_id"),
        "prompt_cache_key": body.get("prompt_cache_key"),
        "reasoning": {"effort": None, "summary": None, **(body.get("reasoning") or {})},
        "safety_identifier": body.get("safety_identifier"),
        "service_tier": reported_tier(body.get("service_tier")),
        "store": body.get("store") is not False,
        "temperature": body.get("temperature") if body.get("temperature") is not None else 1.0,
        "text": text,
        "tool_choice": body.get("tool_choice") if body.get("tool_choice") is not None else "auto",
        "tools": [_tool_echo(tool) for tool in body.get("tools") or []],
        "top_logprobs": body.get("top_logprobs") or 0,
        "top_p": body.get("top_p") if body.get("top_p") is not None else 1.0,
        "truncation": body.get("truncation") or "disabled",
        "usage": None,
        "user": body.get("user"),
        "metadata": body.get("metadata") or {},
    }


def _tool_echo(tool: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool["name"],
        "description": tool.get("description"),
        "parameters": tool.get("parameters"),
        "strict": bool(tool.get("strict")),
    }


def response_events(body: dict[str, Any], ids: IdFactory | None) -> Iterator[dict[str, Any]]:
    """The ``response.*`` events that deliver ``body`` (module doc), numbered from 0; deltas padded from
    ``ids`` (None: no ``obfuscation`` field)."""
    sequence = 0

    def padding() -> dict[str, str]:
        return {"obfuscation": ids.obfuscation()} if ids is not None else {}

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        nonlocal sequence
        numbered = {"type": kind, "sequence_number": sequence, **fields}
        sequence += 1
        return numbered

    started = {
        **body,
        "status": "in_progress",
        "completed_at": None,
        "incomplete_details": None,
        "output": [],
        "usage": None,
    }
    yield event("response.created", response=started)
    yield event("response.in_progress", response=started)
    for index, item in enumerate(body["output"]):
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "message":
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            part = item["content"][0]
            empty = {**part, "text": ""}
            yield event("response.content_part.added", **where, content_index=0, part=empty)
            for piece in _TEXT_PIECE.findall(part["text"]):
                yield event(
                    "response.output_text.delta",
                    **where,
                    content_index=0,
                    delta=piece,
                    logprobs=[],
                    **padding(),
                )
            yield event("response.output_text.done", **where, content_index=0, text=part["text"], logprobs=[])
            yield event("response.content_part.done", **where, content_index=0, part=copy.deepcopy(part))
        else:
            started_item = {**item, "status": "in_progress", "arguments": ""}
            yield event("response.output_item.added", output_index=index, item=started_item)
            for piece in _ARGUMENT_PIECE.findall(item["arguments"]):
                yield event(
                    "response.function_call_arguments.delta",
                    **where,
                    delta=piece,
                    **padding(),
                )
            yield event("response.function_call_arguments.done", **where, arguments=item["arguments"])
        yield event("response.output_item.done", output_index=index, item=copy.deepcopy(item))
    final = "response.incomplete" if body["status"] == "incomplete" else "response.completed"
    yield event(final, response=body)
