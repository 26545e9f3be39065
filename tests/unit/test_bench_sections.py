"""The bench's section registry: every listed module provides a section, and the command line offers each."""

import argparse
import dataclasses
import importlib

import pytest

from mockengine.bench import SECTION_MODULES, Section, add_arguments, run_bench, sections


def test_every_listed_module_defines_its_section() -> None:
    names = []
    for module_name in SECTION_MODULES:
        section = importlib.import_module(module_name).SECTION
        assert isinstance(section, Section)
        names.append(section.name)
    assert list(sections()) == names
    assert len(set(names)) == len(names)


def test_capacity_runs_only_when_asked() -> None:
    defaults = [name for name, section in sections().items() if section.default]
    assert "capacity" not in defaults
    assert {"audio", "session", "load", "semantic", "chat"} <= set(defaults)


def test_sections_bring_their_own_options() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--only", "capacity", "--levels", "10,20", "--session-duration", "5"])
    assert (args.levels, args.session_duration, args.only) == ([10, 20], 5.0, ["capacity"])


def test_an_unknown_section_is_refused_by_name(capsys) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert run_bench(parser.parse_args(["--only", "audio,nope"])) == 2  # a usage mistake, as elsewhere
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("mockengine bench: unknown section(s) nope; choose from audio, session")


def test_a_misspelt_section_names_its_near_miss(capsys) -> None:
    """`bench --only tool` said only "unknown section(s) tool; choose from …" while every other misspelt
    choice of the command line names its near miss (mockengine/near_miss.py)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert run_bench(parser.parse_args(["--only", "tool,nope"])) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(
        "mockengine bench: unknown section(s) tool (did you mean 'tools'?), nope; choose from "
    )


def test_an_unknown_turns_line_is_refused_before_anything_runs(capsys, monkeypatch) -> None:
    monkeypatch.setenv("MOCKENGINE_BENCH_TURN_LINE", "audio/opus")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert run_bench(parser.parse_args(["--only", "turns"])) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        "mockengine bench: MOCKENGINE_BENCH_TURN_LINE='audio/opus': "
        "choose from audio/pcm, audio/pcmu, audio/pcma"
    )


def test_an_unknown_pause_synthesis_is_refused_before_anything_runs(capsys, monkeypatch) -> None:
    monkeypatch.setenv("MOCKENGINE_BENCH_TURN_PAUSE_SYNTHESIS", "joined")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert run_bench(parser.parse_args(["--only", "turns"])) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        "mockengine bench: MOCKENGINE_BENCH_TURN_PAUSE_SYNTHESIS='joined': choose from separate, inside"
    )


@pytest.fixture
def ran(monkeypatch) -> list[str]:
    """Every section keeps its options but only records that it ran (no engine, no load)."""
    names: list[str] = []
    registered = importlib.import_module("mockengine.bench.sections")._REGISTERED
    for name, section in sections().items():
        stand_in = dataclasses.replace(section, run=lambda ctx, name=name: names.append(name))
        monkeypatch.setitem(registered, name, stand_in)
    return names


@pytest.mark.parametrize(
    ("argv", "named", "hint"),
    [
        (["--only", "soak", "--plot", "soak.png"], "--plot", "--soak-plot"),
        (["--only", "load", "--minutes", "5"], "--minutes", None),
        (["--only", "load", "--only", "session", "--levels", "10,20"], "--levels", None),
    ],
)
def test_an_option_of_a_section_left_out_is_refused_by_name(ran, argv, named, hint, capsys) -> None:
    """`--only soak --plot f.png` drew no plot and `--only load --minutes 5` ran the load's 40 s, without
    a word: a section's own option is read only when that section runs."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert run_bench(parser.parse_args(argv)) == 2
    (message,) = capsys.readouterr().err.splitlines()
    assert f"{named} is an option of the" in message and "leaves out" in message
    assert (f"did you mean {hint}" in message) if hint else "did you mean" not in message
    assert ran == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--only", "tools", "--duration", "5"],
            "--duration is an option of the load and loops sections, which this run leaves out",
        ),
        (
            ["--only", "chat", "--sessions", "200", "--profile", "spike"],
            "--sessions is an option of the load, soak and loops sections, which this run leaves out; "
            "--profile is an option of the load section, which this run leaves out",
        ),
    ],
)
def test_a_shared_option_no_section_of_the_run_reads_is_refused(ran, argv, message, capsys) -> None:
    """`bench --only tools --duration 5` ran the tools section as if `--duration` had not been given:
    the shared options (`--sessions`, `--duration`, `--profile`, `--turn-every`, `--barge-in`, `--seed`)
    are read by some sections only, and one given to a run of none of them is refused as a section's own."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert run_bench(parser.parse_args(argv)) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"mockengine bench: {message} (sections run: ")
    assert ran == []


def test_a_shared_option_is_taken_when_one_of_its_sections_runs(ran) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert run_bench(parser.parse_args(["--only", "tools,soak", "--sessions", "5", "--seed", "3"])) == 0
    assert ran == ["tools", "soak"]


def test_sections_may_be_comma_separated_and_defaults_are_not_refused(ran) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--only", "capacity, soak", "--plot", "c.png", "--soak-plot", "s.png"])
    assert run_bench(args) == 0
    assert ran == ["capacity", "soak"]
