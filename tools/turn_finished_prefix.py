"""Issue 18's remaining cuts, measured: mid-thought pauses whose first part *is* a finished sentence.

Reads the outcomes ``tools/turn_sealed.py`` stored (``.cache/turn-sealed/<split>.pkl``) and, for each
split named:

``classify``: every mid-thought pause shorter than the maximum wait at high that the detector cut at
high, in class (i) or (ii). Class (i) needs all three of:

* **final prosody, measured**: the first part's audio in the clip is sample for sample what the
  corpus's :class:`~mockengine.turn_corpus.speech.Synthesizer` makes of the same words with a final "."
  as a standalone statement (the style "continuing" adds a comma, and a text ending in a comma is spoken
  with it: espeak-ng renders that comma differently, piper often identically, so it is measured, not
  read from the text);
* **a complete grammatical sentence**: the first part's words, as written, are a sentence a listener
  would accept as finished. Rule: an independent clause with its subject, a finite verb and every
  complement that verb requires, or an imperative, or a question ("sentence"); a clause whose verb
  phrase is left out after a modal or auxiliary in the standard English way ("I can't.", "Could
  you?", "It has.") counts too but is marked "elliptical"; a noun phrase alone ("Rods", "Jen"), a
  subordinate clause alone, or words ending on an article, possessive, preposition, conjunction,
  filler, "to" or an opener that announces more ("The thing is", "Knowing my dad") are not ("no").
  The judgement is by hand, one line per first part in :data:`JUDGED`; a cut whose first part is
  not listed there stops the run;
* **whisper heard exactly those words, closed**: the deciding probe's transcript has the first part's
  words (case, punctuation and hyphens aside) and ends with "." or "?".

Everything else is class (ii), with every condition it fails named.

``same-audio``: for each class-(i) cut, the first part spoken again by the corpus's
:class:`~mockengine.turn_corpus.speech.Synthesizer` with a final "." as a standalone statement, compared
with the clip's audio before the pause (sample-exact, else the peak normalised cross-correlation), and
both replayed through a real session at high as a statement (300 ms lead, then silence): transcript,
verdict, cues and speech end → ``speech_stopped``.

``statements``: the split's complete statements at high and two estimates of what holding every class-(i)
pause would cost them (see :func:`held_median`).

``.venv/bin/python tools/turn_finished_prefix.py classify heldout_r7 heldout_r8 heldout_r9``
"""

from __future__ import annotations

import argparse
import pickle
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

HIGH = "semantic_vad high"
MAX_WAIT_HIGH_MS = 2000
LEAD_MS = 300
_WORD = re.compile(r"[a-z0-9']+")

