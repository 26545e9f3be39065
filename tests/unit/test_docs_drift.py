"""The documentation against the code, mechanically: what a new user copies from README.md and docs/
must exist and agree with what the engine does.

- every option of every command is in docs/command-line.md (in its command's table), every option there
  exists, and the defaults stated there are the code's;
- the environment variable each `serve` option reads is the one the page names;
- every ``MOCKENGINE_*`` variable the docs name is read by something;
- every route of the engine is in command-line.md's endpoint table, and every route there exists;
- every metric a page names is exported, with the labels it gives; the fault kinds table is the code's;
- every client and server event type of the protocol is named in the protocol pages;
- the snippets parse: Python compiles, YAML loads (scenario files validate), every ``mockengine …``
  command line parses with the real parser;
- every repository path and every link between the pages (anchors included) resolves.

docs/cpu.md is a measurement history and is left out of the snippet and command checks.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import io
import re
import shlex
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import yaml

from mockengine.brain.scenario import parse_scenario
from mockengine.cli import build_parser
from mockengine.server.app import create_app
from mockengine.settings import Settings
from tests.conftest import make_fake_resources

ROOT = Path(__file__).resolve().parents[2]
COMMAND_LINE = ROOT / "docs" / "command-line.md"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CHECKED_PAGES = [page for page in PAGES if page.name != "cpu.md"]
ALL_PAGES = [*PAGES, ROOT / "scenarios" / "README.md", ROOT / "voices" / "README.md"]


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


# -- the command line ---------------------------------------------------------------------------------


def _commands() -> dict[str, argparse.ArgumentParser]:
    """Every command's parser, with its deferred options added: {"serve": …, "faults schedule": …}."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        parser.format_help()  # a _LazyParser adds its module's options here
        if path:
            found[path] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}".strip())

    walk(build_parser(), "")
    return found


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {
        option: action
        for action in parser._actions
        for option in action.option_strings
        if option not in ("-h", "--help")
    }


def _sections(text: str) -> dict[str, str]:
    """Each ``## `mockengine X` `` / ``### `mockengine X` `` heading's text (until the next heading)."""
    parts = re.split(r"^#{2,3} (.*)$", text, flags=re.M)
    sections = {}
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        match = re.fullmatch(r"`mockengine ([a-z ]+)`", heading.strip())
        if match:
            sections[match.group(1)] = body
    return sections


def _table_rows(section: str) -> list[list[str]]:
    """The cells of the first table of ``section`` whose header starts with "option"."""
    rows: list[list[str]] = []
    in_table = False
    for line in section.splitlines():
        if line.startswith("| option"):
            in_table = True
            continue
        if in_table:
            if not line.startswith("|"):
                break
            if set(line) <= set("|- "):
                continue
            rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
    return rows


def _documented_options(cell: str) -> list[str]:
    """The options a table row's first cell names: ``--host``, ``--port`` from "`--host`, `--port`"."""
    return [match.group(1) for match in re.finditer(r"`(--[a-z][a-z0-9-]*)[^`]*`", cell)]


def _split_defaults(cell: str, count: int) -> list[str]:
    """A row's default cell, one part per option: "`256`, `900`, 32 MiB" (commas inside backticks stay)."""
    if count == 1:
        return [cell]
    parts, current, quoted = [], "", False
    for char in cell:
        if char == "`":
            quoted = not quoted
        if char == "," and not quoted:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return parts if len(parts) == count else [cell] * count


def _agrees(text: str, default: object) -> bool:
    """Whether a table's default cell states ``default`` (a described default, e.g. "bundled …", stands
    for a default the code computes: None)."""
    quoted = re.findall(r"`([^`]*)`", text)
    if isinstance(default, str) and default in quoted:  # "`$OPENAI_API_KEY`, else `sk-mockengine`"
        return True
    if default is None:  # worked out by the code ("bundled `tiny.en`", "temp dir"), but never a number
        return not (quoted and re.fullmatch(r"-?[\d.]+", quoted[0]))
    if isinstance(default, bool) or default == () or default == []:
        return text.startswith("on") if default else not text.startswith("on")
    if isinstance(default, int | float):
        if quoted:
            try:
                return float(quoted[0]) == float(default)
            except ValueError:
                return False
        mib = re.fullmatch(r"(\d+) MiB", text)
        return mib is not None and int(mib.group(1)) * 1024 * 1024 == default
    if isinstance(default, str):
        return bool(quoted) and quoted[0] == default
    if isinstance(default, tuple | list):
        return bool(quoted) and quoted[0] == ",".join(map(str, default))
    return False


