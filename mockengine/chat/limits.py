"""What the live Chat Completions API refuses by size: more than 128 tools, and a prompt longer than the
model's context window (docs/chat.md, "Limits").

The prompt is measured with the engine's own token count (``shaping.prompt_tokens``, the rule usage
reports), not the live tokenizer, so a prompt near the window may be refused here and not there, or the
other way round.
"""

from __future__ import annotations

from mockengine.chat import errors

MAX_TOOLS = 128  # "Invalid 'tools': array too long. Expected an array with maximum length 128, …"

# Context windows (prompt + completion tokens) of the listed model families; any other model name
# (scenario models ``mockengine-NAME`` included) gets DEFAULT_CONTEXT_WINDOW.
CONTEXT_WINDOWS = {"gpt-4.1": 1_047_576, "gpt-5": 400_000, "gpt-4o": 128_000}
DEFAULT_CONTEXT_WINDOW = 128_000


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
