"""Talking WebRTC calls driven by the Go driver (``tools/pion_driver``; ``make pion-driver``), a cheaper
stand-in for :func:`mockengine.bench.webrtc_load.talking_calls` (``bench --only webrtc``'s capacity
climb when built, :mod:`mockengine.bench.webrtc_capacity`; ``tools/media_plane_bench.py --drivers pion``).

The aiortc driver takes ~5 ms of CPU per talking call-second (Python: aiortc's RTP, SRTP, SCTP and the
microphone's Opus encoding), as much as a third of what the engine itself takes, on the same two cores.
The Go driver opens the same calls (one sendrecv Opus microphone and ``oai-events``, an SDP offer posted
to ``/v1/realtime/calls``) and plays the same packets — the ``question`` clip and 1 s of silence as the
aiortc driver's microphone track (:class:`~mockengine.rtc.opus.ReplyEncoder`, no DTX) encodes them,
encoded here once — on every call in a loop, and reports each loop's onset → ``speech_started`` delay
measured as the aiortc driver measures it (:func:`mockengine.bench.webrtc_talk.talk`), each with when it
was measured (``onset_at_s``, seconds since the calls began talking; a driver built before it reported
them gives only the delays, and the level then has no per-minute figures).
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mockengine.bench.webrtc_load import READY_TIMEOUT_S, LevelResult

DRIVER = Path(__file__).resolve().parents[2] / "tools" / "pion_driver" / "mockengine-pion-driver"
SILENCE_MS = 1000  # after each clip, as the aiortc driver's talk()


def driver_path() -> Path:
    """The built driver (``MOCKENGINE_PION_DRIVER`` overrides); FileNotFoundError names the build."""
    path = Path(os.environ.get("MOCKENGINE_PION_DRIVER", DRIVER))
    if not path.is_file():
        raise FileNotFoundError(f"{path}: build it with `make pion-driver` (tools/pion_driver/build.sh)")
    return path


def clip_packets(pcm16_24k: bytes) -> list[bytes]:
    """The Opus payloads of ``pcm16_24k`` and ``SILENCE_MS`` of silence, one per 20 ms, as a call's
    microphone track sends them (:meth:`~mockengine.rtc.media.ReplyTrack.pull` without DTX: silent
    frames as the encoder's silence, the audio from a fresh encoder)."""
    from mockengine.rtc.media import FRAME_BYTES, FRAME_SAMPLES, SILENCE
    from mockengine.rtc.opus import ReplyEncoder

    audio = pcm16_24k + bytes(48 * SILENCE_MS)
    audio += bytes(-len(audio) % FRAME_BYTES)
    encoder = ReplyEncoder(FRAME_SAMPLES, cache=None)
    packets = []
    for index, offset in enumerate(range(0, len(audio), FRAME_BYTES)):
        frame = audio[offset : offset + FRAME_BYTES]
        packets.append(encoder.payload(None if frame == SILENCE else frame, index * FRAME_SAMPLES))
    encoder.close()
    return packets


def write_packets(path: Path, packets: list[bytes]) -> None:
    """The driver's packet file: repeated {u16 length little-endian, payload}."""
    path.write_bytes(b"".join(struct.pack("<H", len(p)) + p for p in packets))


def pion_talking_calls(
    engine: Any, url: str, calls: int, seconds: float, stagger: bool = False
) -> LevelResult:
    """``calls`` talking calls for ``seconds`` (whole loops of the clip) from one Go driver process;
    ``url`` is the engine's ``ws://host:port/v1/realtime`` (or any URL of its host and port), ``engine``
    (a Probe, or None) gives the engine's CPU seconds; ``stagger``: call i starts i/calls of a loop into the
    clip (the driver's ``-stagger``), so the calls' turns do not all end in one 20 ms tick. Raises
    RuntimeError when the driver fails."""
    from mockengine.bench.webrtc_talk import question_clip

    clip = question_clip()
    parts = urlsplit(url)
    base = f"http://{parts.hostname}:{parts.port}"
    with tempfile.TemporaryDirectory(prefix="pion-driver-") as scratch:
        packets_path = Path(scratch) / "question.opus-frames"
        write_packets(packets_path, clip_packets(clip.pcm))
        command = [
            str(driver_path()),
            f"-url={base}",
            f"-calls={calls}",
            f"-seconds={seconds}",
            f"-packets={packets_path}",
            f"-onset-ms={clip.speech_onset_ms}",
            *(["-stagger"] if stagger else []),
        ]
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert process.stdin is not None and process.stdout is not None
        try:
            ready = json.loads(process.stdout.readline() or "{}")
            if "ready" not in ready:
                raise RuntimeError(f"the pion driver did not open its calls (exit {process.wait(30)})")
            before, started = (engine.cpu_seconds() if engine is not None else None), time.monotonic()
            process.stdin.write("go\n")
            process.stdin.flush()
            report = json.loads(process.stdout.readline() or "{}")
            engine_wall_s = time.monotonic() - started
            after = engine.cpu_seconds() if engine is not None else None
            if "onsets_ms" not in report:
                raise RuntimeError(f"the pion driver gave no report (exit {process.wait(30)})")
            process.wait(timeout=READY_TIMEOUT_S)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    onsets_ms = [float(onset) for onset in report["onsets_ms"]]
    at_s = report.get("onset_at_s")
    return LevelResult(
        calls=calls,
        opened=int(report["opened"]),
        onsets_ms=onsets_ms,
        onset_at_s=[float(at) for at in at_s] if at_s is not None and len(at_s) == len(onsets_ms) else None,
        engine_cpu_s=None if before is None or after is None else after - before,
        driver_cpu_s=float(report["cpu_s"]),
        engine_wall_s=engine_wall_s,
        driver_wall_s=float(report["wall_s"]),
        processes=1,
    )
