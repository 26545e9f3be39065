"""Which model names ``/v1/chat/completions`` and ``/v1/responses`` serve (docs/chat.md, "Model names").

The live API answers a name it does not know with 404 ``model_not_found``; the engine does too, for a
name outside every OpenAI chat model family. A family is served with any variant and dated snapshot
(``gpt-4o-mini-2024-07-18``, ``gpt-5.1-codex``, ``o3-pro``): what a framework or a study names is
served even when the engine's lists are older than the model. Also served: the ids ``GET /v1/models``
lists, the scenario models (``mockengine-NAME``), fine-tuned names (``ft:`` over a family), and with
``--any-chat-model`` any name at all (engines that served every name before kept users who rely on it).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection

from mockengine.brain.selection import MODEL_PREFIX, ScenarioLibrary
from mockengine.chat import errors
from mockengine.chat.errors import ChatError

log = logging.getLogger("mockengine.chat")

# The OpenAI chat model families, each followed by any variant words: gpt-3.5-turbo, gpt-4, gpt-4o,
# gpt-4.1, gpt-4.5, gpt-5, gpt-5.1 (and later numbers: a new model must not be refused by an older
# engine), the o-series (o1, o3, o4-mini), chatgpt-4o-latest, gpt-audio, gpt-realtime, codex-mini-latest,
# computer-use-preview. A fine-tuned model is ``ft:`` + a family name + ``:`` fields.
_FAMILY = r"(?:gpt-\d+(?:\.\d+)?o?|o\d+|chatgpt-4o|gpt-audio|gpt-realtime|codex|computer-use)(?:-[a-z0-9.]+)*"
KNOWN_CHAT_MODEL = re.compile(rf"^(?:{_FAMILY}|ft:{_FAMILY}(?::[A-Za-z0-9._-]*)*)$")
_WARNED_LIMIT = 64  # names logged once each, so a client retrying one name does not flood the log
_warned: set[str] = set()


def check_chat_model(
    model: str, *, listed: Collection[str], scenarios: ScenarioLibrary, any_model: bool
) -> None:
    """Nothing when ``model`` is served (the module docstring). Raises :class:`ChatError`: 404
    ``model_not_found`` (param null, the live body) for an unknown name; 400 ``unknown_scenario``
    (param ``model``) for ``mockengine-NAME`` with no such scenario, as the Realtime endpoint says it."""
    if scenarios.for_model(model) is not None:
        return
    if model.startswith(MODEL_PREFIX) and not any_model:
        message = scenarios.unknown(model[len(MODEL_PREFIX) :], model)
        raise ChatError(400, message, "model", "unknown_scenario")
    if any_model or model in listed or KNOWN_CHAT_MODEL.match(model):
        return
    if model not in _warned and len(_warned) < _WARNED_LIMIT:
        _warned.add(model)
        log.warning(
            "chat: refused model %r (404 model_not_found, as the live API); `serve --any-chat-model` "
            "(MOCKENGINE_ANY_CHAT_MODEL=1) serves any model name",
            model,
        )
    raise errors.model_not_found(model)
