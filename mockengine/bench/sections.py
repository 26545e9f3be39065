"""The bench's sections, and the one place a new one registers.

A section is a module in this package that defines ``SECTION = Section(name, run, ...)``; ``run`` takes
the :class:`~mockengine.bench.context.BenchContext`, prints its figures and stores a JSON-ready dict in
``ctx.results[name]``. To add one, write the module and add its name to ``SECTION_MODULES`` (the order
here is the order sections run in and are listed by ``--only``). Modules are imported when the command
line is built, so keep their top level light: import models and drivers inside ``run``.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass

from mockengine.bench.context import BenchContext

SECTION_MODULES = (
    "mockengine.bench.audio",
    "mockengine.bench.session",
    "mockengine.bench.load",
    "mockengine.bench.capacity",
    "mockengine.bench.turns",
    "mockengine.bench.turn_corpus",
    "mockengine.bench.chat",
    "mockengine.bench.tools",
    "mockengine.bench.brain_cost",
    "mockengine.bench.webrtc",
    "mockengine.bench.soak",
    "mockengine.bench.loops",
    "mockengine.bench.fingerprint",
)


@dataclass(frozen=True)
class Section:
    """One ``--only`` choice. ``default``: runs when no ``--only`` is given. ``add_arguments``: the
    section's own options (shared ones, such as ``--sessions``, live in ``runner.add_arguments``).
    ``check``: a usage problem with the parsed options (one line), or None; asked before any section
    runs, so a run that cannot do what was asked stops at once, not minutes in."""

    name: str
    run: Callable[[BenchContext], None]
    default: bool = True
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None
    check: Callable[[argparse.Namespace], str | None] | None = None


_REGISTERED: dict[str, Section] = {}


def register_section(name: str, function: Callable[[BenchContext], None], *, default: bool = True) -> None:
    """Add a section at run time (a section module in ``SECTION_MODULES`` is the usual way)."""
    _REGISTERED[name] = Section(name, function, default)


def sections() -> dict[str, Section]:
    """Every section by name, in run order: those of ``SECTION_MODULES``, then any registered."""
    found = {}
    for module_name in SECTION_MODULES:
        section: Section = importlib.import_module(module_name).SECTION
        found[section.name] = section
    return {**found, **_REGISTERED}
