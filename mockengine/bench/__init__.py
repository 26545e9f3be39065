"""``mockengine bench``: figures for this machine, printed (never asserted), optionally saved as JSON.

Sections (``--only NAME``, repeatable; without it every section but ``capacity`` runs):

* ``audio``: cost of the per-session audio path per 20 ms chunk (webrtcvad alone, and parse + session).
* ``session``: one simulated participant against the engine: speech onset → ``speech_started``,
  ``speech_stopped`` → first audio delta, ``response.cancel`` → ``response.done``, event gaps; piper's
  real-time factor.
* ``load``: the standard load profile (``--sessions``, ``--duration``, ``--profile``) against the
  engine and, at the same time, against the bare aiohttp baseline (``--baseline-window after``: in a
  later window); memory per idle and talking session; cache hit rates.
* ``capacity``: steps the concurrency up (``--levels``) on the engine with warm caches, with caches off,
  and on the baseline; the highest level meeting the goals is the capacity. ``--plot`` draws it.
* ``semantic``: the turn-detection table on the labelled utterance set (``turn_eval``).
* ``turns``: semantic_vad on the turn corpus, its three splits per category (``bench.turn_corpus``).
* ``chat``: Chat Completions throughput and p50/p95 latency at 8 and 64 clients.

Without ``--url`` the bench starts its own engine as a child process (``mockengine serve`` with
``--first-delta-delay-ms 0``, so response figures are the engine's own latency, not the emulated delay
of the live service, which defaults to 300 ms and adds exactly that) and the baseline beside it. With
``--url`` the driver runs against that engine instead (memory figures then need a local child).

To add a section: a module in this package defining ``SECTION``, named in ``SECTION_MODULES``
(``mockengine/bench/sections.py``).
"""

from mockengine.bench.runner import add_arguments, run_bench
from mockengine.bench.sections import SECTION_MODULES, Section, register_section, sections

__all__ = ["SECTION_MODULES", "Section", "add_arguments", "register_section", "run_bench", "sections"]
