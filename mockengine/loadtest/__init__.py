"""The load driver behind ``mockengine bench``: simulated participants against any Realtime URL.

``profile``: how many sessions run when (ramp, steady, spike). ``participant``: one simulated participant
(real-time microphone, turns, barge-ins) and the figures it records. ``driver``: runs a profile against a
URL with a progress line and summarizes. ``baseline``: a bare aiohttp WebSocket server that only parses
and discards the same traffic. ``processes``: start an engine or the baseline as a child process and
read its memory. ``plot``: latency against concurrency as a PNG.
"""
