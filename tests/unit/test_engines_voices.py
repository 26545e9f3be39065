"""The voice catalogue: completeness, distinctness, validation messages, path resolution."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
import yaml

from mockengine.engines import VOICE_NAMES, VoiceCatalogError, load_voice_catalog
from mockengine.engines.voices import BUNDLED_PIPER_VOICE, DEFAULT_CATALOG_PATH

REPO_ROOT = Path(__file__).resolve().parents[2]


def _write_catalog(tmp_path: Path, voices: dict[str, dict[str, object]]) -> Path:
    path = tmp_path / "voices.yaml"
    path.write_text(yaml.safe_dump({"voices": voices}), encoding="utf-8")
    return path


def _valid_entries() -> dict[str, dict[str, object]]:
    return {
        name: {"model": BUNDLED_PIPER_VOICE, "speaker_id": None, "length_scale": 1.0, "pitch_semitones": 0.0}
        for name in VOICE_NAMES
    }


def test_voice_names_are_the_ten_ga_names_in_reference_order() -> None:
    assert VOICE_NAMES == (
        "alloy", "ash", "ballad", "coral", "echo", "sage", "shimmer", "verse", "marin", "cedar",
    )  # fmt: skip


def test_default_catalog_has_every_voice_in_order() -> None:
    catalog = load_voice_catalog()
    assert tuple(catalog) == VOICE_NAMES
    assert all(profile.name == name for name, profile in catalog.items())


def test_default_catalog_lives_in_the_package() -> None:
    assert DEFAULT_CATALOG_PATH.parent.name == "engines"
    assert DEFAULT_CATALOG_PATH.is_file()


def test_default_voices_are_pairwise_distinguishable() -> None:
    catalog = load_voice_catalog()
    for first, second in itertools.combinations(catalog.values(), 2):
        pitch_gap = abs(first.pitch_semitones - second.pitch_semitones)
        pace_gap = abs(first.length_scale - second.length_scale)
        assert pitch_gap >= 1.0 or pace_gap >= 0.08, (first.name, second.name)


def test_pitch_factor_is_the_semitone_ratio() -> None:
    catalog = load_voice_catalog()
    shimmer = catalog["shimmer"]
    assert shimmer.pitch_factor == pytest.approx(2.0 ** (shimmer.pitch_semitones / 12.0))
    assert catalog["alloy"].pitch_factor == 1.0


def test_example_catalog_is_valid_and_resolves_relative_paths() -> None:
    example = REPO_ROOT / "voices" / "voices.example.yaml"
    catalog = load_voice_catalog(example)
    assert catalog["coral"].model == str((example.parent / "piper" / "en_US-amy-medium.onnx").resolve())
    assert catalog["sage"].speaker_id == 12
    assert catalog["alloy"].model == BUNDLED_PIPER_VOICE


def test_missing_voice_is_rejected_naming_it(tmp_path: Path) -> None:
    entries = _valid_entries()
    del entries["marin"]
    path = _write_catalog(tmp_path, entries)
    with pytest.raises(VoiceCatalogError, match="'marin' is a required property") as caught:
        load_voice_catalog(path)
    assert str(path) in str(caught.value)


def test_out_of_range_length_scale_is_rejected_naming_the_field(tmp_path: Path) -> None:
    entries = _valid_entries()
    entries["echo"]["length_scale"] = 9
    with pytest.raises(VoiceCatalogError, match=r"at voices/echo/length_scale: 9 is greater than"):
        load_voice_catalog(_write_catalog(tmp_path, entries))


def test_unknown_voice_name_is_rejected(tmp_path: Path) -> None:
    entries = _valid_entries()
    entries["nova"] = dict(entries["alloy"])
    with pytest.raises(VoiceCatalogError, match="'nova' was unexpected"):
        load_voice_catalog(_write_catalog(tmp_path, entries))


def test_misspelt_field_is_rejected(tmp_path: Path) -> None:
    entries = _valid_entries()
    entries["ash"]["pitch"] = entries["ash"].pop("pitch_semitones")
    with pytest.raises(VoiceCatalogError, match="at voices/ash"):
        load_voice_catalog(_write_catalog(tmp_path, entries))


def test_invalid_yaml_and_missing_file_are_reported(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("voices: [unclosed", encoding="utf-8")
    with pytest.raises(VoiceCatalogError, match="invalid YAML"):
        load_voice_catalog(broken)
    with pytest.raises(VoiceCatalogError, match="cannot read"):
        load_voice_catalog(tmp_path / "absent.yaml")


def test_speaker_id_and_absolute_paths_are_kept(tmp_path: Path) -> None:
    entries = _valid_entries()
    entries["verse"].update(model="/opt/voices/x.onnx", speaker_id=3, pitch_semitones=-2.5)
    profile = load_voice_catalog(_write_catalog(tmp_path, entries))["verse"]
    assert (profile.model, profile.speaker_id, profile.pitch_semitones) == ("/opt/voices/x.onnx", 3, -2.5)
    assert math.isclose(profile.length_scale, 1.0)