def test_every_option_of_every_command_is_in_command_line_md_and_no_other():
    sections = _sections(COMMAND_LINE.read_text())
    commands = _commands()
    assert set(sections) >= set(commands), f"commands without a section: {set(commands) - set(sections)}"
    for command, parser in commands.items():
        options = _options(parser)
        if not options:
            continue
        documented = [o for row in _table_rows(sections[command]) for o in _documented_options(row[0])]
        assert documented, f"`mockengine {command}` has options but no option table"
        assert sorted(set(documented)) == sorted(documented), f"{command}: an option listed twice"
        missing, unknown = set(options) - set(documented), set(documented) - set(options)
        assert not missing, f"`mockengine {command}` options missing from command-line.md: {sorted(missing)}"
        assert not unknown, f"command-line.md lists options `mockengine {command}` lacks: {sorted(unknown)}"


def _default(command: str, action: argparse.Action) -> object:
    """What an option defaults to: a flag is off; ``serve``'s and ``record``'s options default to the
    Settings field they set (their parsers' defaults are None, to tell "not given" apart)."""
    if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
        return False
    fields = {f.name: f.default for f in dataclasses.fields(Settings)}
    if command in ("serve", "record") and action.default is None and action.dest in fields:
        return fields[action.dest]
    default = action.default
    if isinstance(default, str) and callable(action.type) and command == "bench":
        default = action.type(default)  # "10,25,50,100" → the levels
    return default


def test_the_defaults_in_command_line_md_are_the_code_defaults():
    sections = _sections(COMMAND_LINE.read_text())
    wrong = []
    for command, parser in _commands().items():
        options = _options(parser)
        for row in _table_rows(sections.get(command, "")):
            names = _documented_options(row[0])
            for name, text in zip(names, _split_defaults(row[1], len(names)), strict=True):
                action = options.get(name)
                if action is None:  # an unknown option: the test above names it
                    continue
                if action.required or isinstance(action, argparse._VersionAction):
                    continue
                default = _default(command, action)
                if not _agrees(text, default):
                    wrong.append(f"mockengine {command} {name}: documented {text!r}, default {default!r}")
    assert not wrong, "\n".join(wrong)


def test_each_serve_option_names_the_environment_variable_it_reads():
    """`MOCKENGINE_<OPTION>` unless the page (and `serve --help`) names the variable: --replay reads
    MOCKENGINE_REPLAY_DIR, not MOCKENGINE_REPLAY."""
    section = _sections(COMMAND_LINE.read_text())["serve"]
    epilog = _commands()["serve"].epilog or ""
    fields = {f.name for f in dataclasses.fields(Settings)}
    for option, action in _options(_commands()["serve"]).items():
        plain = "MOCKENGINE_" + option.removeprefix("--").replace("-", "_").upper()
        if action.dest not in fields:
            assert f"`{option}` has none" in section, f"{option} reads no variable: say so"
            continue
        variable = "MOCKENGINE_" + action.dest.upper()
        if variable != plain:
            assert variable in section, f"command-line.md: {option} reads {variable}, not {plain}"
            assert variable in epilog, f"serve --help: {option} reads {variable}, not {plain}"


def test_every_environment_variable_the_docs_name_is_read():
    fields = {"MOCKENGINE_" + f.name.upper() for f in dataclasses.fields(Settings)}
    code = "\n".join(
        path.read_text()
        for pattern in ("mockengine/**/*.py", "tests/**/*.py", "tools/*.py", "Makefile")
        for path in ROOT.glob(pattern)
    )
    unknown = sorted(
        f"{_name(page)}: {variable}"
        for page in ALL_PAGES
        for variable in set(re.findall(r"MOCKENGINE_[A-Z_]*[A-Z]", page.read_text()))
        if variable not in fields and not re.search(rf"\b{variable}\b", code)
    )
    assert not unknown, unknown


