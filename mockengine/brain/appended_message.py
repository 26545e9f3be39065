"""A system message a client adds after the assistant's last reply, read as what to react to next.

Pipecat 1.14's ``OpenAIRealtimeLLMService`` puts every message an ``LLMMessagesAppendFrame`` brings into
the conversation as a ``system`` item (``_handle_messages_append``: any role but ``assistant`` becomes
``system``), then asks for a response; so does its cancelled-call path, which answers the call
``CANCELLED`` and sends the user's next words the same way. A model reacts to that newest message: it
follows an instruction ("Greet the user.", "Tell the user their order shipped.") and answers a question.
The participant reads system messages as standing orders, never as a turn, so it answered the user's
earlier words again ("So you're asking what is the capital of France." to "What is two plus two?").

The newest item is reacted to, and only once the assistant has replied before it (a system message ahead
of any reply, e.g. a prompt seeded as an item, stays a standing order); the words appended so before it
(no instruction among them) were the user's turns then and are read as such ("What did I just say?"
quoted the user's words before them); context items (``[context] …``)
and JSON payloads (Pipecat's async-tool envelopes) are left as they were, and so is a Chat Completions
request (its system messages are the app's prompt).
"""

from __future__ import annotations

import dataclasses
import random

from mockengine.brain import phrases
from mockengine.brain.context import is_context_text
from mockengine.brain.model import ReplyRequest, TurnView


def read_appended(request: ReplyRequest) -> ReplyRequest:
    """``request`` with its newest item, when it is a system message added after a reply, taken in: an
    instruction becomes the response's own instructions (unless it has some), other words a typed user
    turn. The words appended so before the newest were the user's turns then, and are typed turns too
    ("What did I just say?" quoted the user's words before them). Any other request (a Chat Completions
    one included) is returned as it is."""
    history = request.history
    if request.channel != "realtime" or not history:
        return request
    earlier = _earlier_typed(history)
    if earlier is not None:
        request = dataclasses.replace(request, history=(*earlier, history[-1]))
        history = request.history
    newest = history[-1]
    if not _appended_words(newest) or not any(item.kind == "assistant" for item in history[:-1]):
        return request
    text = newest.text.strip()
    if phrases.instructed(text, random.Random(0), "") is not None:
        if request.response_instructions:
            return request
        return dataclasses.replace(request, response_instructions=text)
    return dataclasses.replace(request, history=(*history[:-1], _as_typed(newest)))


def _earlier_typed(history: tuple[TurnView, ...]) -> tuple[TurnView, ...] | None:
    """The items before the newest with each system message of words after a reply (no instruction:
    "Greet the user." stays an order) as a typed user turn; None when there is none (one pass, and no
    copy then: a study's conversation holds hundreds of items)."""
    replied = False
    typed: list[TurnView] | None = None
    for index, item in enumerate(history[:-1]):
        if item.kind == "assistant":
            replied = True
        elif (
            replied
            and _appended_words(item)
            and phrases.instructed(item.text.strip(), random.Random(0), "") is None
        ):
            if typed is None:
                typed = list(history[:-1])
            typed[index] = _as_typed(item)
    return tuple(typed) if typed is not None else None


def _appended_words(item: TurnView) -> bool:
    """``item`` is a system message of words: no JSON payload, no context item."""
    text = item.text.strip()
    return item.kind == "system" and bool(text) and text[0] not in "{[" and not is_context_text(text)


def _as_typed(item: TurnView) -> TurnView:
    return dataclasses.replace(item, kind="user_text", text=item.text.strip())
