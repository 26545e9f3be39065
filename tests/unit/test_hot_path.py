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
import webrtcvad

from mockengine.audio.pcm import encode_base64_audio, samples_to_ms, strict_b64decode
from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.audio.vad import (
    NATIVE_AVAILABLE,
    FrameClassifier,
    SpeechEdge,
    SpeechPause,
    SpeechState,
    SpeechTracker,
    VadFrame,
    mode_for_threshold,
    to_vad_rate,
)
from mockengine.bench.audio import bare_session
from mockengine.engines.tokens import MAX_CACHED_CHARS, TokenCounter
from mockengine.protocol import client_events, codec
from mockengine.protocol.client_events import InputAudioBufferAppend, parse_client_event
from mockengine.protocol.errors import ProtocolError
from mockengine.realtime.effects import Step, Synthesize, Transcribe
from mockengine.realtime.input_buffer import InputAudioBuffer

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
    # (Sizes of a 20 ms append, a 200 ms PCM delta, a G.711 delta, a cut one; bytes and a bytearray.)
    for size in (0, 1, 2, 3, 4, 5, 960, 1600, 9600, 9601, 9602):
        data = bytes(random.Random(size).randrange(256) for _ in range(size))
        for given in (data, bytearray(data)):
            encoded = encode_base64_audio(given)
            assert type(encoded) is str and encoded == base64.b64encode(data).decode("ascii")


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
    data = codec.dumps_utf8(value)  # what a TEXT frame carries: the same JSON, made as bytes once
    assert isinstance(data, bytes)
    assert json.loads(data) == json.loads(text)
    if "lone" not in value:  # UTF-8 cannot carry a lone surrogate: dumps_utf8 escapes it instead
        assert data == text.encode("utf-8")
    else:
        assert data == b'{"lone": "\\ud800"}'


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


class _ReferenceTracker(SpeechTracker):
    """The state machine's step as it was before its silent-frame shortcut (window scanned each frame)."""

    def _step(self, frame: VadFrame) -> SpeechEdge | None:
        if self._state is SpeechState.SPEECH:
            if frame.is_speech:
                self._mark_speech(frame.end_samples)
                return None
            self._state = SpeechState.HANGOVER
            self._clear_window()
            assert self._last_speech_end_samples is not None
            return SpeechPause(speech_end_ms=samples_to_ms(self._last_speech_end_samples))
        speech_start = self._push_window(frame)
        if speech_start is not None:
            return self._confirm(speech_start, frame)
        if self._state is not SpeechState.HANGOVER:
            has_candidate = any(f.is_speech for f in self._window)
            self._state = SpeechState.ONSET if has_candidate else SpeechState.SILENCE
        return None


@pytest.mark.parametrize("speech_share", [0.05, 0.3, 0.7])
def test_the_silent_frame_shortcut_changes_no_edge_or_state(speech_share: float) -> None:
    rng = random.Random(int(speech_share * 100))
    fast, slow = SpeechTracker(), _ReferenceTracker()
    for i in range(20_000):
        # Runs of speech and silence of random lengths, with single-frame clicks and resets.
        if i % 997 == 0:
            floor_ms = i * 20 - rng.choice((0, 40, 200))
            fast.reset(floor_ms)
            slow.reset(floor_ms)
        frame = VadFrame(i * 480, (i + 1) * 480, rng.random() < speech_share)
        edge_fast, edges_slow = fast.push_frame(frame), slow.push([frame])
        assert ([edge_fast] if edge_fast else []) == edges_slow
        assert fast.state is slow.state
        assert fast.pending_speech_start_ms == slow.pending_speech_start_ms
        assert fast.silence_ms == slow.silence_ms