# Options the pages mention that belong to other programs (the browser, py-spy, pip, docker compose).
FOREIGN_OPTIONS = {
    "--allow-loopback-in-peer-connection",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--use-file-for-fake-audio-capture",
    "--nonblocking",
    "--native",
    "--no-deps",
    "--scale",
    "--format",  # py-spy, docs/cpu.md
    "--rate",
    "--threads",
    "--config",  # the LiteLLM proxy's, docs/client-compatibility.md
    "--collect-atstart",  # valgrind's callgrind, docs/cpu.md
    "--toggle-collect",
    "--tool",  # valgrind's, docs/cpu.md (ninth pass: tools/append_bench.py)
    "--instr-atstart",
    "--separate-threads",
    "--inclusive",  # callgrind_annotate's
    "--inplace",  # setup.py build_ext, docs/cpu.md
    "--prot",  # misspellings command-line.md shows refused with their near miss
    "--upstrem",
}


def test_every_option_the_pages_mention_exists():
    """An option in any page is one of mockengine's commands, the pytest plugin's, a tools/ script's, or
    another program's named above."""
    ours = {option for parser in _commands().values() for option in _options(parser)}
    ours |= {"--help", "--version"}
    scripts = "\n".join(
        p.read_text() for p in [*ROOT.glob("tools/*.py"), ROOT / "mockengine/pytest_plugin.py"]
    )
    unknown = sorted(
        f"{_name(page)}: {option}"
        for page in ALL_PAGES
        for option in set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", page.read_text()))
        if option not in ours and option not in FOREIGN_OPTIONS and f'"{option}"' not in scripts
    )
    assert not unknown, unknown


# -- the endpoints ------------------------------------------------------------------------------------


def _routes() -> set[tuple[str, str]]:
    with closing(make_fake_resources(Settings(seed=3))) as resources:
        app = create_app(resources.settings, resources)
        routes = set()
        for route in app.router.routes():
            canonical = route.resource.canonical if route.resource is not None else ""
            if route.method == "HEAD":
                continue
            routes.add((route.method, re.sub(r"\{[^}]*\}", "{}", canonical)))
        return routes


def _documented_endpoints() -> set[tuple[str, str]]:
    """(method or "*", path) of every endpoint in command-line.md's "Endpoints" table."""
    text = COMMAND_LINE.read_text()
    table = text[text.index("## Endpoints") :]
    endpoints = set()
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        first = line.split("|")[1]
        for span in re.findall(r"`([^`]*)`", first):
            match = re.fullmatch(r"(?:(GET|POST|DELETE|PUT|PATCH|OPTIONS) )?(/[^?\s]*)(?:\?.*)?", span)
            if match:
                path = re.sub(r"\{[^}]*\}", "{}", match.group(2)).replace("…", "{}")
                endpoints.add((match.group(1) or "*", path))
    return endpoints


def test_every_route_is_in_the_endpoint_table_and_every_endpoint_there_exists():
    routes, documented = _routes(), _documented_endpoints()
    assert documented, "no endpoints found in command-line.md"
    undocumented = sorted(
        f"{method} {path}"
        for method, path in routes
        if (method, path) not in documented
        and ("*", path) not in documented
        and (method, path + "/{}") not in documented  # the console's static files: GET /console/…
    )
    assert not undocumented, f"routes missing from command-line.md's Endpoints: {undocumented}"
    paths = {path for _method, path in routes} | {path + "/{}" for _method, path in routes}
    missing = sorted(
        f"{method} {path}"
        for method, path in documented
        if (method, path) not in routes
        and not (method == "*" and path in paths)
        and not (method == "GET" and path in paths)
    )
    assert not missing, f"command-line.md lists endpoints the engine does not serve: {missing}"


# -- snippets -----------------------------------------------------------------------------------------


def _blocks(page: Path, language: str) -> Iterator[tuple[int, str]]:
    text = page.read_text()
    for match in re.finditer(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M):
        yield text[: match.start()].count("\n") + 1, match.group(1)


def test_the_python_snippets_compile():
    for page in ALL_PAGES:
        for line, code in _blocks(page, "python"):
            compile(
                code,
                f"{_name(page)}:{line}",
                "exec",
                flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
            )


def test_the_yaml_snippets_load_and_scenarios_validate():
    for page in ALL_PAGES:
        for line, text in _blocks(page, "yaml"):
            document = yaml.safe_load(text)
            where = f"{_name(page)}:{line}"
            if isinstance(document, dict) and "rules" in document and document.get("kind") != "recording":
                # a scenario, or its rules alone (the fault example): checked as the server loads one
                parse_scenario(text if "name" in document else "name: example\n" + text, where)


