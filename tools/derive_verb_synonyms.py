"""Derive mockengine/brain/wordnet_verbs.py: verbs (and phrasal verbs) whose everyday sense IS one of the
action verbs tools are named with, from Princeton WordNet 3.0 (Debian package ``wordnet-base``; the engine
never needs WordNet installed, only the committed table this writes).

Rule (one, stated once): a lemma L maps to a hub verb H when a synset is among the two most frequent senses
of both L and H (WordNet orders senses by frequency), and L's sense is attested in the SemCor counts
(``cntlist.rev``, count ≥ 3) or L is a phrasal verb ("call_off") whose first sense it is. Hypernyms are not
followed: they reach thousands of technical verbs ("decarburise" → remove) no speaker says to an app.
``REJECTED`` are candidates the rule finds whose shared sense is not the app sense (reviewed by hand, each
with its reason); they are left out.

Usage: ``python tools/derive_verb_synonyms.py [/usr/share/wordnet] > mockengine/brain/wordnet_verbs.py``
"""

from __future__ import annotations

import sys
from pathlib import Path

# Verbs tools are named with (get_/list_ … read verbs and the verbs that change something).
HUBS = tuple(
    [
        "add",
        "book",
        "buy",
        "cancel",
        "close",
        "complete",
        "create",
        "delete",
        "end",
        "find",
        "launch",
        "list",
        "lock",
        "open",
        "pause",
        "play",
        "remove",
        "remind",
        "resume",
        "save",
        "schedule",
        "search",
        "send",
        "share",
        "show",
        "skip",
        "start",
        "stop",
        "unlock",
        "turn_on",
        "turn_off",
        "rate",
        "record",
        "check",
        "track",
        "restart",
        "block",
        "hide",
        "mute",
    ]
)
# Candidates whose shared sense is not what an app does with the hub verb.
REJECTED = {
    "bar": "block a passage, not an app",
    "depend_on": "'turn on' as 'depend on'",
    "depend_upon": "'turn on' as 'depend on'",
    "devolve_on": "'turn on' as 'depend on'",
    "hinge_on": "'turn on' as 'depend on'",
    "hinge_upon": "'turn on' as 'depend on'",
    "encounter": "finding by chance",
    "notice": "finding as perceiving",
    "observe": "finding as perceiving",
    "prove": "showing as proving",
    "found": "launching an institution; also the past of 'find'",
    "establish": "launching an institution",
    "set_up": "already a phrase of wordlists (create)",
    "grease_one's_palms": "buying as bribing",
    "hesitate": "a person's pause",
    "salvage": "saving from ruin",
    "hide_out": "a person hiding",
    "lay_off": "stopping as dismissing staff",
    "present": "showing as giving a talk; also 'at present'",
    "set_out": "starting a journey",
    "start_out": "starting a journey",
    "check_into": "a hotel's check-in",
}
MIN_COUNT = 3


def _index(root: Path) -> dict[str, list[str]]:
    senses = {}
    for line in (root / "index.verb").read_text().splitlines():
        if line.startswith(" "):
            continue
        parts = line.split()
        pointers = int(parts[3])
        senses[parts[0]] = parts[4 + pointers + 2 :]
    return senses


def _counts(root: Path) -> dict[tuple[str, int], int]:
    counts = {}
    for line in (root / "cntlist.rev").read_text().splitlines():
        key, number, count = line.split()
        lemma, _, sense_key = key.partition("%")
        if sense_key.startswith("2:"):  # verbs
            counts[(lemma, int(number))] = int(count)
    return counts


def derive(root: Path) -> dict[str, str]:
    """``{lemma: hub}``, lemmas with spaces for phrasal verbs ("call off")."""
    senses, counts = _index(root), _counts(root)
    hub_of = {}
    for hub in HUBS:
        for offset in senses.get(hub, [])[:2]:
            hub_of.setdefault(offset, hub)
    table = {}
    for lemma, offsets in sorted(senses.items()):
        if lemma in HUBS or lemma in REJECTED:
            continue
        for rank, offset in enumerate(offsets[:2]):
            hub = hub_of.get(offset)
            phrasal_first = "_" in lemma and rank == 0
            if hub and (phrasal_first or counts.get((lemma, rank + 1), 0) >= MIN_COUNT):
                table.setdefault(lemma.replace("_", " "), hub.replace("_", " "))
    return table


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet")
    table = derive(root)
    print('"""Verbs whose everyday sense is an action verb tools are named with, derived from Princeton')
    print("WordNet 3.0 by tools/derive_verb_synonyms.py (its docstring states the rule and the rejected")
    print("candidates). Generated, reviewed data: regenerate with the script rather than edit by hand.")
    print()
    print("WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. Used under the WordNet")
    print("3.0 licence: permission to use, copy, modify and distribute this database for any purpose and")
    print("without fee or royalty is granted, provided the copyright notice and statements appear on all")
    print("copies. THIS DATABASE IS PROVIDED 'AS IS' AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR")
    print("WARRANTIES, EXPRESS OR IMPLIED. The name of Princeton University may not be used in advertising")
    print('or publicity pertaining to distribution of the database."""')
    print()
    print("VERB_SYNONYMS: dict[str, str] = {")
    for lemma, hub in table.items():
        print(f"    {lemma!r}: {hub!r},".replace("'", '"'))
    print("}")


if __name__ == "__main__":
    main()
