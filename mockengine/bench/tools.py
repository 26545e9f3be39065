"""``mockengine bench --only tools``: the participant's tool calls on the labelled intent set
(``--tools-misses SPLIT`` also lists the cases of that split it gets wrong).

The set (``tests/data/tool_intents/``, read by :mod:`mockengine.bench.tool_cases`: ``cases.yaml`` and
every other case file there, each with any apps of its own) maps an utterance, with any earlier turns, to
the expected calls, to no call, or to a question for a missing argument. Each case runs through the real
``ScriptedBrain`` (default scenario, seed 0, the file's ``today``) exactly as a Realtime response would.

**Splits**: ``cases.yaml``'s ``tune`` and ``burned-r1``, then one per other file, named after it
(``heldout_r4``, ``user_r1``, ``dev_r5``, and a sealed round dropped in later). Splits tuned on are
listed in ``tool_cases.TUNED_ON``; every other split is reported as held out. docs/tools.md has the
history and figures.

Figures per split and app: ``exact_tool`` (the right tools in order, or rightly none / a question),
``exact`` (tools and arguments), ``false_calls`` (calls where none was wanted, over those cases),
``invalid`` (calls whose arguments fail the tool's JSON Schema; must be 0).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import validators

from mockengine.bench.context import BenchContext
from mockengine.bench.sections import Section
from mockengine.bench.tool_cases import DATA, TUNED_ON, Case, load, split_names, split_of
from mockengine.brain.model import ForcedTool, ReplyRequest, ToolChoice, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario

__all__ = ["DATA", "Case", "Tally", "evaluate", "load", "report", "run_case", "split_of"]


def history_items(case: Case) -> tuple[TurnView, ...]:
    """The case's earlier turns and its utterance as the brain's history."""
    items: list[TurnView] = []
    for index, turn in enumerate(case.history):
        if "say" in turn:
            items.append(TurnView(f"h{index}", "user_text", turn["say"]))
        elif "reply" in turn:  # what the assistant said ("Which name do you mean?")
            items.append(TurnView(f"h{index}", "assistant", turn["reply"]))
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

    def add(self, other: Tally) -> None:
        for key in ("cases", "exact_tool", "exact", "no_call_cases", "false_calls", "calls", "invalid"):
            setattr(self, key, getattr(self, key) + getattr(other, key))


def run_case(
    brain: ScriptedBrain, tools: tuple[ToolSpec, ...], case: Case
) -> tuple[list[tuple[str, Any]], str | None]:
    """The calls the brain makes (name, parsed arguments) and what it says, under the case's
    ``tool_choice``."""
    choice: ToolChoice = (
        ("required" if case.tool_choice == "required" else ForcedTool(case.tool_choice))
        if case.tool_choice != "auto"
        else "auto"
    )
    request = ReplyRequest(
        "", tools, choice, ("text",), history_items(case), response_index=len(case.history)
    )
    reply = brain.reply(request)
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls], reply.text


def evaluate(directory: Path = DATA) -> dict[tuple[str, str], Tally]:
    """Every case scored, by (split, app)."""
    _, cases, _ = load(directory)
    brains: dict[Any, ScriptedBrain] = {}
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for case in cases:
        brain = brains.setdefault(case.today, ScriptedBrain(Scenario("tool-bench"), seed=0, today=case.today))
        calls, text = run_case(brain, case.tools, case)
        _score(tallies[(case.split, case.app)], case, case.tools, calls, text)
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
    """Print the table per split and app (and the misses of one split, when asked); return the figures
    (``"<split>.<app>"`` and ``"<split>.all"``)."""
    print("tool calls on the labelled intent set (exact tool / exact arguments / false calls / invalid)")
    figures: dict[str, Any] = {}
    for split in splits(tallies):
        status = "tuned on" if split in TUNED_ON else "HELD OUT"
        print(f"  -- {split} ({status})")
        total = Tally()
        for (part, app), tally in sorted(tallies.items()):
            if part != split:
                continue
            figures[f"{split}.{app}"] = tally.figures()
            _print_row(split, app, tally)
            total.add(tally)
            if show_misses == split:
                for miss in tally.misses:
                    print("    miss", miss)
        figures[f"{split}.all"] = total.figures()
        _print_row(split, "ALL", total)
    return figures


def splits(tallies: dict[tuple[str, str], Tally]) -> list[str]:
    """The splits present: ``tune``, ``burned-r1``, then the other files' in load (natural) order."""
    present = list(dict.fromkeys(split for split, _ in tallies))
    return [s for s in ("tune", "burned-r1") if s in present] + [
        s for s in present if s not in ("tune", "burned-r1")
    ]


def _print_row(split: str, app: str, tally: Tally) -> None:
    f = tally.figures()
    print(
        f"  {split:<11} {app:<13} n={f['cases']:<3} exact_tool={f['exact_tool']:.3f} exact={f['exact']:.3f} "
        f"false_calls={f['false_calls'] if f['false_calls'] is not None else '-'} invalid={f['invalid']}"
    )


def bench_tools(show_misses: str | None = None) -> dict[str, Any]:
    return report(evaluate(), show_misses)


def bench_tools_section(ctx: BenchContext) -> None:
    ctx.results["tools"] = bench_tools(ctx.args.tools_misses)


def known_split(text: str) -> str:
    """An argparse type: the name of a split (an unknown one listed no misses, silently); the error names
    the splits, from the case files' names only."""
    names = split_names()
    if text not in names:
        raise argparse.ArgumentTypeError(f"unknown split {text!r}; the splits: {', '.join(names)}")
    return text


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tools-misses",
        type=known_split,
        metavar="SPLIT",
        help="tools: also list the misses of that split (tune, burned-r1, or a case file's stem)",
    )


SECTION = Section("tools", bench_tools_section, add_arguments=_add_arguments)
