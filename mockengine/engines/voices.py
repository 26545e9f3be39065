"""The voice catalogue: OpenAI voice names -> piper voice + shaping settings.

The canonical catalogue is `voices.yaml` next to this module (it installs with the package); its
header documents every field. Loading validates it against `VOICE_CATALOG_SCHEMA` and turns it into
frozen `VoiceProfile`s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from mockengine.engines.errors import VoiceCatalogError

# The voice names the GA realtime API accepts, in the order its reference lists them.
VOICE_NAMES: tuple[str, ...] = (
    "alloy",
    "ash",
    "ballad",
    "coral",
    "echo",
    "sage",
    "shimmer",
    "verse",
    "marin",
    "cedar",
)
BUNDLED_PREFIX = "bundled:"
BUNDLED_PIPER_VOICE = "bundled:en_US-joe-medium"
DEFAULT_CATALOG_PATH = Path(__file__).with_name("voices.yaml")

_PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["model", "length_scale", "pitch_semitones"],
    "properties": {
        "model": {"type": "string", "minLength": 1},
        "speaker_id": {"type": ["integer", "null"], "minimum": 0},
        "length_scale": {"type": "number", "minimum": 0.5, "maximum": 2.0},
        "pitch_semitones": {"type": "number", "minimum": -6, "maximum": 6},
        "description": {"type": "string"},
    },
}

VOICE_CATALOG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["voices"],
    "properties": {
        "voices": {
            "type": "object",
            "additionalProperties": False,
            "required": list(VOICE_NAMES),
            "properties": {name: _PROFILE_SCHEMA for name in VOICE_NAMES},
        }
    },
}


@dataclass(frozen=True)
class VoiceProfile:
    """How one OpenAI voice name is spoken.

    model: "bundled:<name>" or an absolute path to a piper .onnx voice.
    speaker_id: piper speaker index, None for single-speaker voices.
    length_scale: piper phoneme-duration scale at speed 1.0 (> 1 is slower).
    pitch_semitones: pitch shift applied with duration kept (see pitch.py).
    """

    name: str
    model: str
    speaker_id: int | None
    length_scale: float
    pitch_semitones: float
    description: str = ""

    @property
    def pitch_factor(self) -> float:
        """Frequency ratio of the pitch shift: 2 ** (pitch_semitones / 12)."""
        return float(2.0 ** (self.pitch_semitones / 12.0))


def _resolve_model(model: str, base_dir: Path) -> str:
    if model.startswith(BUNDLED_PREFIX):
        return model
    path = Path(model).expanduser()
    return str(path if path.is_absolute() else (base_dir / path).resolve())


def _read_yaml(path: Path) -> object:
    try:
        with path.open(encoding="utf-8") as handle:
            return yaml.safe_load(handle)
    except OSError as exc:
        raise VoiceCatalogError(f"voice catalogue {path}: cannot read: {exc}") from exc
    except yaml.YAMLError as exc:  # one line, where the scenario loader's is: the start-up error is one line
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
        raise VoiceCatalogError(f"voice catalogue {path}: invalid YAML{where}: {problem}") from exc


def _validate(document: object, path: Path) -> None:
    validator = jsonschema.Draft202012Validator(VOICE_CATALOG_SCHEMA)
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise VoiceCatalogError(f"voice catalogue {path}: at {where}: {error.message}")


def load_voice_catalog(path: str | Path | None = None) -> dict[str, VoiceProfile]:
    """Load and validate a voice catalogue; default is the packaged `voices.yaml`.

    Returns profiles keyed by voice name in VOICE_NAMES order. Relative model paths are resolved
    against the catalogue's directory. Raises VoiceCatalogError naming the file and the bad field.
    """
    catalog_path = Path(path) if path is not None else DEFAULT_CATALOG_PATH
    document = _read_yaml(catalog_path)
    _validate(document, catalog_path)
    assert isinstance(document, dict)
    entries: dict[str, dict[str, Any]] = document["voices"]
    return {
        name: VoiceProfile(
            name=name,
            model=_resolve_model(entries[name]["model"], catalog_path.parent),
            speaker_id=entries[name].get("speaker_id"),
            length_scale=float(entries[name]["length_scale"]),
            pitch_semitones=float(entries[name]["pitch_semitones"]),
            description=entries[name].get("description", ""),
        )
        for name in VOICE_NAMES
    }