# First part of a cut mid-thought utterance → (complete grammatical sentence?, why). The rule is in the
# module docstring; every first part of a cut at high on the scored splits is listed.
J = "sentence"
E = "elliptical"
N = "no"
JUDGED: dict[str, tuple[str, str]] = {
    # heldout_r9
    "There's an": (N, "ends on an article"),
    "They've glued a": (N, "ends on an article"),
    "There was an": (N, "ends on an article"),
    "Have you washed their": (N, "ends on a possessive"),
    "The physio said I could run when": (N, "ends on a subordinating conjunction"),
    "We always train outside unless": (N, "ends on a subordinating conjunction"),
    "He knows the moves, but": (N, "ends on a coordinating conjunction"),
    "I love the honey, but": (N, "ends on a coordinating conjunction"),
    "She still remembers when": (N, "'remembers when' needs its clause"),
    "Wake me up at seven unless": (N, "ends on a subordinating conjunction"),
    "Dad's, you know,": (N, "a possessive and a filler"),
    "Play, uh,": (N, "ends on a filler"),
    "Er,": (N, "a filler"),
    "Rods,": (N, "a noun alone"),
    "I've found farmers,": (J, "subject, verb, object"),
    "I've got to do squats,": (J, "subject, verb, complement"),
    "Jen,": (N, "a name alone"),
    "Add milk, bread,": (J, "imperative with its object (a list so far)"),
    "I speak English,": (J, "subject, verb, object"),
    "Is it tea,": (J, "a yes/no question"),
    "Do you want the blue one, the grey one, or": (N, "ends on a coordinating conjunction"),
    "I can't": (E, "verb phrase left out after a modal"),
    "It has": (E, "verb phrase left out after an auxiliary"),
    "Could you": (E, "verb phrase left out after a modal (a request)"),
    "Knowing my dad,": (N, "a participle phrase that announces a clause"),
    # heldout_r8
    "Apparently I've": (E, "verb phrase left out after an auxiliary"),
    "Apparently our": (N, "ends on a possessive"),
    "Can you grab those": (J, "a question; 'those' as a pronoun"),
    "Families who": (N, "a relative pronoun without its clause or main verb"),
    "Hats,": (N, "a noun alone"),
    "Have you signed this": (J, "a question; 'this' as a pronoun"),
    "He's": (N, "subject and auxiliary only"),
    "I can't get my": (N, "ends on a possessive"),
    "I got socks,": (J, "subject, verb, object"),
    "I keep losing these": (J, "subject, verb, object ('these' as a pronoun)"),
    "I scored, um,": (N, "ends on a filler"),
    "I slid all the way down": (J, "subject, verb, adverbial"),
    "I'll cancel the order if": (N, "ends on a subordinating conjunction"),
    "I've complained to their": (N, "ends on a possessive"),
    "I've learnt, um,": (N, "ends on a filler"),
    "It needs tyres, wipers,": (J, "subject, verb, object (a list so far)"),
    "Somebody should": (E, "verb phrase left out after a modal"),
    "The driver couldn't get up": (J, "subject, verb, particle"),
    "They forgot the milk, the bread,": (J, "subject, verb, object (a list so far)"),
    "Uh,": (N, "a filler"),
    "We bought popcorn,": (J, "subject, verb, object"),
    "We need tinned fish,": (J, "subject, verb, object"),
    "We play Mondays,": (J, "subject, verb, adverbial"),
    "We sort the tins, the dried stuff,": (J, "subject, verb, object (a list so far)"),
    "We'll get a taxi home unless": (N, "ends on a subordinating conjunction"),
    "We're buying her a": (N, "ends on an article"),
    "We're quieter in the summer, whereas": (N, "ends on a subordinating conjunction"),
    "We've got a shovel, a bag of salt,": (J, "subject, verb, object (a list so far)"),
    # heldout_r10
    "Could I have a": (N, "ends on an article"),
    "Have a look at this": (J, "imperative with its complement ('this' as a pronoun)"),
    "He gets grumpy when": (N, "ends on a subordinating conjunction"),
    "He still asks about": (N, "ends on a preposition"),
    "He's on": (N, "ends on a preposition"),
    "I brush him, tack him up,": (J, "subject, verbs, objects (a list of clauses so far)"),
    "I tried the app, the website,": (J, "subject, verb, object (a list so far)"),
    "I'm ringing about": (N, "ends on a preposition"),
    "I've got the card, the money box,": (J, "subject, verb, object (a list so far)"),
    "Is that with breakfast, dinner, or": (N, "ends on a coordinating conjunction"),
    "Monday,": (N, "a noun alone"),
    "Pawns,": (N, "a noun alone"),
    "Suncream,": (N, "a noun alone"),
    "The thing is,": (N, "an opener that announces a clause"),
    "There's a hairdresser, a little shop,": (J, "existential clause (a list so far)"),
    "They've put an": (N, "ends on an article"),
    "We fly out to": (N, "ends on a preposition"),
    "We had pencils,": (J, "subject, verb, object"),
    "We had to walk for": (N, "ends on a preposition"),
    "We moved him there after": (N, "ends on a preposition or conjunction"),
    "We saw the main stage, the folk tent,": (J, "subject, verb, object (a list so far)"),
    "We'd have done it years ago if": (N, "ends on a subordinating conjunction"),
    "You have to cross their": (N, "ends on a possessive"),
    "You have to squeeze with your": (N, "ends on a possessive"),
}


def words(text: str) -> list[str]:
    """``text``'s words, lower case, curly apostrophes straightened, hyphens splitting words, all other
    punctuation dropped."""
    text = text.lower().replace("\u2019", "'").replace("-", " ")
    return [w.strip("'") for w in _WORD.findall(text) if w.strip("'")]


def closed(transcript: str) -> bool:
    """Whisper closed the text with a full stop or a question mark."""
    return transcript.rstrip().endswith((".", "?"))


def counted_cuts(results: Iterable[tuple[dict[str, Any], Any]]) -> tuple[int, list[tuple[dict, Any]]]:
    """(mid-thought pauses shorter than the maximum wait at high, those cut), as the bench counts them."""
    counted = [
        (label, outcome)
        for label, outcome in results
        if outcome.config == HIGH and label["kind"] == "trailing" and label["pause_ms"] < MAX_WAIT_HIGH_MS
    ]
    return len(counted), [(label, outcome) for label, outcome in counted if outcome.was_cut_off]


