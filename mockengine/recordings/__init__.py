"""Recordings made by ``mockengine record``: their format (``format.py``, docs/record-replay.md), reading
them back, and replaying them — the sans-IO part; the aiohttp glue is ``server/replay.py`` and the
recorder itself ``mockengine.record``."""
