"""scenarios/ in the repository shows every scenario the package ships, each linked to the packaged file
and listed in its README."""

from pathlib import Path

from mockengine.brain.selection import packaged_scenarios

REPO = Path(__file__).resolve().parents[2]


def test_every_shipped_scenario_is_shown_in_scenarios() -> None:
    shipped = {scenario.name for scenario in packaged_scenarios()}
    shown = {path.stem for path in (REPO / "scenarios").glob("*.yaml")}
    assert shown == shipped
    for name in shipped:
        link = REPO / "scenarios" / f"{name}.yaml"
        assert link.resolve() == (REPO / "mockengine" / "brain" / "scenarios" / f"{name}.yaml").resolve()
    readme = (REPO / "scenarios" / "README.md").read_text()
    assert all(f"| `{name}` |" in readme for name in shipped)