def test_an_append_that_emits_nothing_moves_no_deadline() -> None:
    """The server skips re-arming its timer after such appends (SessionRunner.reader); this drives a
    session through turns, replies, barge-ins and idle timeouts and checks the premise every 20 ms."""
    session = bare_session()
    update = {
        "type": "session.update",
        "session": {
            "type": "realtime",
            "audio": {"input": {"turn_detection": {"type": "server_vad", "idle_timeout_ms": 6000}}},
        },
    }
    now_ms = 0.0

    seen: list[str] = []

    def run(step: Step) -> None:
        seen.extend(event["type"] for event in step.events)
        for effect in step.effects:
            if isinstance(effect, Transcribe):
                run(session.on_transcript(effect.key, "What is the capital of France?", now_ms))
            elif isinstance(effect, Synthesize):
                run(session.on_speech(effect.key, bytes(48_000), now_ms))

    run(session.receive(parse_client_event(json.dumps(update)), now_ms))
    voiced = synthetic_voiced_pcm16(1200)
    silence = bytes(len(voiced))
    rng = random.Random(4)
    empty_appends = 0
    for turn in range(12):
        # Speech, then silence of varying length: replies finish, are barged into, or time out idle.
        pcm = voiced + silence * rng.choice((1, 3, 8))
        for i in range(0, len(pcm), 960):
            message = json.dumps(
                {"type": "input_audio_buffer.append", "audio": encode_base64_audio(pcm[i : i + 960])}
            )
            before = session.next_deadline_ms()
            step = session.receive(parse_client_event(message), now_ms)
            if not step.events and not step.effects:
                empty_appends += 1
                assert session.next_deadline_ms() == before, (turn, i)
            run(step)
            now_ms += 20.0
            run(session.tick(now_ms))
    assert empty_appends > 1000
    assert seen.count("response.done") >= 12 and "input_audio_buffer.timeout_triggered" in seen


def test_keep_last_ms_is_drop_before_ms_of_the_end() -> None:
    rng = random.Random(1)
    for _ in range(2000):
        general, fast = InputAudioBuffer(), InputAudioBuffer()
        for _ in range(rng.randrange(1, 30)):
            op = rng.random()
            if op < 0.7:  # appends of whole frames, odd bytes and odd sample counts
                chunk = bytes(rng.choice((960, 961, 1, 7, 4800, 0)))
                general.append(chunk)
                fast.append(chunk)
            elif op < 0.8:
                general.clear()
                fast.clear()
            elif op < 0.9:
                back_ms = rng.randrange(0, 400)
                general.take_until_ms(general.total_ms - back_ms)
                fast.take_until_ms(fast.total_ms - back_ms)
            else:
                kept_ms = rng.choice((0, 5, 100, 1000))
                general.drop_before_ms(general.total_ms - kept_ms)
                fast.keep_last_ms(kept_ms)
            assert (general.start_ms, general.total_samples, general.slice_ms(0, 10**9)) == (
                fast.start_ms,
                fast.total_samples,
                fast.slice_ms(0, 10**9),
            )


@pytest.mark.parametrize("native", [False, True] if NATIVE_AVAILABLE else [False])
@pytest.mark.parametrize("threshold", [0.0, 0.5, 0.9])
def test_the_quiet_frame_bound_never_changes_a_decision(threshold: float, native: bool) -> None:
    """Frames whose energy bound falls below the gate skip the 16 kHz conversion; against the full
    computation (integer formula, exact energy, webrtcvad) on frames at every level around the gate.
    The C frame path (``native``), which has no bound, against the same reference."""
    rng = np.random.default_rng(11)
    gate_rms = 32768 * 10 ** (-(60.0 - 20.0 * threshold) / 20)
    frames = []
    for i in range(3000):
        scale = gate_rms * 10 ** rng.uniform(-1.5, 0.5)  # from 30 dB under the gate to 10 dB over
        kind = i % 4
        if kind == 0:
            x = rng.normal(0, scale, 480)
        elif kind == 1:  # all the energy on the samples the conversion keeps as they are
            x = np.zeros(480)
            x[0::3] = rng.choice((-1, 1), 160) * scale * np.sqrt(3)
        elif kind == 2:  # negative halves: where floor and truncation differ
            x = -np.abs(rng.normal(0, scale, 480)) - 0.5
        else:  # a constant offset
            x = np.full(480, scale * rng.choice((-1.0, 1.0)))
        frames.append(np.clip(np.round(x), -32768, 32767).astype("<i2"))
    classifier = FrameClassifier(threshold, native=native)
    vad = webrtcvad.Vad(mode_for_threshold(threshold))  # webrtcvad adapts: one instance per side
    min_sum_square = classifier._min_sum_square
    near_gate = 0
    for samples in frames:
        samples_16k = to_vad_rate(samples)
        energy = int(np.sum(samples_16k.astype(np.int64) ** 2))
        near_gate += abs(energy / min_sum_square - 1) < 0.2
        expected = energy >= min_sum_square and vad.is_speech(samples_16k.tobytes(), 16_000)
        assert classifier.push(samples.tobytes())[0].is_speech == expected
    assert near_gate > 100
