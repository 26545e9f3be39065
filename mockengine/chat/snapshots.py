"""The model a Chat Completions or Responses answer reports: the dated snapshot an alias names.

The live API answers a request for ``gpt-4o-mini`` with ``"model": "gpt-4o-mini-2024-07-18"`` (OpenAI's
"continuous model upgrades": an alias points at one snapshot at a time). Clients compare: AutoGen
(``autogen-ext`` 0.7, ``_MODEL_POINTERS``) resolves the alias itself and warns on every call whose
response names another model. The table is the text models' pointers as AutoGen 0.7.5 and the live
responses agree on them; a dated id, any other name (``mockengine-NAME``, the audio models, a local
model's) is reported as asked. The Realtime sessions keep the name asked for, as live.
"""

from __future__ import annotations

SNAPSHOTS = {
    "gpt-5": "gpt-5-2025-08-07",
    "gpt-5-mini": "gpt-5-mini-2025-08-07",
    "gpt-5-nano": "gpt-5-nano-2025-08-07",
    "gpt-4.1": "gpt-4.1-2025-04-14",
    "gpt-4.1-mini": "gpt-4.1-mini-2025-04-14",
    "gpt-4.1-nano": "gpt-4.1-nano-2025-04-14",
    "gpt-4o": "gpt-4o-2024-08-06",
    "gpt-4o-mini": "gpt-4o-mini-2024-07-18",
    "gpt-4-turbo": "gpt-4-turbo-2024-04-09",
    "gpt-4": "gpt-4-0613",
    "gpt-3.5-turbo": "gpt-3.5-turbo-0125",
    "o4-mini": "o4-mini-2025-04-16",
    "o3": "o3-2025-04-16",
    "o3-mini": "o3-mini-2025-01-31",
    "o1": "o1-2024-12-17",
}


def reported_model(model: str) -> str:
    """The ``model`` field of the answer to a request for ``model``."""
    return SNAPSHOTS.get(model, model)