@dataclass(frozen=True)
class Classified:
    label: dict[str, Any]
    outcome: Any
    failed: tuple[str, ...]  # the class-(i) conditions it fails (empty: class (i))
    judged: str  # "sentence", "elliptical" or "no" (:data:`JUDGED`)
    why: str  # the judgement's reason

    @property
    def klass(self) -> str:
        return "ii" if self.failed else "i"


PROSODY, SENTENCE, WORDS, CLOSED = "not the statement's audio", "not a sentence", "other words", "not closed"


def classify(
    label: dict[str, Any], outcome: Any, judged: dict[str, tuple[str, str]], same_audio: bool
) -> Classified:
    """Class (i) or (ii) of one cut, with every condition it fails (module docstring). KeyError when
    its first part is not judged."""
    first = label["parts"][0]
    verdict, why = judged[first]
    heard = outcome.transcript or ""
    failed = (
        (PROSODY,) * (not same_audio)
        + (SENTENCE,) * (verdict == "no")
        + (WORDS,) * (words(heard) != words(first))
        + (CLOSED,) * (not closed(heard))
    )
    return Classified(label, outcome, failed, verdict, why)


def score_of(outcome: Any) -> float:
    """The detector's score of the deciding probe (the sum of its cues' weights)."""
    return round(sum(float(cue["weight"]) for cue in outcome.cues), 3)


def held_median(delays: list[int], held: list[bool], wait_ms: int = MAX_WAIT_HIGH_MS) -> float:
    """The statements' median speech end → ``speech_stopped`` if every one with ``held`` true waited
    ``wait_ms`` (at high, a held pause waits for the maximum wait) and the others as measured."""
    return statistics.median(wait_ms if h else d for d, h in zip(delays, held, strict=True))


def _load(split: str) -> list[tuple[dict[str, Any], Any]]:
    from mockengine.turn_corpus import CACHE_ROOT

    stored = pickle.loads((CACHE_ROOT.parent / "turn-sealed" / f"{split}.pkl").read_bytes())
    return list(stored["results"])


def _classified(split: str) -> tuple[int, list[Classified]]:
    counted, cuts = counted_cuts(_load(split))
    missing = sorted({label["parts"][0] for label, _ in cuts} - set(JUDGED))
    if missing:
        raise SystemExit("first parts not judged yet:\n" + "\n".join(repr(m) for m in missing))
    compared = {label["id"]: compare_audio(label) for label, _ in cuts}
    return counted, [classify(label, outcome, JUDGED, compared[label["id"]][0]) for label, outcome in cuts]


_SYNTH: list[Any] = []


def compare_audio(label: dict[str, Any]) -> tuple[bool, float, np.ndarray, np.ndarray]:
    """(sample-identical, peak normalised cross-correlation, the clip's first part, the same words
    spoken as a statement with a final ".")."""
    from pathlib import Path

    from mockengine.turn_corpus import load, read_pcm
    from mockengine.turn_corpus.speech import SAMPLES_PER_MS, Synthesizer, Voice, trim

    if not _SYNTH:
        _SYNTH.append(Synthesizer())
    directory, _ = load(label["split"])
    first, segment = label["parts"][0], label["segments"][0]
    clip = np.frombuffer(read_pcm(Path(directory), label), dtype="<i2")
    before = clip[segment["start_ms"] * SAMPLES_PER_MS : segment["end_ms"] * SAMPLES_PER_MS]
    text = first.rstrip(" ,") + ("" if first.rstrip(" ,").endswith((".", "?", "!")) else ".")
    statement = trim(_SYNTH[0].speak(text, Voice.from_tag(label["voice"])))
    same = before.size == statement.size and bool(np.array_equal(before, statement))
    return same, 1.0 if same else _peak_correlation(before, statement), before, statement


def cmd_classify(splits: list[str]) -> None:
    for split in splits:
        counted, rows = _classified(split)
        ones = [r for r in rows if r.klass == "i"]
        share = 100 * len(ones) / counted
        print(f"\n{split}: cut at high {len(rows)}/{counted}; class (i) {len(ones)} ({share:.1f} %)")
        for r in sorted(rows, key=lambda r: (r.klass, r.label["id"])):
            print(
                f"  ({r.klass:<2}) {r.label['id']:<26} {r.label['voice']:<28} {r.label['style']:<10} "
                f"{r.label['parts'][0]!r} -> {r.outcome.transcript!r} score {score_of(r.outcome):+.2f}"
                f"  [{r.judged}: {r.why}]{'' if r.klass == 'i' else ' fails: ' + ', '.join(r.failed)}"
            )


