"""A system message a client adds after the assistant's last reply, read as what to react to next.

Pipecat 1.14's ``OpenAIRealtimeLLMService`` puts every message an ``LLMMessagesAppendFrame`` brings into
the conversation as a ``system`` item (``_handle_messages_append``: any role but ``assistant`` becomes
``system``), then asks for a response; so does its cancelled-call path, which answers the call
``CANCELLED`` and sends the user's next words the same way. A model reacts to that newest message: it
follows an instruction ("Greet the user.", "Tell the user their order shipped.") and answers a question.
The participant reads system messages as standing orders, never as a turn, so it answered the user's
earlier words again ("So you're asking what is the capital of France." to "What is two plus two?").

Only the newest item counts, and only once the assistant has replied before it (a system message ahead
of any reply, e.g. a prompt seeded as an item, stays a standing order); context items (``[context] …``)
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
    turn. Any other request (a Chat Completions one included) is returned as it is."""
    history = request.history
    if request.channel != "realtime" or not history or not _is_appended(history):
        return request
    newest = history[-1]
    text = newest.text.strip()
    if phrases.instructed(text, random.Random(0), "") is not None:
        if request.response_instructions:
            return request
        return dataclasses.replace(request, response_instructions=text)
    typed = dataclasses.replace(newest, kind="user_text", text=text)
    return dataclasses.replace(request, history=(*history[:-1], typed))


def _is_appended(history: tuple[TurnView, ...]) -> bool:
    newest = history[-1]
    text = newest.text.strip()
    if newest.kind != "system" or not text or text[0] in "{[" or is_context_text(text):
        return False
    return any(item.kind == "assistant" for item in history[:-1])
