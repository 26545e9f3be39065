"""The package layers: every part of mockengine imports only the layers beneath it, and no module imports
itself back through others.

The order (documented in docs/architecture.md): a package may import its own modules and any package of
a lower layer; never one of its own layer or above. Imports inside functions and under ``TYPE_CHECKING``
count for the layers (they are dependencies all the same); the cycle check leaves out ``TYPE_CHECKING``
imports, which never run.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import mockengine

ROOT = Path(mockengine.__file__).parent

LAYERS: list[set[str]] = [
    {"mockengine", "ids", "settings", "near_miss", "audio", "engines", "rtc"},  # foundations: no other part
    {"protocol", "brain"},  # the wire's shapes; the scripted participant
    {"realtime"},  # the sans-IO session core
    {"chat", "faults", "virtual_time", "conformance", "recordings"},  # beside the core
    {"server", "loadtest", "turn_eval", "turn_corpus", "journal"},  # the aiohttp shell; tools on the core
    {"testing", "bench", "record"},  # an engine in a thread; the benchmarks; the recording proxy
    {"cli", "pytest_plugin"},  # entry points
    {"__main__"},
]


def _module_name(path: Path) -> str:
    parts = ["mockengine", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in ROOT.rglob("*.py")}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "mockengine"


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """Every statement at any depth, without walking expressions (imports and ``if TYPE_CHECKING:`` are
    statements; a full ``ast.walk`` visits ten times as many nodes)."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, name, None) or [])
        for case in getattr(node, "cases", None) or []:
            stack.extend(case.body)


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in _statements(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


@functools.cache  # both tests walk every module
def _imports(module: str) -> list[tuple[str, bool]]:
    """The mockengine modules ``module`` imports, each with whether it runs (not ``TYPE_CHECKING``)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    typing_only = _type_checking_lines(tree)
    found = []
    for node in _statements(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names = [f"{source}.{alias.name}" for alias in node.names]
            targets = [name if name in MODULES else source for name in names]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            continue
        found += [(t, node.lineno not in typing_only) for t in targets if t in MODULES and t != module]
    return found


def _layer_of(package: str) -> int:
    for index, layer in enumerate(LAYERS):
        if package in layer:
            return index
    raise AssertionError(f"package {package!r} is in no layer: add it to LAYERS and docs/architecture.md")


def test_every_package_imports_only_the_layers_beneath_it() -> None:
    wrong: set[str] = set()
    for module in MODULES:
        package = _package(module)
        for target, _runs in _imports(module):
            other = _package(target)
            if other != package and _layer_of(other) >= _layer_of(package):
                wrong.add(f"{module} imports {target} (layer {_layer_of(other)} ≥ {_layer_of(package)})")
    assert not wrong, "\n".join(sorted(wrong))


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_back() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for module in MODULES:
        edges[module].update(target for target, runs in _imports(module) if runs)
    assert _cycles(edges) == []


def test_the_checks_can_fail() -> None:
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert _layer_of("server") > _layer_of("realtime") > _layer_of("protocol") > _layer_of("audio")


def test_the_layers_are_documented() -> None:
    """docs/architecture.md's table lists the same packages in the same layers."""
    documented: dict[int, set[str]] = {}
    for line in (ROOT.parent / "docs" / "architecture.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].isdigit():
            documented[int(cells[0])] = set(re.findall(r"`([a-z_]+)`", cells[1]))
    assert documented == dict(enumerate(LAYERS))
