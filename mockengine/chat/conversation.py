"""Chat messages as the brain sees a conversation: a ``ReplyRequest`` like the Realtime session builds.

Each message becomes a Realtime conversation ``Item`` so that ``Item.view()`` decides the kind exactly as
on the voice side (a user message whose text starts with ``[context]`` is a HyperStudy context item):

* ``system`` / ``developer`` → their text joins the instructions (in order); mid-conversation ones also
  (and any that is a ``[context]`` line) also stay in the history as ``system`` items, where the brain
  reads context in them as on the voice side.
* ``user`` → text parts and the transcripts of ``input_audio`` parts (``request.heard``, heard by the
  server before) joined by spaces; ``image_url`` parts with a ``data:`` URL are decoded into
  ``ImageFacts``. Other URLs cannot be fetched offline and are passed over; file parts too.
* ``assistant`` → an ``assistant`` item for its text (or, for a spoken answer named by its audio id,
  its transcript: ``request.recalled``), then one ``function_call`` item per tool call.
* ``tool`` → a ``function_call_output`` item; the legacy ``function`` role likewise (no call id).
* smolagents' steps written as text (an assistant ``Calling tools:\n[…]``, then a user
  ``Observation:\n…``) → ``function_call`` and ``function_call_output`` items, as a model reads them
  (``mockengine/chat/text_tool_steps.py``); its ``New task:`` label before a run's task is dropped.

``response_index`` is the number of assistant messages so far: the same conversation always gets the same
reply, and each new turn draws fresh phrasing from the seed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mockengine.brain.context import is_context_text
from mockengine.brain.model import ImageFacts, ReplyRequest, TurnView
from mockengine.chat import errors
from mockengine.chat.request import ChatRequest
from mockengine.chat.text_tool_steps import calls_in_text, result_in_text, split_results, without_task_label
from mockengine.realtime.conversation import Item

ImageReader = Callable[[str], ImageFacts]


def reply_request(request: ChatRequest, describe_image: ImageReader) -> ReplyRequest:
    """The brain's view of ``request``. Raises ChatError (400) for a ``data:`` image it cannot decode."""
    instructions: list[str] = []
    history: list[TurnView] = []
    assistant_turns = 0
    # The call ids of an assistant message that wrote its calls as text, until a user message answers them.
    text_calls: list[str] = []
    for index, message in enumerate(request.messages):
        role = message["role"]
        if role in ("system", "developer"):
            text = _text(message.get("content"))
            instructions.append(text)
            if history or is_context_text(text):
                history.append(_item(index, "message", role="system", text=text).view())
            continue
        if role == "assistant":
            assistant_turns += 1
        items = _items(index, message, describe_image, request)
        if role == "user" and text_calls:
            result = result_in_text(_text(message.get("content")))
            if result is not None:
                items = [
                    Item(f"msg_{index}_{n}", "function_call_output", call_id=call_id, output=output)
                    for n, (call_id, output) in enumerate(
                        zip(text_calls, split_results(result, len(text_calls)), strict=True)
                    )
                ]
        if role != "system" and role != "developer":
            text_calls = []
        if role == "assistant" and not message.get("tool_calls"):
            items, text_calls = _text_calls(index, items)
        history.extend(item.view() for item in items)
    return ReplyRequest(
        instructions="\n\n".join(t for t in instructions if t),
        tools=request.tools,
        tool_choice=request.tool_choice,
        output_modalities=("audio",) if request.audio is not None else ("text",),
        history=tuple(history),
        response_index=assistant_turns,
        channel="chat",
        parallel_tool_calls=request.parallel_tool_calls,
    )


def _items(
    index: int, message: dict[str, Any], describe_image: ImageReader, request: ChatRequest
) -> list[Item]:
    role = message["role"]
    if role == "user":
        text, images = _user_content(index, message["content"], describe_image, request.heard)
        item = _item(index, "message", role="user", text=text)
        item.images = images
        return [item]
    if role == "tool":
        output = _text(message["content"])
        return [Item(f"msg_{index}", "function_call_output", call_id=message["tool_call_id"], output=output)]
    if role == "function":
        return [Item(f"msg_{index}", "function_call_output", name=message["name"], output=message["content"])]
    items: list[Item] = []
    text = _text(message.get("content")) or request.recalled.get(index, "")
    if text:
        items.append(_item(index, "message", role="assistant", text=text, part_type="output_text"))
    for number, call in enumerate(message.get("tool_calls") or []):
        if call["type"] == "custom":
            name, arguments = call["custom"]["name"], call["custom"]["input"]
        else:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
        items.append(
            Item(f"msg_{index}_{number}", "function_call", name=name, call_id=call["id"], arguments=arguments)
        )
    return items


def _text_calls(index: int, items: list[Item]) -> tuple[list[Item], list[str]]:
    """An assistant text item that ends with calls written as text, as that text and the calls."""
    if len(items) != 1 or items[0].type != "message":
        return items, []
    found = calls_in_text(_text(items[0].content))
    if found is None:
        return items, []
    before, calls = found
    kept = [_item(index, "message", role="assistant", text=before, part_type="output_text")] if before else []
    kept += [
        Item(f"msg_{index}_{n}", "function_call", name=name, call_id=call_id, arguments=arguments)
        for n, (call_id, name, arguments) in enumerate(calls)
    ]
    return kept, [call_id for call_id, _, _ in calls]


def _item(index: int, kind: str, *, role: str, text: str, part_type: str = "input_text") -> Item:
    return Item(f"msg_{index}", kind, role=role, content=[{"type": part_type, "text": text}])


def _text(content: Any) -> str:
    """A string content, or the text of its text parts joined by spaces (refusal parts too)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    pieces = [part.get("text") or part.get("refusal") or "" for part in content]
    return " ".join(p for p in pieces if p)


def _user_content(
    index: int,
    content: str | list[dict[str, Any]],
    describe_image: ImageReader,
    heard: Mapping[tuple[int, int], str],
) -> tuple[str, tuple[ImageFacts, ...]]:
    if isinstance(content, str):
        return without_task_label(content), ()
    texts: list[str] = []
    images: list[ImageFacts] = []
    for number, part in enumerate(content):
        if part["type"] == "text":
            texts.append(part["text"])
        elif part["type"] == "input_audio":
            texts.append(heard.get((index, number), ""))
        elif part["type"] == "image_url" and part["image_url"]["url"].startswith("data:"):
            try:
                images.append(describe_image(part["image_url"]["url"]))
            except ValueError as exc:
                raise errors.unsupported_image(f"messages[{index}].content[{number}].image_url") from exc
    return without_task_label(" ".join(t for t in texts if t)), tuple(images)
