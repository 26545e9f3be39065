"""The labelled turn-detection corpus (issue 18): texts and labels in code, audio made on demand.

What it holds: complete statements, questions, one-word answers, and mid-thought utterances whose speaker
pauses 0.6-2 s after an article, a preposition, a conjunction, a filler ("um", "like"), inside a list, or
after an opener ("I think", "let me see") (round 3's development texts add possessives, auxiliaries,
subordinate clauses and numbers). Each text is spoken by two voices (espeak-ng voices and the bundled
piper joe voice at several length scales). A mid-thought first part is either spoken as its own sentence
(``style="separate"``: a synthetic voice closes it with a falling, final intonation, the hard case) or
with a trailing comma (``style="continuing"``: continuation intonation); the style is picked by hash.
Either way the two parts are spoken as separate utterances joined by silence. Round 17's option
``synthesis="inside"`` (:func:`build`, :func:`load`) speaks a mid-thought item as one sentence cut
where the pause goes, so the words before the pause keep sentence-internal intonation: an espeak voice
with an SSML break there (round 17), a piper voice without one, cut where piper's phoneme alignment
ends the first part's last word (round 18; needs the ``onnx`` package, the ``bench`` extra; the ~2 %
of piper items whose words run across the cut, "should have", are spoken separate and say so). The
default ("separate") is the corpus as every round scored it.

Splits, all fixed before the tuning they serve:

* ``tune`` / ``heldout``: round 1's texts (:mod:`.round1`), halved by a hash of the text (both voices of a
  text fall in the same half). Round 1 tuned on ``tune`` and scored ``heldout`` once; ``heldout`` is
  burned (tuned on since round 2).
* one split per module ``heldout_r<N>.py`` or ``dev_r<N>.py`` in this package, found automatically (same
  format as :mod:`.heldout_r2`: ``NEW_VOICES``, ``COMPLETE``, ``QUESTIONS``, ``ONE_WORD``,
  ``MID_THOUGHT``), spoken by round 1's voices plus the module's ``NEW_VOICES``. ``dev_r<N>`` is tuned
  on. ``heldout_r<N>`` is sealed while N >= :data:`TUNING_ROUND` (written by someone else, scored once at
  the end of that round, never looked at while tuning) and burned once a later round tunes on it.

Audio: espeak-ng and piper with its noise scales at zero are deterministic, so the clips are not
committed: :func:`build` writes each split's clips (24 kHz mono PCM16 WAV) and ``labels.json`` into
``.cache/turn-corpus/<split>-<fingerprint>/`` on first use (about a minute per split), so adding a split
makes only that split.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import re
import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from mockengine.turn_corpus import round1
from mockengine.turn_corpus.round1 import EVERYDAY_QUESTIONS
from mockengine.turn_corpus.speech import SYNTHESIS_MODES, VOICES, Synthesizer, Voice, make_clip

__all__ = ["EVERYDAY_QUESTIONS", "VOICES", "Voice", "build", "load", "plan", "read_pcm", "splits"]

PAUSES_MS = (600, 800, 1000, 1200, 1500, 2000)
CACHE_ROOT = Path(__file__).resolve().parents[2] / ".cache" / "turn-corpus"
PACKAGE_DIR = Path(__file__).resolve().parent
FORMAT_VERSION = 2
# The round whose tuning is under way (or was last done): held-out modules of this round or later are
# sealed; earlier ones have been scored and are tuned on.
TUNING_ROUND = 15
MID_THOUGHT_CATEGORIES = ("article", "preposition", "conjunction", "filler", "list", "opener")
_ROUND_MODULE = re.compile(r"^(heldout|dev)_r(\d+)$")


@dataclass(frozen=True)
class Split:
    """A named set of texts and the voices that speak them."""

    name: str
    round: int
    prefix: str  # of its utterance ids
    texts: tuple[tuple[str, str, tuple[str, ...]], ...]  # (category, kind, parts)
    voices: tuple[Voice, ...]

    @property
    def status(self) -> str:
        """``tuning`` (tuned on), ``burned`` (held out once, tuned on since) or ``sealed`` (never seen)."""
        if self.name == "heldout" or (self.name.startswith("heldout_r") and self.round < TUNING_ROUND):
            return "burned"
        return "sealed" if self.name.startswith("heldout_r") else "tuning"


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def split_of(text_key: str) -> str:
    """``tune`` or ``heldout`` by the text's hash: fixed before tuning, never by hand."""
    return "tune" if _digest("split:" + text_key) % 2 == 0 else "heldout"


def _texts(module: Any) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    texts: list[tuple[str, str, tuple[str, ...]]] = []
    texts += [("complete", "complete", (t,)) for t in module.COMPLETE]
    texts += [("question", "question", (t,)) for t in module.QUESTIONS]
    texts += [("one_word", "complete", (t,)) for t in module.ONE_WORD]
    texts += [(c, "trailing", (a, b)) for c, a, b in module.MID_THOUGHT]
    return tuple(texts)


