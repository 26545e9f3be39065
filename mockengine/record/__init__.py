"""Record a session against any Realtime / Chat Completions endpoint (``mockengine record``) and replay
it offline (``mockengine serve --replay DIR``). The format is described in ``docs/record-replay.md``."""
