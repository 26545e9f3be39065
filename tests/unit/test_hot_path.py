"""The audio path's fast tools give exactly what the standard library gives (issue 8).

orjson, pybase64, the float form of the 24 → 16 kHz step and the token-count cache are used only
because they are faster; each test here compares one against the slow reference on inputs chosen to
hit the edges where the two could differ.
"""

from __future__ import annotations

import base64
import binascii
import json
import random

import numpy as np
import pytest

from mockengine.audio.pcm import encode_base64_audio, strict_b64decode
from mockengine.audio.vad import FrameClassifier, to_vad_rate
from mockengine.engines.tokens import MAX_CACHED_CHARS, TokenCounter
from mockengine.protocol import client_events, codec
from mockengine.protocol.client_events import InputAudioBufferAppend, parse_client_event
from mockengine.protocol.errors import ProtocolError

AUDIO = base64.b64encode(bytes(range(256)) * 4).decode()


def _reference_b64(text: str) -> tuple[str, bytes | None]:
    try:
        return "ok", base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return "error", None


def _fast_b64(text: str) -> tuple[str, bytes | None]:
    try:
        return "ok", strict_b64decode(text)
    except (binascii.Error, ValueError):
        return "error", None


def test_strict_b64decode_agrees_with_the_standard_library_on_valid_and_broken_text() -> None:
    rng = random.Random(7)
    alphabet = "AB/+=\n -_é\x00z9"
    corpus = ["", "AA==", "AAA=", "AAAA====", "AAAA=", "A===", "=AAA", "AA=A", "AA==AA==", AUDIO, AUDIO + "="]
    corpus += [
        "".join(rng.choice(alphabet) for _ in range(rng.choice((1, 3, 4, 5, 8, 12)))) for _ in range(20_000)
    ]
    for text in corpus:
        assert _fast_b64(text) == _reference_b64(text), text


def test_encode_base64_audio_is_the_standard_encoding() -> None:
    for size in (0, 1, 2, 3, 960, 9601):
        data = bytes(random.Random(size).randrange(256) for _ in range(size))
        assert encode_base64_audio(data) == base64.b64encode(data).decode()


def _parse_slowly(raw: str, monkeypatch: pytest.MonkeyPatch) -> object:
    with monkeypatch.context() as patch:
        patch.setattr(client_events, "_plain_append", lambda _raw: None)
        return _outcome(raw)


def _outcome(raw: str) -> object:
    try:
        return parse_client_event(raw)
    except ProtocolError as exc:
        return ("error", exc.payload(), exc.event_id)


APPEND_FRAMES = [
    json.dumps({"type": "input_audio_buffer.append", "audio": AUDIO}),
    json.dumps({"type": "input_audio_buffer.append", "audio": AUDIO, "event_id": "evt_1"}),
    json.dumps({"event_id": "é", "audio": AUDIO, "type": "session.input_audio_buffer.append"}),
    json.dumps({"type": "input_audio_buffer.append", "audio": ""}),
    json.dumps({"type": "input_audio_buffer.append", "audio": "not base64!"}),
    json.dumps({"type": "input_audio_buffer.append", "audio": "AAAA===="}),
    json.dumps({"type": "input_audio_buffer.append", "audio": 12}),
    json.dumps({"type": "input_audio_buffer.append", "audio": AUDIO, "event_id": 12}),
    json.dumps({"type": "input_audio_buffer.append", "audio": AUDIO, "extra": {"deep": [1]}}),
    json.dumps({"type": "input_audio_buffer.append"}),
    '{"type": "input_audio_buffer.append", "audio": "AAAA", "event_id": "\\ud800"}',
    '{"type": "input_audio_buffer.append", "audio": "AAAA", "n": 123456789012345678901234567890}',
    '{"type": "input_audio_buffer.append", "audio": "AAAA", "n": NaN}',
    '{"type": "input_audio_buffer.append", "audio": "AAAA",}',
    '{"type": "input_audio_buffer.append", "audio": "AAAA", "type": "input_audio_buffer.commit"}',
    '{"audio": "AAAA", "type": "input_audio_buffer.append", "audio": "AAA="}',
    '["input_audio_buffer.append"]',
]


@pytest.mark.parametrize("raw", APPEND_FRAMES)
def test_the_plain_append_path_answers_as_the_general_parser(
    raw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _outcome(raw) == _parse_slowly(raw, monkeypatch)


def test_a_plain_append_takes_the_fast_path() -> None:
    assert client_events._plain_append(APPEND_FRAMES[1]) is not None
    event = parse_client_event(APPEND_FRAMES[1])
    assert isinstance(event, InputAudioBufferAppend)
    assert event.audio == bytes(range(256)) * 4 and event.event_id == "evt_1"


@pytest.mark.parametrize(
    "value",
    [
        {"type": "response.output_audio.delta", "delta": AUDIO, "output_index": 0},
        {"text": "naïve — 日本語 😀", "n": -0.5, "ok": True, "none": None, "list": [1, 2.5, "x"]},
        {"big": 2**70, "text": "beyond 64 bits"},
        {"lone": "\ud800"},
        {"nested": {"a": [{"b": 1e300}]}},
    ],
)
def test_codec_dumps_means_what_json_dumps_means(value: dict[str, object]) -> None:
    text = codec.dumps(value)
    assert isinstance(text, str)
    assert json.loads(text) == json.loads(json.dumps(value, ensure_ascii=False))


def test_the_float_vad_rate_step_is_the_integer_formula_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    blocks = [
        rng.integers(-32768, 32768, 480 * 20).astype("<i2"),
        np.full(480, 32767, dtype="<i2"),
        np.full(480, -32768, dtype="<i2"),
        np.tile(np.array([-32768, -32768, -32767], dtype="<i2"), 160),
        np.tile(np.array([5, -1, 0], dtype="<i2"), 160),
    ]
    for samples in blocks:
        groups = samples.astype(np.int32).reshape(-1, 3)
        expected = np.empty((len(groups), 2), dtype=np.int32)
        expected[:, 0] = groups[:, 0]
        expected[:, 1] = (groups[:, 1] + groups[:, 2]) >> 1  # floor of the mean
        assert to_vad_rate(samples).tolist() == expected.reshape(-1).tolist()


def test_frames_do_not_depend_on_how_the_audio_was_cut() -> None:
    rng = np.random.default_rng(5)
    # Noise bursts between silences, so both the energy gate and webrtcvad decide.
    pcm = b"".join(
        (rng.normal(0, 6000, 4800).clip(-32768, 32767).astype("<i2").tobytes() if i % 2 else bytes(9600))
        for i in range(10)
    )

    def frames(chunk_bytes: int) -> list[object]:
        classifier = FrameClassifier()
        return [f for i in range(0, len(pcm), chunk_bytes) for f in classifier.push(pcm[i : i + chunk_bytes])]

    whole = frames(len(pcm))
    assert frames(960) == whole  # 20 ms appends: classified straight from the client's bytes
    assert frames(333) == whole  # odd cuts: through the pending buffer
    assert any(f.is_speech for f in whole) and not all(f.is_speech for f in whole)


def test_token_counts_are_the_same_from_the_cache() -> None:
    counter = TokenCounter(None)
    texts = ["Hello there, how are you?", "", "x" * (MAX_CACHED_CHARS + 5), "Hello there, how are you?"]
    first = [counter.count(t) for t in texts]
    again = [counter.count(t) for t in texts]
    assert first == again == [counter._count(t) if t else 0 for t in texts]
    assert first[0] == 7 and first[1] == 0