def _load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"mockengine.turn_corpus.{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def splits(directory: Path = PACKAGE_DIR) -> list[Split]:
    """Every split: round 1's two halves, then each ``heldout_r<N>`` / ``dev_r<N>`` module of
    ``directory`` by round (development texts before the held-out ones of the same round)."""
    first = _texts(round1)
    found = [
        Split(name, 1, "", tuple(t for t in first if split_of(_key(t)) == name), VOICES)
        for name in ("tune", "heldout")
    ]
    modules = []
    for path in directory.glob("*_r*.py"):
        match = _ROUND_MODULE.match(path.stem)
        if match:
            modules.append((int(match[2]), match[1] == "heldout", path))
    for number, is_heldout, path in sorted(modules):
        module = _load_module(path)
        voices = VOICES + tuple(Voice(*voice) for voice in module.NEW_VOICES)
        prefix = f"r{number}-" if is_heldout else f"dev{number}-"
        found.append(Split(path.stem, number, prefix, _texts(module), voices))
    return found


def _key(text: tuple[str, str, tuple[str, ...]]) -> str:
    return " | ".join(text[2])


def plan(directory: Path = PACKAGE_DIR) -> list[dict[str, Any]]:
    """Every utterance to make: id, category, kind, parts, voice, pause, style, split. Deterministic."""
    return [item for split in splits(directory) for item in _items(split)]


def _items(split: Split, synthesis: str = "separate") -> list[dict[str, Any]]:
    """Each text twice, by two voices in turn; round 1's ids index the whole round-1 list, so ``tune``
    and ``heldout`` keep the ids they always had. ``synthesis="inside"`` marks each mid-thought item
    ``"synthesis": "inside"`` (see ``speech.SYNTHESIS_MODES``; espeak and, since round 18, piper
    voices); the default ("separate") carries no such field, so the default plan is unchanged."""
    texts = _texts(round1) if split.round == 1 else split.texts
    items = []
    for index, text in enumerate(texts):
        if split.round == 1 and split_of(_key(text)) != split.name:
            continue
        category, kind, parts = text
        for copy in range(2):
            voice = split.voices[(index * 2 + copy) % len(split.voices)]
            seed = _digest(f"{_key(text)}#{copy}")
            items.append(
                {
                    "id": f"{split.prefix}{category}-{index:03d}-{copy}",
                    "category": category,
                    "kind": kind,
                    "parts": list(parts),
                    "voice": voice.tag,
                    "pause_ms": PAUSES_MS[seed % len(PAUSES_MS)] if kind == "trailing" else None,
                    "style": ("separate", "continuing")[seed // 7 % 2] if kind == "trailing" else None,
                    "split": split.name,
                }
            )
            if synthesis == "inside" and kind == "trailing":
                items[-1]["synthesis"] = "inside"
    return items


@functools.cache
def _espeak_version() -> str:
    return subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True).stdout.strip()


def _fingerprint(items: list[dict[str, Any]]) -> str:
    blob = json.dumps([FORMAT_VERSION, items, _espeak_version()], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def build(
    split: str, cache_root: Path = CACHE_ROOT, directory: Path = PACKAGE_DIR, synthesis: str = "separate"
) -> Path:
    """Make (once) and return the directory holding one split's clips and its ``labels.json``;
    ``synthesis`` ("separate" or "inside", see ``speech.SYNTHESIS_MODES``): how mid-thought pauses
    are spoken (a different plan, so a different cache directory).

    Raises FileNotFoundError with a clear message when espeak-ng is not installed, KeyError for an
    unknown split, ValueError for an unknown synthesis mode."""
    if shutil.which("espeak-ng") is None:
        raise FileNotFoundError("espeak-ng is not installed (Debian package espeak-ng; .ci/run installs it)")
    if synthesis not in SYNTHESIS_MODES:
        raise ValueError(f"synthesis {synthesis!r}: choose from {', '.join(SYNTHESIS_MODES)}")
    chosen = {s.name: s for s in splits(directory)}[split]
    items = _items(chosen, synthesis)
    target = cache_root / f"{split}-{_fingerprint(items)}"
    if (target / "labels.json").exists():
        return target
    cache_root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=cache_root))
    synth = Synthesizer()
    # Items the mode leaves alone (no "synthesis" field) are the default plan's items, so their clips
    # are the default build's bytes: copied from it when it is cached (an "inside" build then makes
    # only the mid-thought clips).
    default = cache_root / f"{split}-{_fingerprint(_items(chosen))}" / "labels.json"
    made = (
        {label["id"]: label for label in json.loads(default.read_text())}
        if synthesis != "separate" and default.exists()
        else {}
    )
    labels = []
    for item in items:
        if "synthesis" not in item and item["id"] in made:
            shutil.copyfile(default.parent / made[item["id"]]["file"], work / made[item["id"]]["file"])
            labels.append(made[item["id"]])
        else:
            labels.append(make_clip(item, synth, work))
    (work / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    shutil.move(str(work), str(target))
    return target


def load(
    split: str | None = None, cache_root: Path = CACHE_ROOT, synthesis: str = "separate"
) -> tuple[Path, list[dict[str, Any]]]:
    """A root directory and the labels of one split (None: every split); ``root / label["file"]`` is
    the label's clip; ``synthesis`` as in :func:`build`."""
    names = [s.name for s in splits()] if split is None else [split]
    labels = []
    for name in names:
        built = build(name, cache_root, synthesis=synthesis)
        for label in json.loads((built / "labels.json").read_text()):
            labels.append({**label, "file": f"{built.name}/{label['file']}"})
    return cache_root, labels


def read_pcm(directory: Path, label: dict[str, Any]) -> bytes:
    with wave.open(str(directory / label["file"]), "rb") as handle:
        return handle.readframes(handle.getnframes())
