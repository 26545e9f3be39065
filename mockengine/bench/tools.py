"""``mockengine bench --only tools``: the participant's tool calls on the labelled intent set
(``--tools-misses SPLIT`` also lists the cases of that split it gets wrong).

The set (``tests/data/tool_intents/cases.yaml`` over the tool sets of ``apps.yaml``) maps an utterance,
with any earlier turns, to the expected calls, to no call, or to a question for a missing argument. Each
case runs through the real ``ScriptedBrain`` (default scenario, seed 0, the set's ``today``) exactly as
a Realtime response would.

**Splits** follow from the case id alone (``split_of``), each fixed before its cases were first scored:
round 1's hash-chosen quarter of ``cases.yaml`` and rounds 2 and 3's files were each held out, scored
once, and then tuned on (``burned-r1``…``burned-r3``); round 4's file is the held-out ``test`` split,
never tuned on. docs/tools.md has the history and figures.

Figures per app and split: ``exact_tool`` (the right tools in order, or rightly none / a question),
``exact`` (tools and arguments), ``false_calls`` (calls where none was wanted, over those cases),
``invalid`` (calls whose arguments fail the tool's JSON Schema; must be 0).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import yaml
from jsonschema import validators

from mockengine.bench.context import BenchContext
from mockengine.bench.sections import Section
from mockengine.brain.model import ReplyRequest, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "tool_intents"
SPLITS = ("tune", "burned-r1", "burned-r2", "burned-r3", "test")


def split_of(case_id: str) -> str:
    """Which split a case is in, decided by its id alone:

    * ``test``: the round-4 held-out file (``r4-…``), never tuned on;
    * ``burned-r3``: the round-3 held-out file (``r3-…``), scored once (84.8 % exact), then tuned on;
    * ``burned-r2``: the round-2 held-out file (``r2-…``), scored once (82.8 % exact), then tuned on;
    * ``burned-r1``: the quarter of ``cases.yaml`` whose sha256(id) first byte % 4 == 0 — round 1's test
      split, scored once (46.8 % exact), then tuned on;
    * ``tune``: the rest of ``cases.yaml``."""
    if case_id.startswith("r4-"):
        return "test"
    if case_id.startswith("r3-"):
        return "burned-r3"
    if case_id.startswith("r2-"):
        return "burned-r2"
    return "burned-r1" if hashlib.sha256(case_id.encode()).digest()[0] % 4 == 0 else "tune"


@dataclass(frozen=True)
class Case:
    id: str
    app: str
    say: str
    history: tuple[dict[str, Any], ...]
    expect: Any  # list of {tool, arguments}, or "ask"

    @property
    def split(self) -> str:
        return split_of(self.id)


def load(directory: Path = DATA) -> tuple[dict[str, tuple[ToolSpec, ...]], list[Case], date]:
    """The apps' tools, the cases and the set's reference date."""
    apps_doc = yaml.safe_load((directory / "apps.yaml").read_text(encoding="utf-8"))
    apps = {
        name: tuple(ToolSpec(t["name"], t.get("description", ""), t.get("parameters", {})) for t in tools)
        for name, tools in apps_doc.items()
    }
    doc = yaml.safe_load((directory / "cases.yaml").read_text(encoding="utf-8"))
    rounds = [
        yaml.safe_load((directory / f"heldout_{r}.yaml").read_text(encoding="utf-8"))
        for r in ("r2", "r3", "r4")
    ]
    histories = doc["histories"]
    cases = []
    for c in doc["cases"] + [case for held in rounds for case in held["cases"]]:
        history = c.get("history") or ()
        history = histories[history] if isinstance(history, str) else history
        cases.append(Case(c["id"], c["app"], c["say"], tuple(history), c["expect"]))
    return apps, cases, date.fromisoformat(doc["today"])


def history_items(case: Case) -> tuple[TurnView, ...]:
    """The case's earlier turns and its utterance as the brain's history."""
    items: list[TurnView] = []
    for index, turn in enumerate(case.history):
        if "say" in turn:
            items.append(TurnView(f"h{index}", "user_text", turn["say"]))
        elif "call" in turn:
            arguments = json.dumps(turn["arguments"])
            items.append(
                TurnView(f"h{index}", "function_call", arguments, name=turn["call"], call_id=f"c{index}")
            )
        else:
            items.append(
                TurnView(
                    f"h{index}", "function_call_output", json.dumps(turn["output"]), call_id=f"c{index - 1}"
                )
            )
    items.append(TurnView("now", "user_text", case.say))
    return tuple(items)


@dataclass
class Tally:
    cases: int = 0
    exact_tool: int = 0
    exact: int = 0
    no_call_cases: int = 0
    false_calls: int = 0
    calls: int = 0
    invalid: int = 0
    misses: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        share = lambda n, d: round(n / d, 3) if d else None  # noqa: E731
        return {
            "cases": self.cases,
            "exact_tool": share(self.exact_tool, self.cases),
            "exact": share(self.exact, self.cases),
            "false_calls": share(self.false_calls, self.no_call_cases),
            "calls": self.calls,
            "invalid": self.invalid,
        }


def run_case(
    brain: ScriptedBrain, tools: tuple[ToolSpec, ...], case: Case
) -> tuple[list[tuple[str, Any]], str | None]:
    """The calls the brain makes (name, parsed arguments) and what it says."""
    request = ReplyRequest(
        "", tools, "auto", ("text",), history_items(case), response_index=len(case.history)
    )
    reply = brain.reply(request)
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls], reply.text


def evaluate(directory: Path = DATA) -> dict[tuple[str, str], Tally]:
    """Every case scored, by (app, split)."""
    apps, cases, today = load(directory)
    brain = ScriptedBrain(Scenario("tool-bench"), seed=0, today=today)
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for case in cases:
        tally = tallies[(case.app, case.split)]
        calls, text = run_case(brain, apps[case.app], case)
        _score(tally, case, apps[case.app], calls, text)
    return dict(tallies)


def _score(
    tally: Tally, case: Case, tools: tuple[ToolSpec, ...], calls: list[tuple[str, Any]], text: str | None
) -> None:
    tally.cases += 1
    tally.calls += len(calls)
    schemas = {tool.name: tool.parameters for tool in tools}
    tally.invalid += sum(1 for name, arguments in calls if not _valid(arguments, schemas.get(name, {})))
    if case.expect == "ask" or not case.expect:
        tally.no_call_cases += 1
        tally.false_calls += bool(calls)
        asked = not calls and text is not None and text.rstrip().endswith("?")
        right = asked if case.expect == "ask" else not calls
        tally.exact_tool += right
        tally.exact += right
        if not right:
            tally.misses.append(f"{case.id}: {case.say!r} → {calls or text!r}, wanted {case.expect!r}")
        return
    wanted = [(e["tool"], e.get("arguments", {})) for e in case.expect]
    tally.exact_tool += [n for n, _ in calls] == [n for n, _ in wanted]
    tally.exact += calls == wanted
    if calls != wanted:
        tally.misses.append(f"{case.id}: {case.say!r} → {calls or text!r}, wanted {wanted}")


def _valid(arguments: Any, schema: dict[str, Any]) -> bool:
    return bool(validators.validator_for(schema)(schema).is_valid(arguments))


def report(tallies: dict[tuple[str, str], Tally], show_misses: str | None = None) -> dict[str, Any]:
    """Print the table (and the misses of one split, when asked); return the figures."""
    print("tool calls on the labelled intent set (exact tool / exact arguments / false calls / invalid)")
    figures: dict[str, Any] = {}
    for split in SPLITS:
        total = Tally()
        for (app, part), tally in sorted(tallies.items()):
            if part != split:
                continue
            figures[f"{split}.{app}"] = tally.figures()
            _print_row(split, app, tally)
            for key in ("cases", "exact_tool", "exact", "no_call_cases", "false_calls", "calls", "invalid"):
                setattr(total, key, getattr(total, key) + getattr(tally, key))
            if show_misses == split:
                for miss in tally.misses:
                    print("    miss", miss)
        figures[f"{split}.all"] = total.figures()
        _print_row(split, "ALL", total)
    return figures


def _print_row(split: str, app: str, tally: Tally) -> None:
    f = tally.figures()
    print(
        f"  {split:<9} {app:<13} n={f['cases']:<3} exact_tool={f['exact_tool']:.3f} exact={f['exact']:.3f} "
        f"false_calls={f['false_calls'] if f['false_calls'] is not None else '-'} invalid={f['invalid']}"
    )


def bench_tools(show_misses: str | None = None) -> dict[str, Any]:
    return report(evaluate(), show_misses)


def bench_tools_section(ctx: BenchContext) -> None:
    ctx.results["tools"] = bench_tools(ctx.args.tools_misses)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tools-misses", choices=SPLITS, help="tools: also list the cases of this split it gets wrong"
    )


SECTION = Section("tools", bench_tools_section, add_arguments=_add_arguments)
