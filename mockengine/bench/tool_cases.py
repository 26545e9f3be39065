"""The labelled tool-intent set (``tests/data/tool_intents/``): every case file found, its apps, its splits.

Files read, all in one format:

* ``apps.yaml``: the shared apps, ``{app name: [tool, …]}`` (Realtime flat function shape);
* ``cases.yaml``: round 1's set, split by case id (``tune`` and the hash-chosen ``burned-r1`` quarter);
* every other ``*.yaml`` with a top-level ``cases:`` list (``heldout_r2.yaml`` … ``heldout_rN.yaml``,
  ``user_r1.yaml``, ``dev_r5.yaml``, and any file added later, such as a sealed held-out round): its own
  split, named after the file's stem.

A case file may carry, besides ``cases:``, an optional ``apps:`` block (same format as ``apps.yaml``)
defining apps for that file only (an app of the same name there wins over the shared one, in that file),
an optional ``histories:`` block (named earlier turns a case's ``history:`` may name, besides
``cases.yaml``'s), and an optional
``today:`` (ISO date relative dates count from; else ``cases.yaml``'s). A case is ``{id, app, say,
history?, tool_choice?, expect}``; ``expect`` is a list of ``{tool, arguments}``, ``[]`` for no call, or
``ask``; ``tool_choice`` is ``auto`` (the default), ``required``, or the name of a tool the host forces.

Which splits were tuned on is recorded here (``TUNED_ON``), not guessed: any file not listed — a new
held-out round — is reported as held out.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from mockengine.brain.model import ToolSpec

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "tool_intents"
# Splits whose cases informed the matcher (scored once when fresh, then tuned on). docs/tools.md has the
# history; heldout_r4 and any round added later are held out.
TUNED_ON = frozenset(
    (
        "tune",
        "burned-r1",
        "heldout_r2",
        "heldout_r3",
        "user_r1",
        "dev_r5",
        "aside_r5",
        "aside_r5b",
        "heldout_r5",
        "dev_r6",
        "aside_r6",
        "heldout_r6",
        "aside_r7",
        "heldout_r7",
        "dev_r8",
        "heldout_r8",
        "heldout_r9",
        "followups",  # written with the follow-up rules (ellipsis.py), not before them
        "aside_r12",  # brain3's four apps: scored once (62.5 % exact), then tuned on
        "skeptic",  # cases a skeptic found read as no model would, written with their fixes (brain17 on)
        "dev_r19",  # brain19's four apps, written as a new app developer would, scored once, then tuned on
        "dev_r20",  # brain20's three apps: scored once on 066d2f4b, then tuned on
        "dev_r21",  # brain21's four apps: scored once on ab64ef3e, then tuned on
        "dev_r22",  # brain22's three apps: scored once on c9ee5fd2, then tuned on
    )
)
_NOT_CASE_FILES = frozenset(("apps.yaml", "cases.yaml"))


class CaseFileError(ValueError):
    """A case file that cannot be read: names the file and what is wrong."""


@dataclass(frozen=True)
class Case:
    """One labelled utterance: the tools declared, earlier turns, what should happen."""

    id: str
    app: str
    say: str
    history: tuple[dict[str, Any], ...]
    expect: Any  # list of {tool, arguments}, [] or "ask"
    split: str = "tune"
    tools: tuple[ToolSpec, ...] = ()
    today: date = date(2026, 3, 2)
    tool_choice: str = "auto"  # "auto", "required", or the name of the tool forced

    @property
    def held_out(self) -> bool:
        return self.split not in TUNED_ON


def split_of(case_id: str, file_stem: str = "cases") -> str:
    """The split of a case: for ``cases.yaml`` the quarter whose sha256(id) first byte % 4 == 0 is
    ``burned-r1`` (round 1's held-out split, scored once at 46.8 % exact, then tuned on), the rest
    ``tune``; for any other file, the file's stem (``heldout_r4``, ``user_r1``, …)."""
    if file_stem != "cases":
        return file_stem
    return "burned-r1" if hashlib.sha256(case_id.encode()).digest()[0] % 4 == 0 else "tune"


def tools_of(raw: dict[str, Any], where: str) -> dict[str, tuple[ToolSpec, ...]]:
    """``{app: [tool dict, …]}`` as ToolSpecs."""
    if not isinstance(raw, dict):
        raise CaseFileError(f"{where}: apps must be a mapping of app name to a list of tools")
    apps = {}
    for name, tools in raw.items():
        if not isinstance(tools, list) or not all(isinstance(t, dict) and "name" in t for t in tools):
            raise CaseFileError(f"{where}: app {name!r} must be a list of tools, each with a name")
        apps[str(name)] = tuple(
            ToolSpec(t["name"], t.get("description", ""), t.get("parameters", {})) for t in tools
        )
    return apps


def case_files(directory: Path = DATA) -> list[Path]:
    """``cases.yaml`` first, then every other case file in natural order (``heldout_r2`` … ``r10``)."""
    found = [p for p in directory.glob("*.yaml") if p.name not in _NOT_CASE_FILES]
    natural = lambda p: [int(s) if s.isdigit() else s for s in re.split(r"(\d+)", p.stem)]  # noqa: E731
    return [directory / "cases.yaml", *sorted(found, key=natural)]


def split_names(directory: Path = DATA) -> list[str]:
    """Every split's name, from the file names alone (no case is read): ``tune``, ``burned-r1``, then each
    other case file's stem in natural order."""
    return ["tune", "burned-r1", *(path.stem for path in case_files(directory)[1:])]


def load(directory: Path = DATA) -> tuple[dict[str, tuple[ToolSpec, ...]], list[Case], date]:
    """The shared apps, every case of every case file (each with its tools and today), and
    ``cases.yaml``'s reference date."""
    shared = tools_of(_read(directory / "apps.yaml"), "apps.yaml")
    base = _read(directory / "cases.yaml")
    base_today = date.fromisoformat(str(base["today"]))
    base_histories = base.get("histories") or {}
    cases: list[Case] = []
    for path in case_files(directory):
        doc = _read(path)
        if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
            continue  # not a case file
        cases += _cases_of(path, doc, (shared, base_histories), base_today)
    _unique(cases)
    return shared, cases, base_today


def _cases_of(
    path: Path,
    doc: dict[str, Any],
    shared: tuple[dict[str, tuple[ToolSpec, ...]], dict[str, Any]],
    base_today: date,
) -> list[Case]:
    apps = {**shared[0], **tools_of(doc.get("apps") or {}, path.name)}
    histories = {**shared[1], **(doc.get("histories") or {})}
    today = date.fromisoformat(str(doc["today"])) if doc.get("today") else base_today
    cases = []
    for raw in doc["cases"]:
        where = f"{path.name}: case {raw.get('id', '?')!r}" if isinstance(raw, dict) else path.name
        if not isinstance(raw, dict) or not {"id", "app", "say", "expect"} <= raw.keys():
            raise CaseFileError(f"{where}: a case needs id, app, say and expect")
        if raw["app"] not in apps:
            raise CaseFileError(f"{where}: app {raw['app']!r} is neither in apps.yaml nor in the file's apps")
        choice = str(raw.get("tool_choice", "auto"))
        if choice not in ("auto", "required") and choice not in {t.name for t in apps[raw["app"]]}:
            raise CaseFileError(
                f"{where}: tool_choice {choice!r} is neither auto, required nor a tool of the app"
            )
        history = raw.get("history") or ()
        if isinstance(history, str):
            if history not in histories:
                raise CaseFileError(f"{where}: history {history!r} is not in the file's histories")
            history = histories[history]
        cases.append(
            Case(
                str(raw["id"]),
                str(raw["app"]),
                str(raw["say"]),
                tuple(history),
                raw["expect"],
                split_of(str(raw["id"]), path.stem),
                apps[raw["app"]],
                today,
                choice,
            )
        )
    return cases


def _unique(cases: list[Case]) -> None:
    seen: dict[str, str] = {}
    for case in cases:
        if case.id in seen:
            raise CaseFileError(f"case id {case.id!r} is in both {seen[case.id]} and {case.split}")
        seen[case.id] = case.split


def _read(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise CaseFileError(f"{path.name}: not valid YAML: {error}") from error