def _command_lines(page: Path) -> Iterator[tuple[str, list[str], bool]]:
    """``mockengine`` command lines of a page's shell blocks and inline code: (where, argv, whole), where
    ``whole`` is False for inline code, which may leave out a required option it does not discuss."""
    candidates = [
        (line, command, True)
        for line, block in _blocks(page, "sh")
        for command in block.replace("\\\n", " ").splitlines()
    ]
    text = page.read_text()
    # Inline: a command with an option and its value ("`mockengine serve --replay`" names an option),
    # also without the program's name ("`bench --only soak --minutes 5`") and through make's ARGS.
    commands = "serve|conformance|bench|faults|journal|record"
    inline = rf"`((?:\.venv/bin/)?(?:mockengine )?(?:{commands}) --[^`]+ [^`]+)`"
    for match in re.finditer(inline, text):
        command = match.group(1)
        command = command if "mockengine" in command.split(" ")[0] else f"mockengine {command}"
        candidates.append((text[: match.start()].count("\n") + 1, command, False))
    for match in re.finditer(r"make (serve|bench) (?:BENCH_)?ARGS=\"([^\"]*)\"", text):
        candidates.append(
            (text[: match.start()].count("\n") + 1, f"mockengine {match.group(1)} {match.group(2)}", True)
        )
    for line, command, whole in candidates:
        try:
            words = shlex.split(command, comments=True)
        except ValueError:
            continue
        for start, word in enumerate(words):
            if word.endswith("mockengine") and not word.endswith("python"):
                argv = words[start + 1 :]
                # a synopsis ("[--api-key KEY]", "kinds|schedule", "FILE", "…") is not a command
                if argv and not any(re.search(r"[\[\]|…<>]|^[A-Z][A-Z.]*$", arg) for arg in argv):
                    yield f"{_name(page)}:{line}: {command.strip()}", argv, whole
                break


def _parse(argv: list[str]) -> tuple[argparse.Namespace | None, str | None]:
    """``argv`` parsed by the real parser, or argparse's complaint about it."""
    complaint = io.StringIO()
    try:
        with contextlib.redirect_stderr(complaint):
            return build_parser().parse_args(argv), None
    except SystemExit:
        return None, complaint.getvalue().strip().splitlines()[-1]


def test_every_mockengine_command_in_the_docs_parses():
    wrong, seen = [], 0
    for page in CHECKED_PAGES:
        for where, argv, whole in _command_lines(page):
            seen += 1
            args, error = _parse(argv)
            if error is not None and (whole or "are required" not in error):
                wrong.append(f"{where}\n    {error}")
            if args is not None and getattr(args, "engine_args", None):  # options of `serve`
                _args, error = _parse(["serve", *shlex.split(args.engine_args)])
                if error is not None:
                    wrong.append(f"{where} (its --engine-args)\n    {error}")
    assert seen >= 20  # the extraction finds the docs' commands
    assert not wrong, "\n".join(wrong)


# -- metrics and fault kinds ---------------------------------------------------------------------------


def _metric_labels() -> dict[str, set[str]]:
    """Every ``mockengine_*`` metric the engine exports, by each name a scrape shows (a counter's
    ``_total`` too), with its label names."""
    import prometheus_client

    import mockengine.server.metrics  # noqa: F401  (registers the metrics)

    found: dict[str, set[str]] = {}
    for family in prometheus_client.REGISTRY.collect():
        if not family.name.startswith("mockengine_"):
            continue
        labels = {name for sample in family.samples for name in sample.labels}
        if not family.samples:  # a labelled metric nothing has counted yet: its declared labels
            collector = prometheus_client.REGISTRY._names_to_collectors.get(family.name)
            labels = set(getattr(collector, "_labelnames", ()))
        for name in (family.name, family.name + "_total") if family.type == "counter" else (family.name,):
            found[name] = labels
    return found


