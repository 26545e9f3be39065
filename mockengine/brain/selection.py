"""Which scenario (and role) answers a session or a request, so an unmodified client can choose one.

Sources, strongest first:

1. a marker in the session instructions or the chat system prompt: ``[mockengine scenario=NAME role=B]``
   (either part may be left out), read anew for every reply, so a study part can switch scenario;
2. an explicit name: the ``?scenario=`` query parameter of the Realtime URL, or the
   ``X-Mockengine-Scenario`` header of a Chat Completions request;
3. the API key, through the key → scenario mapping file (``--scenario-keys``);
4. the requested model name, when it names a scenario: ``NAME`` or ``mockengine-NAME``;
5. the server default (``--scenario``).

Names that match no loaded scenario are errors at the boundary that received them (the handshake or the
HTTP request); an unknown name in an instructions marker cannot be refused (the instructions are free
text), so it is ignored and the reply comes from the session's scenario, noted in the reply's rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml

from mockengine.brain.markers import scenario_marker
from mockengine.brain.model import Reply, ReplyRequest
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario, ScenarioError, load_scenario, parse_scenario, relative_note
from mockengine.near_miss import did_you_mean

MODEL_PREFIX = "mockengine-"


class UnknownScenario(LookupError):
    """A name that matches no loaded scenario; ``str()`` is a message for the client."""


@dataclass
class ScenarioLibrary:
    """Every loaded scenario by name, the default's name, and the API key → scenario mapping."""

    scenarios: dict[str, Scenario]
    default: str
    by_key: dict[str, str] = field(default_factory=dict)

    @property
    def default_scenario(self) -> Scenario:
        return self.scenarios[self.default]

    def names(self) -> list[str]:
        return sorted(self.scenarios)

    def get(self, name: str) -> Scenario:
        """The scenario called ``name``; raises ``UnknownScenario`` naming the ones there are."""
        if name in self.scenarios:
            return self.scenarios[name]
        raise UnknownScenario(self.unknown(name))

    def unknown(self, name: str, model: str | None = None) -> str:
        """The refusal of scenario ``name`` (from ``model`` when a ``mockengine-NAME`` model named it):
        the near miss among the loaded scenarios, if one is close (``?scenario=pizzza``: did you mean
        'pizza'?), then every loaded name."""
        in_model = f" in model '{model}'" if model else ""
        hint = did_you_mean(name, self.names())
        return f"Unknown scenario '{name}'{in_model}{hint}. Loaded scenarios: {', '.join(self.names())}."

    def for_model(self, model: str | None) -> Scenario | None:
        """The scenario a model name selects (``NAME`` or ``mockengine-NAME``), or None."""
        if not model:
            return None
        name = model[len(MODEL_PREFIX) :] if model.startswith(MODEL_PREFIX) else model
        return self.scenarios.get(name)

    def select(
        self, *, scenario: str | None = None, api_key: str | None = None, model: str | None = None
    ) -> Scenario:
        """The scenario for a connection or request (sources 2–5 above); raises ``UnknownScenario``."""
        if scenario:
            return self.get(scenario)
        if api_key is not None and api_key in self.by_key:
            return self.get(self.by_key[api_key])
        return self.for_model(model) or self.default_scenario


class SelectingBrain:
    """A ``Brain`` that honours the instructions marker per reply and otherwise answers with its scenario.

    ``brain_for(scenario)`` builds the scripted brain of a scenario (seed and role fixed by the caller).
    """

    def __init__(
        self, library: ScenarioLibrary, scenario: Scenario, seed: int | None, role: str | None
    ) -> None:
        self.library = library
        self.scenario = scenario
        self._make = lambda chosen: ScriptedBrain(chosen, seed=seed, role=role)
        self._brains = {scenario.name: self._make(scenario)}

    def _brain_for(self, request: ReplyRequest) -> tuple[object, str]:
        name = scenario_marker(request.instructions)
        note = ""
        if name is not None and name not in self.library.scenarios:
            name, note = None, f" (unknown scenario marker {scenario_marker(request.instructions)!r} ignored)"
        chosen = self.library.scenarios[name] if name is not None else self.scenario
        if chosen.name not in self._brains:
            self._brains[chosen.name] = self._make(chosen)
        return self._brains[chosen.name], note

    def reply(self, request: ReplyRequest) -> Reply:
        brain, note = self._brain_for(request)
        reply: Reply = brain.reply(request)  # type: ignore[attr-defined]
        if note:
            return Reply(reply.text, reply.tool_calls, rule=reply.rule + note, why=reply.why)
        return reply


PACKAGED_SCENARIOS = "scenarios"


def packaged_scenarios() -> list[Scenario]:
    """Every scenario shipped inside the package (``mockengine/brain/scenarios/*.yaml``)."""
    folder = resources.files("mockengine.brain").joinpath(PACKAGED_SCENARIOS)
    found = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith((".yaml", ".yml")):
            found.append(
                parse_scenario(entry.read_text(encoding="utf-8"), f"mockengine/brain/scenarios/{entry.name}")
            )
    return found


def load_library(
    default: str | None = None, directories: Iterable[str] = (), key_map: str | None = None
) -> ScenarioLibrary:
    """The packaged scenarios, those in ``directories`` (later ones replace earlier ones of the same name),
    and ``default`` — a file path or a loaded scenario's name (None: ``default``).

    Raises ``ScenarioError`` for a broken file, a duplicate name within one directory, an unknown default
    name or a key map naming an unknown scenario.
    """
    scenarios = {scenario.name: scenario for scenario in packaged_scenarios()}
    for directory in directories:
        seen: dict[str, str] = {}
        if not Path(directory).is_dir():
            raise ScenarioError(
                f"{directory}: not a directory of scenario files (--scenarios-dir){relative_note(directory)}"
            )
        paths = sorted(p for p in Path(directory).iterdir() if p.suffix in (".yaml", ".yml"))
        for path in paths:
            scenario = load_scenario(str(path))
            if scenario.name in seen:
                raise ScenarioError(
                    f"{path}: scenario name {scenario.name!r} is also used by {seen[scenario.name]}"
                )
            seen[scenario.name] = str(path)
            scenarios[scenario.name] = scenario
    default_name = "default"
    if default is not None:
        if default in scenarios and not Path(default).is_file():
            default_name = default
        elif not Path(default).exists() and not default.endswith((".yaml", ".yml")):
            raise ScenarioError(
                f"{default}: no scenario file and no loaded scenario of that name "
                f"(loaded: {', '.join(sorted(scenarios))})"
            )
        else:
            chosen = load_scenario(default)
            scenarios[chosen.name] = chosen
            default_name = chosen.name
    library = ScenarioLibrary(scenarios, default_name)
    if key_map is not None:
        library.by_key = _load_key_map(key_map, library)
    return library


def _load_key_map(path: str, library: ScenarioLibrary) -> dict[str, str]:
    """A YAML/JSON mapping of API key → scenario name."""
    try:
        document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ScenarioError(f"{path}: cannot read the key → scenario map: {exc}") from exc
    if not isinstance(document, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in document.items()
    ):
        raise ScenarioError(f"{path}: expected a mapping of API key to scenario name")
    for key, name in document.items():
        if name not in library.scenarios:
            raise ScenarioError(f"{path}: key {key[:4]}… maps to unknown scenario {name!r}")
    return dict(document)
