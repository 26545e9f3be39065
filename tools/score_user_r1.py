"""Score the tool matcher on the user's held-out round (tests/data/tool_intents/user_r1.yaml).

Prints the misses and the figures: `.venv/bin/python tools/score_user_r1.py`."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import yaml

from mockengine.bench.tools import DATA, Case, Tally, _score, run_case
from mockengine.brain.model import ToolSpec
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario


def load(path: Path = DATA / "user_r1.yaml") -> tuple[dict[str, tuple[ToolSpec, ...]], list[Case], date]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    raw_apps = dict(yaml.safe_load((DATA / "apps.yaml").read_text(encoding="utf-8")))
    raw_apps.update(doc["apps"])
    apps = {
        name: tuple(ToolSpec(t["name"], t.get("description", ""), t.get("parameters", {})) for t in tools)
        for name, tools in raw_apps.items()
    }
    histories = doc["histories"]
    cases = []
    for c in doc["cases"]:
        history = c.get("history") or ()
        history = histories[history] if isinstance(history, str) else history
        cases.append(Case(c["id"], c["app"], c["say"], tuple(history), c["expect"]))
    return apps, cases, date.fromisoformat(doc["today"])


def evaluate() -> Tally:
    apps, cases, today = load()
    brain = ScriptedBrain(Scenario("tool-bench"), seed=0, today=today)
    tally = Tally()
    for case in cases:
        calls, text = run_case(brain, apps[case.app], case)
        _score(tally, case, apps[case.app], calls, text)
    return tally


if __name__ == "__main__":
    result = evaluate()
    for miss in result.misses:
        print("MISS", miss)
    print(result.figures())
