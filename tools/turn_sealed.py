"""Score a split once through the bench's own section and keep every outcome for reading afterwards.

``.venv/bin/python tools/turn_sealed.py heldout_r10`` runs exactly what
``MOCKENGINE_BENCH_TURN_SPLITS=heldout_r10 mockengine bench --only turns`` runs (the ``turns`` section,
real sessions, real whisper, measured latency; it prints the same table) and also stores each
utterance's outcome at each eagerness (deciding probe's transcript and cues) in
``.cache/turn-sealed/<split>.pkl`` ({"split": name, "results": [(label, Outcome), ...]}), so
the cuts of a split that can be scored only once can be read without a second run. Any split works (a
burned one too); the store is overwritten.

``--eagerness high`` replays at that eagerness only, and ``--only trailing,complete`` only utterances
whose category is named, ``trailing`` naming every mid-thought one (here: those and the complete
statements, not the questions or one-word answers),
to read a burned split's cuts at a fraction of the cost; a split scored that way is not the bench's
full table.
"""

from __future__ import annotations

import argparse
import os
import pickle
from typing import Any

from mockengine.bench import turn_corpus as bench
from mockengine.turn_corpus import CACHE_ROOT

STORE = CACHE_ROOT.parent / "turn-sealed"


class _Context:
    def __init__(self) -> None:
        self.results: dict[str, Any] = {}


def main(split: str, eagerness: str | None = None, only: tuple[str, ...] = ()) -> None:
    os.environ[bench.SPLITS_ENV] = split
    kept: list[tuple[dict[str, Any], Any]] = []
    evaluate, load, semantic = bench.evaluate, bench.load, bench.SEMANTIC
    if eagerness:
        bench.SEMANTIC = tuple(c for c in semantic if c.endswith(" " + eagerness))
    if only:
        bench.load = lambda name, **kw: _only(load(name, **kw), only)  # type: ignore[assignment]

    def keeping(*args: Any, **kwargs: Any) -> list[tuple[dict[str, Any], Any]]:
        results = evaluate(*args, **kwargs)
        kept.extend(results)
        return results

    bench.evaluate = keeping  # type: ignore[assignment]
    try:
        bench.bench_turn_corpus(_Context())
    finally:
        bench.evaluate, bench.load, bench.SEMANTIC = evaluate, load, semantic  # type: ignore[assignment]
    STORE.mkdir(parents=True, exist_ok=True)
    (STORE / f"{split}.pkl").write_bytes(pickle.dumps({"split": split, "results": kept}))
    print(f"{len(kept)} outcomes stored in {STORE / (split + '.pkl')}")


Loaded = tuple[Any, list[dict[str, Any]]]


def _only(loaded: Loaded, only: tuple[str, ...]) -> Loaded:
    directory, labels = loaded
    return directory, [
        label
        for label in labels
        if label["category"] in only or (label["kind"] == "trailing" and "trailing" in only)
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("split")
    parser.add_argument("--eagerness", choices=("high", "medium", "low"))
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated categories; trailing: every mid-thought one (default: all)",
    )
    args = parser.parse_args()
    main(args.split, args.eagerness, tuple(k for k in args.only.split(",") if k))
