"""The bench's section registry: every listed module provides a section, and the command line offers each."""

import argparse
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


def test_an_unknown_section_is_refused_by_name() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(SystemExit, match="nope"):
        run_bench(parser.parse_args(["--only", "nope"]))
