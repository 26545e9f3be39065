"""``is_narrowband``: telephone audio (nothing above 4 kHz) is told from wideband speech by its spectrum,
so whisper decodes a phone line's turns with beams and every other turn greedily."""

from __future__ import annotations

import numpy as np
import pytest

from mockengine.audio.g711 import FORMAT_PCMA, FORMAT_PCMU
from mockengine.engines.stt import WhisperTranscriber, is_narrowband, pcm16_24k_to_float_16k
from mockengine.server.settings_checks import value_problem
from mockengine.settings import Settings, from_env
from tests.phone_bridge import line_audio
from tests.speech import DATA, load_wav_24k


@pytest.mark.parametrize("format_type", [FORMAT_PCMU, FORMAT_PCMA])
def test_speech_from_a_g711_line_is_narrowband(format_type):
    question = load_wav_24k(DATA / "question.wav")
    assert is_narrowband(pcm16_24k_to_float_16k(line_audio(question, format_type)))


def test_wideband_speech_is_not():
    for path in [DATA / "question.wav", *sorted((DATA / "utterances").glob("*.wav"))[:10]]:
        assert not is_narrowband(pcm16_24k_to_float_16k(load_wav_24k(path))), path.name


def test_silence_and_noise_are_not():
    assert not is_narrowband(np.zeros(16_000, dtype=np.float32))
    noise = np.random.default_rng(0).standard_normal(16_000).astype(np.float32) * 0.01
    assert not is_narrowband(noise)


def test_the_beam_width_is_a_setting_of_at_least_one():
    assert Settings().narrowband_beam_size == 5
    assert from_env(environ={"MOCKENGINE_NARROWBAND_BEAM_SIZE": "1"}).narrowband_beam_size == 1
    assert "--narrowband-beam-size must be at least 1, not 0" in str(
        value_problem(Settings(narrowband_beam_size=0))
    )
    with pytest.raises(ValueError, match="at least 1"):
        WhisperTranscriber(narrowband_beam_size=0)  # refused before any model is loaded
