"""whisper tiny.en on a telephone line: narrowband audio is decoded with beams (``narrowband_beam_size``),
wideband audio greedily as before; both deterministic."""

from __future__ import annotations

import pytest

from mockengine.engines import WhisperTranscriber
from mockengine.engines.stt import pcm16_24k_to_float_16k
from tests.phone_bridge import line_audio
from tests.speech import DATA, load_wav_24k

pytestmark = pytest.mark.models

CLIP = DATA / "utterances" / "07_that_sounds_like_a_great.wav"  # "That sounds like a great plan."


@pytest.fixture(scope="module")
def transcriber() -> WhisperTranscriber:
    return WhisperTranscriber()


def test_a_phone_line_turn_is_heard_with_beams(transcriber):
    """Greedy, tiny.en heard the 8 kHz µ-law clip as "Now sounds like a great plan." (the "th" of "that"
    lives above 4 kHz); five beams hear "That sounds like a great plan."."""
    line = line_audio(load_wav_24k(CLIP), "audio/pcmu")
    greedy, _ = transcriber._transcribe_short(pcm16_24k_to_float_16k(line))
    assert greedy == "Now sounds like a great plan."  # what a phone caller got before
    heard = transcriber.transcribe(line)
    assert heard.text == "That sounds like a great plan."
    assert heard.words and heard.words[0].word == "That"
    assert transcriber.transcribe(line) == heard  # same audio, same transcript and word timings


def test_wideband_stays_greedy(transcriber):
    pcm = load_wav_24k(CLIP)
    greedy, words = transcriber._transcribe_short(pcm16_24k_to_float_16k(pcm))
    heard = transcriber.transcribe(pcm)
    assert (heard.text, heard.words) == (greedy, words)


def test_beam_width_one_is_the_old_greedy_decode():
    line = line_audio(load_wav_24k(CLIP), "audio/pcmu")
    assert WhisperTranscriber(narrowband_beam_size=1).transcribe(line).text == "Now sounds like a great plan."