def test_every_metric_the_docs_name_is_exported_with_the_labels_they_give():
    """``mockengine_requests_total{route,status}`` in a page is a metric ``/metrics`` has, with those
    labels (the plugin's fixtures and the close reason ``mockengine_fault.<kind>`` are no metrics)."""
    import mockengine.pytest_plugin as plugin

    metrics, wrong = _metric_labels(), []
    not_metrics = {name for name in dir(plugin) if name.startswith("mockengine_")} | {"mockengine_fault"}
    for page in ALL_PAGES:
        text = page.read_text()
        for match in re.finditer(r"`(mockengine_[a-z_]+)(?:\{([^}`]*)\})?", text):
            name, labels = match.group(1), match.group(2)
            where = f"{_name(page)}:{text[: match.start()].count(chr(10)) + 1}"
            if name in not_metrics:
                continue
            if name not in metrics:
                wrong.append(f"{where}: {name} is not a metric")
                continue
            given = {part.split("=")[0].strip() for part in (labels or "").split(",") if part.strip()}
            if given - metrics[name]:
                wrong.append(f"{where}: {name} has no label {sorted(given - metrics[name])}")
    assert not wrong, "\n".join(wrong)


def test_the_fault_kinds_table_is_the_code_s_kinds_layers_and_defaults():
    """faults-and-tokens.md's table against ``mockengine.faults.spec.KINDS``: every kind, no other, its
    layer and each parameter's default (`mockengine faults kinds` prints the same)."""
    from mockengine.faults.spec import KINDS

    page = ROOT / "docs" / "faults-and-tokens.md"
    rows = re.findall(r"^\| `(\w+)` \| (ws|http) \| ([^|]*) \|", page.read_text(), flags=re.M)
    assert {kind for kind, _layer, _params in rows} == set(KINDS)
    wrong = []
    for kind, layer, params in rows:
        if layer != KINDS[kind].layer:
            wrong.append(f"{kind}: layer {layer}, the code's {KINDS[kind].layer}")
        documented = dict(re.findall(r"`(\w+)`=([\w.]+)", params))
        code = {name: param.default for name, param in KINDS[kind].params.items()}
        if set(documented) != set(code) or any(float(documented[n]) != float(code[n]) for n in code):
            wrong.append(f"{kind}: the table gives {documented}, the code {code}")
    assert not wrong, wrong


def _event_types(page: Path) -> set[str]:
    """The event types a page names in backticks, ``a.b|c`` spelled out as ``a.b`` and ``a.c``."""
    found = set()
    for token in re.findall(r"`([a-z_]+\.[a-z_.|\s]+)`", page.read_text()):
        first, *more = re.sub(r"\s+", "", token).split("|")
        found.add(first)
        found.update(first.rsplit(".", 1)[0] + "." + last for last in more)
    return found


def test_every_event_type_the_engine_reads_or_sends_is_in_the_protocol_pages():
    """realtime-protocol.md (translation.md and webrtc.md for their own) names every client event the
    parse boundary registers and every server event type ``server_events.py`` builds."""
    from mockengine.protocol import client_events, server_events

    pages = ("realtime-protocol.md", "translation.md", "webrtc.md")
    named = {"error"}.union(*(_event_types(ROOT / "docs" / page) for page in pages))
    types = {*client_events.REGISTRY, *server_events.BUILDERS, *server_events.TRANSLATION_BUILDERS}
    missing = sorted(types - named)
    assert not missing, f"event types no protocol page names: {missing}"


# -- paths and links ----------------------------------------------------------------------------------


def test_every_repository_path_the_docs_name_exists():
    missing = []
    for page in ALL_PAGES:
        text = page.read_text()
        for match in re.finditer(
            r"`((?:mockengine|tests|tools|deploy|scenarios|voices|docs)/[\w./-]*)`", text
        ):
            path = match.group(1)
            if not (ROOT / path).exists():
                missing.append(f"{_name(page)}:{text[: match.start()].count(chr(10)) + 1}: {path}")
    assert not missing, missing


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    anchors = set()
    for heading in re.findall(r"^#+ (.*)$", page.read_text(), flags=re.M):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-"))
    return anchors


def test_every_link_between_the_pages_resolves():
    broken = []
    for page in ALL_PAGES:
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", page.read_text()):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            if target.startswith("../reports/"):  # screenshots the browser tests write (git-ignored)
                continue
            linked = (page.parent / target).resolve() if target else page
            if not linked.exists():
                broken.append(f"{_name(page)}: {target}")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{_name(page)}: {target}#{anchor}")
    assert not broken, broken
