"""Chat Completions emulator (HRP ``modelEndpoint``): ``/v1/models`` and ``/v1/chat/completions``.

Layers: ``request`` (the parse boundary) → ``conversation`` (messages → the brain's ``ReplyRequest``) →
``completion`` (the brain decides, ``shaping`` fits and shapes). The aiohttp routes (auth, SSE) are the
server's: ``mockengine.server.chat_routes``. The brain is the same one the Realtime sessions use.
"""