def cmd_same_audio(splits: list[str]) -> None:
    from mockengine.engines.stt import WhisperTranscriber
    from mockengine.turn_corpus.speech import SAMPLES_PER_MS
    from mockengine.turn_eval import CachingTranscriber, run_utterance

    transcriber = CachingTranscriber(WhisperTranscriber())
    for split in splits:
        _, rows = _classified(split)
        print(f"\n{split}: class (i), and (ii) that fails on the audio alone, against the statement")
        for r in (r for r in rows if r.klass == "i" or r.failed == (PROSODY,)):
            label = r.label
            same, likeness, before, statement = compare_audio(label)
            heard = []
            for audio in (before, statement):
                lead = np.zeros(LEAD_MS * SAMPLES_PER_MS, dtype=np.int16)
                pcm = np.concatenate([lead, audio]).astype("<i2").tobytes()
                end = LEAD_MS + audio.size // SAMPLES_PER_MS
                as_statement = {"id": label["id"], "kind": "complete", "speech_end_ms": end}
                heard.append(run_utterance(as_statement, pcm, HIGH, transcriber, measured_latency=False))
            a, b = heard
            pause_delay = r.outcome.decided_at_ms - label["segments"][0]["end_ms"]
            audio = "identical" if same else f"corr {likeness:.3f}, {before.size} vs {statement.size} samples"
            alike = (a.transcript, a.reason, a.policy_delay_ms, a.cues) == (
                b.transcript,
                b.reason,
                b.policy_delay_ms,
                b.cues,
            )
            print(
                f"  ({r.klass}) {label['id']:<24} {audio}; clip {a.transcript!r} {score_of(a):+.2f} "
                f"{a.policy_delay_ms} ms | statement {b.transcript!r} {score_of(b):+.2f} "
                f"{b.policy_delay_ms} ms | pause {r.outcome.transcript!r} {pause_delay} ms; same: {alike}"
            )


def _peak_correlation(a: np.ndarray, b: np.ndarray) -> float:
    x, y = a.astype(np.float64), b.astype(np.float64)
    full = np.correlate(x, y, mode="full") if min(x.size, y.size) < 20_000 else _fft_correlate(x, y)
    return float(np.max(np.abs(full)) / (np.linalg.norm(x) * np.linalg.norm(y)))


def _fft_correlate(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    size = x.size + y.size - 1
    n = 1 << (size - 1).bit_length()
    return np.fft.irfft(np.fft.rfft(x, n) * np.conj(np.fft.rfft(y, n)), n)


def cmd_statements(splits: list[str]) -> None:
    for split in splits:
        results = _load(split)
        _, rows = _classified(split)
        ones = [r for r in rows if r.klass == "i"]
        statements = [
            (label, o)
            for label, o in results
            if o.config == HIGH and label["category"] == "complete" and o.policy_delay_ms is not None
        ]
        delays = [o.policy_delay_ms for _, o in statements]
        top = max((score_of(r.outcome) for r in ones), default=None)
        # (1) a threshold on the detector's own score that holds every class-(i) pause
        by_score = [top is not None and score_of(o) <= top for _, o in statements]
        # (2) every statement with the class-(i) properties: whisper heard its words, closed
        by_kind = [
            words(o.transcript or "") == words(label["text"]) and closed(o.transcript or "")
            for label, o in statements
        ]
        median = statistics.median(delays)
        print(f"\n{split}: {len(statements)} statements at high, median {median:.0f} ms; top (i) score {top}")
        for name, held in (
            ("score <= highest class-(i) score", by_score),
            ("heard exactly and closed", by_kind),
        ):
            print(
                f"  hold if {name}: {sum(held)}/{len(held)} held, median {held_median(delays, held):.0f} ms"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("classify", "same-audio", "statements"))
    parser.add_argument("splits", nargs="+")
    args = parser.parse_args(argv)
    {"classify": cmd_classify, "same-audio": cmd_same_audio, "statements": cmd_statements}[args.command](
        args.splits
    )


if __name__ == "__main__":
    main()
