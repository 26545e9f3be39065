"""Chat Completions emulator (HRP ``modelEndpoint``): ``/v1/models`` and ``/v1/chat/completions``.

Layers: ``request`` (the parse boundary) → ``conversation`` (messages → the brain's ``ReplyRequest``) →
``completion`` (the brain decides, ``shaping`` fits and shapes) → ``handlers`` (aiohttp, auth, SSE).
The brain is the same one the Realtime sessions use.
"""

from mockengine.chat.handlers import CHAT_MODELS, SCENARIO_HEADER, add_routes, authenticate

__all__ = ["CHAT_MODELS", "SCENARIO_HEADER", "add_routes", "authenticate"]
