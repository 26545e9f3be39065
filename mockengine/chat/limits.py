"""What the live Chat Completions API refuses by size or by model: more than 128 tools, a prompt longer
than the model's context window (docs/chat.md, "Limits"), ``max_tokens`` or a ``temperature`` other than
1 on a reasoning model, and ``stop`` on the gpt-5 models.

The prompt is measured with the engine's own token count (``shaping.prompt_tokens``, the rule usage
reports), not the live tokenizer, so a prompt near the window may be refused here and not there, or the
other way round.
"""

from __future__ import annotations

import re

from mockengine.chat import errors

MAX_TOOLS = 128  # "Invalid 'tools': array too long. Expected an array with maximum length 128, …"

# Context windows (prompt + completion tokens) of the listed model families; any other model name
# (scenario models ``mockengine-NAME`` included) gets DEFAULT_CONTEXT_WINDOW.
CONTEXT_WINDOWS = {"gpt-4.1": 1_047_576, "gpt-5": 400_000, "gpt-4o": 128_000}
DEFAULT_CONTEXT_WINDOW = 128_000


# The reasoning models, which take ``max_completion_tokens`` only: the o-series and gpt-5 and later, with
# any variant or snapshot, fine-tuned ones too. The ``-chat`` variants (``gpt-5-chat-latest``) are left
# out: whether they refuse ``max_tokens`` is not public, and the engine is lenient where unsure.
_REASONING_MODEL = re.compile(r"^(?:ft:)?(?:o\d+|gpt-(?:[5-9]|\d{2,})(?:\.\d+)?)(?:-[a-z0-9.]+)*(?::.*)?$")


def is_reasoning_model(model: str) -> bool:
    """True for an o-series or gpt-5-and-later model name (``o3-mini``, ``gpt-5.1``,
    ``ft:o4-mini-…:org::id``), not a ``-chat`` variant."""
    return bool(_REASONING_MODEL.match(model)) and "-chat" not in model


def check_max_tokens(model: str, max_tokens: object) -> None:
    """400 ``unsupported_parameter`` (param ``max_tokens``) when a reasoning model is given ``max_tokens``
    (null is not given)."""
    if max_tokens is not None and is_reasoning_model(model):
        raise errors.max_tokens_unsupported()


# Reasoning models whose live refusal of ``temperature`` is not public (the engine takes it there).
_TEMPERATURE_UNKNOWN = re.compile(r"^(?:ft:)?o(?:1|4)-mini(?:-|:|$)")
_TEMPERATURE_NO_PARAMETER = re.compile(r"^(?:ft:)?o3-mini(?:-|:|$)")


def check_temperature(model: str, temperature: object) -> None:
    """A reasoning model takes only the default ``temperature`` (1; null is not given): any other is the
    live 400, ``unsupported_parameter`` on o3-mini, else ``unsupported_value``. Chat Completions only
    (the Responses API's wording is not public). ``temperature`` is already checked to be a number."""
    if temperature is None or temperature == 1 or not is_reasoning_model(model):
        return
    if _TEMPERATURE_UNKNOWN.match(model):
        return
    if _TEMPERATURE_NO_PARAMETER.match(model):
        raise errors.temperature_unsupported_parameter()
    assert isinstance(temperature, int | float)
    raise errors.temperature_unsupported_value(temperature)


# The gpt-5 models without a minor version (gpt-5, gpt-5-mini, gpt-5-nano, their snapshots), which
# refuse ``stop``; gpt-5.5 takes it, the other gpt-5.x and the o-series are not public (taken).
_NO_STOP = re.compile(r"^(?:ft:)?gpt-5(?:-[a-z0-9]+)*(?::.*)?$")


def check_stop(model: str, stop: object) -> None:
    """400 ``unsupported_parameter`` (param ``stop``) for stop sequences on a gpt-5 model (not a
    ``-chat`` variant); null or an empty list is not given."""
    if stop and _NO_STOP.match(model) and "-chat" not in model:
        raise errors.stop_unsupported()


def context_window(model: str) -> int:
    """The window of ``model``'s family (the longest matching prefix), in tokens."""
    families = sorted((f for f in CONTEXT_WINDOWS if model.startswith(f)), key=len, reverse=True)
    return CONTEXT_WINDOWS[families[0]] if families else DEFAULT_CONTEXT_WINDOW


def check_tool_count(tools: object) -> None:
    """400 ``array_above_max_length`` (param ``tools``) past MAX_TOOLS."""
    if isinstance(tools, list) and len(tools) > MAX_TOOLS:
        raise errors.array_too_long("tools", MAX_TOOLS, len(tools))


def check_context_length(model: str, in_messages: int, in_tools: int) -> None:
    """400 ``context_length_exceeded`` (param ``messages``) when the prompt alone fills the window."""
    window = context_window(model)
    if in_messages + in_tools > window:
        raise errors.context_length_exceeded(window, in_messages, in_tools)
