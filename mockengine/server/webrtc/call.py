"""One WebRTC call: a :class:`SessionLoop` whose transport is an aiortc peer connection.

What differs from a WebSocket session (reference §13), and only that, is here:

- client events arrive and server events leave as JSON text on the data channel ``oai-events``; events
  produced before the client's channel is open wait for it (``session.created`` is the first it reads);
- the microphone is the client's Opus track: decoded, resampled to PCM16 24 kHz and appended to the
  session's input buffer, the same path an ``input_audio_buffer.append`` takes (VAD, turns, transcripts),
  as PCM16 whatever ``audio.input.format`` says (the format describes an append's bytes, not the track);
- reply audio never goes on the channel: ``response.output_audio.delta`` feeds the outgoing track
  (:class:`~mockengine.rtc.media.ReplyTrack`), which plays it at real-time pace; deltas in a G.711
  format are decoded as one stream per response (:class:`ReplyDecoder`);
- ``output_audio_buffer.started`` / ``.stopped`` / ``.cleared`` tell where that playback is. When the
  user barges in (``input_audio_buffer.speech_started`` with ``interrupt_response``) or the client sends
  ``output_audio_buffer.clear``, the engine clears the track and truncates the assistant item itself at
  what it had sent, announced with ``conversation.item.truncated`` — on WebRTC the client cannot know
  what it was sent, so the service does this for it;
- the end of the call: hang-up (``POST …/hangup``), the peer connection failing or closing, or the
  peer's port refusing the engine's packets (a closed tab, a killed client: ``rtc/peer_gone.py``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import orjson
import pybase64
from aiohttp import WSMsgType, web
from aiortc import RTCDataChannel, RTCPeerConnection
from aiortc.mediastreams import MediaStreamTrack

from mockengine.audio.g711 import G711InputStream
from mockengine.protocol import errors
from mockengine.protocol import server_events as se
from mockengine.protocol.client_events import (
    ClientEvent,
    ConversationItemTruncate,
    OutputAudioBufferClear,
    ResponseCancel,
)
from mockengine.realtime.effects import Step
from mockengine.realtime.session import RealtimeSession
from mockengine.rtc.channel_flow import ChannelSender
from mockengine.rtc.closing import PC_CLOSE_WAIT_S, start_close, where_closing_waits
from mockengine.rtc.inbound import InlineDecoder, decode_inline
from mockengine.rtc.media import ReplyTrack
from mockengine.rtc.peer_gone import PeerGoneWatch
from mockengine.server.journal import SessionJournal
from mockengine.server.resources import Resources
from mockengine.server.session_loop import SessionLoop
from mockengine.server.trace import Tracer
from mockengine.server.webrtc.faults import CallFaults

RETRIEVED = "conversation.item.retrieved"

log = logging.getLogger("mockengine.webrtc")
EVENTS_CHANNEL = "oai-events"
SPEECH_STARTED = "input_audio_buffer.speech_started"
BUFFER_FULL = "input_audio_buffer_full"  # errors.input_buffer_full's code


def serve_events_channel(
    channel: RTCDataChannel,
    on_message: Callable[[str | bytes], None],
    ended: asyncio.Event,
    channel_open: asyncio.Event,
) -> ChannelSender:
    """Wire a call's ``oai-events`` data channel (voice-agent and translation calls alike): its messages
    to ``on_message``, its close to ``ended``, its opening (now, if it is open already) to
    ``channel_open``. Returns the bounded sender for it (rtc/channel_flow.py)."""
    channel.on("message", on_message)
    channel.on("close", ended.set)
    if channel.readyState == "open":
        channel_open.set()
    else:
        channel.on("open", channel_open.set)
    return ChannelSender(channel, ended)


async def channel_opened(channel_open: asyncio.Event, ended: asyncio.Event) -> None:
    """Wait until a call's ``oai-events`` channel is open or the call has ended (events produced before
    the client's channel opens wait for it: ``session.created`` is the first it reads)."""
    if channel_open.is_set():
        return
    waiting = asyncio.ensure_future(channel_open.wait())
    ending = asyncio.ensure_future(ended.wait())
    await asyncio.wait([waiting, ending], return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    ending.cancel()


class ReplyDecoder:
    """Reply audio deltas (each in its response's output format) → PCM16 24 kHz for the track, one
    continuous decoding stream per response.

    Decoded delta by delta (``to_pcm16_24k``), each 200 ms delta of a G.711 reply was resampled as a clip
    of its own: soxr's edge transient at every delta boundary, a click every 200 ms on the track. One
    :class:`G711InputStream` per response decodes the deltas as the response's G.711 stream decoded
    whole, however they are cut. The format is the response's (``response.created`` gives it: a
    ``response.create`` may override the session's), not the session's at the time the delta leaves.
    """

    def __init__(self) -> None:
        self._streams: dict[str, G711InputStream] = {}

    def open(self, response: dict[str, Any], session_format: str) -> None:
        """A response was created: its deltas will be in its ``audio.output.format``."""
        fmt = response.get("audio", {}).get("output", {}).get("format", {}).get("type") or session_format
        self._stream(response["id"], fmt)

    def decode(self, response_id: str, audio: bytes, session_format: str) -> bytes:
        """One delta's bytes → PCM16 24 kHz (3 samples per G.711 byte; PCM16 passes). ``session_format``
        stands in for a response whose ``response.created`` was not seen (a fault dropped it)."""
        stream = self._streams.get(response_id) or self._stream(response_id, session_format)
        return stream.decode(audio, stream.format_type)

    def close(self, response_id: str) -> None:
        """The response is done (``response.done``): its stream goes."""
        self._streams.pop(response_id, None)

    def close_all(self) -> None:
        """The call ended: the streams of replies it cut (hung up, closed or killed by a fault mid-reply,
        their ``response.done`` never sent) go too."""
        self._streams.clear()

    @property
    def open_response_ids(self) -> tuple[str, ...]:
        """The responses whose stream is open: created (or with a delta decoded), not yet done."""
        return tuple(self._streams)

    def _stream(self, response_id: str, format_type: str) -> G711InputStream:
        stream = self._streams[response_id] = G711InputStream(format_type)
        return stream


class CallRunner(SessionLoop):
    transport_name = "webrtc"

    def __init__(
        self,
        pc: RTCPeerConnection,
        call_id: str,
        session: RealtimeSession,
        resources: Resources,
        tracer: Tracer,
        journal: SessionJournal | None = None,
    ) -> None:
        super().__init__(session, resources, tracer, journal)
        self.pc = pc
        self.call_id = call_id
        self.channel: RTCDataChannel | None = None
        self.sender: ChannelSender | None = None  # bounded sends on the channel (rtc/channel_flow.py)
        self.channel_open = asyncio.Event()
        self.ended = asyncio.Event()
        self.track = ReplyTrack(
            self._on_playback_started, self._on_playback_stopped, dtx=resources.settings.webrtc_dtx
        )
        self.reply_decoder = ReplyDecoder()
        self.sidebands: set[web.WebSocketResponse] = set()  # attached sideband WebSockets (sideband.py)
        self.call_faults = CallFaults(self)
        self.serving: asyncio.Task[None] | None = None  # the task that serves the call (calls.py)
        self.is_media_stalled = False
        self.microphones: list[InlineDecoder] = []  # the client's audio, decoded (rtc/inbound.py)
        self._told_buffer_full = False  # input_audio_buffer_full sent, and no frame taken since
        self._pc_closing: asyncio.Future[None] | None = None  # the peer connection's close (_close_pc)
        self._wire_peer(pc)

    # -- the peer connection -----------------------------------------------------------------------

    def _wire_peer(self, pc: RTCPeerConnection) -> None:
        """aiortc's events to this call (the pion media plane's runner wires its own: pion_call.py)."""
        self.peer_gone = PeerGoneWatch(pc, self._on_peer_gone)
        pc.on("datachannel", self._on_datachannel)
        pc.on("track", self._on_track)
        pc.on("connectionstatechange", self._on_connection_state)

    def _on_datachannel(self, channel: RTCDataChannel) -> None:
        if channel.label != EVENTS_CHANNEL or self.channel is not None:
            return  # other channels carry nothing the service reads
        self.channel = channel
        self.sender = serve_events_channel(channel, self.on_channel_message, self.ended, self.channel_open)

    def _on_track(self, track: MediaStreamTrack) -> None:
        if track.kind != "audio":
            return
        for transceiver in self.pc.getTransceivers():  # decoded in the loop, no decoder thread hand-off
            if transceiver.receiver.track is track:
                self.microphones.append(decode_inline(transceiver.receiver, self._on_microphone))

    def _on_connection_state(self) -> None:
        if self.pc.connectionState == "connected":
            self.peer_gone.watch()
        elif self.pc.connectionState in ("failed", "closed"):
            self.ended.set()

    def _on_peer_gone(self) -> None:
        log.info("call %s: the peer's port refuses the call's packets (tab closed?), ending it", self.call_id)
        self.ended.set()

    def _on_microphone(self, pcm16: bytes) -> None:
        if self.is_closing or self.faults.is_dead:
            return
        if self.journal is not None:  # journaled like the WebSocket's appends (into input_audio.wav)
            input_format, output_format = self.formats()
            audio = pybase64.b64encode(pcm16).decode()
            raw = f'{{"type":"input_audio_buffer.append","audio":"{audio}"}}'
            self.journal.client_text(raw, "audio/pcm", output_format)
        # As a plain WebSocket append goes (SessionLoop.on_client_text): no event object, no dispatch.
        step = self.session.receive_audio(pcm16, None, self.now_ms(), "audio/pcm")
        # A full buffer refuses every frame (50 a second, or the quiet timer's ticks): the client sent no
        # append to answer, so it hears once, until a frame is taken again (after a commit or a clear).
        full = len(step.events) == 1 and step.events[0].get("error", {}).get("code") == BUFFER_FULL
        if full and self._told_buffer_full:
            return
        self._told_buffer_full = full
        if step.events or step.effects:
            self.apply(step)

    def on_channel_message(self, message: str | bytes) -> None:
        if self.is_closing or self.faults.is_dead:
            return
        if isinstance(message, bytes):
            # Decoded and parsed, it got invalid_json with the parser's own words ("unexpected character:
            # line 1 column 1 (char 0)"); refused as the WebSocket refuses a binary frame.
            if self.journal is not None:
                self.journal.client_binary(len(message))
            self.apply(self.session.error(errors.binary_channel_message(), self.now_ms()))
            return
        self.on_client_text(message)

    def apply(self, step: Step) -> None:
        super().apply(step)
        # The barge-in cuts the track when the session detects the speech, not once its event is out:
        # the writer may be waiting for a congested data channel (ChannelSender), and RTP is not.
        if self.is_closing or not any(event["type"] == SPEECH_STARTED for event in step.events):
            return
        if self._interrupts():
            # The replies the session cancelled for the speech: their deltas still on the way play no more.
            self.clear_output("barge-in", stopped=_cancelled(step))

    def receive(self, event: ClientEvent) -> None:
        super().receive(event)
        if isinstance(event, OutputAudioBufferClear):  # the core leaves the playing audio to us
            self.clear_output("client")

    # -- SessionLoop's transport -------------------------------------------------------------------

    async def read(self) -> None:
        await self.ended.wait()

    async def deliver(self, event: dict[str, Any], data: bytes) -> bool:
        kind = event.get("type")
        if kind == "response.output_audio.delta":
            pcm = self.reply_decoder.decode(
                event["response_id"], pybase64.b64decode(event["delta"]), self.formats()[1]
            )
            self.track.enqueue(event["response_id"], event["item_id"], pcm)
            self.call_faults.on_audio_delta(event["response_id"])
            return True
        if kind == "response.created":
            self.reply_decoder.open(event["response"], self.formats()[1])
        elif kind == "response.done":
            self.reply_decoder.close(event["response"]["id"])
            self.track.finish(event["response"]["id"])
            self.call_faults.on_response_done(event["response"]["id"])
        for sideband in list(self.sidebands):
            try:
                await sideband.send_frame(data, WSMsgType.TEXT)
            except ConnectionError:
                self.sidebands.discard(sideband)
        return await self._send_on_channel(str(kind), data, event)

    async def _send_on_channel(self, kind: str, data: bytes, event: dict[str, Any]) -> bool:
        if not self.channel_open.is_set():
            await channel_opened(self.channel_open, self.ended)
        if self.sender is None or not self.channel_open.is_set():
            return False
        limit_bytes = self._channel_limit_bytes()
        if limit_bytes and len(data) > limit_bytes and kind == RETRIEVED:
            # The JS Agents SDK retrieves every user turn once transcribed and every item it truncated: a
            # turn of ~4 s or a reply of ~3 s is too large for a browser's channel with its audio. On a
            # call the audio went over the tracks; the item goes without it (audio null), not as an error.
            data = orjson.dumps(_without_audio(event))
        if limit_bytes and len(data) > limit_bytes:
            # aiortc refuses it (ValueError), which killed the writer: nothing more went out on the
            # channel, the call open and silent. The client is told instead, and the call goes on.
            log.warning(
                "call %s: %s of %d bytes not sent (peer takes %d)", self.call_id, kind, len(data), limit_bytes
            )
            too_large = errors.event_too_large(kind, len(data), limit_bytes)
            self.apply(self.session.error(too_large, self.now_ms()))
            return True
        # aiortc sends a str as a text message (a WebRTC string, PPID 51) and bytes as a binary one:
        # the oai-events channel carries text, as OpenAI's does.
        return await self.sender.send(data.decode("utf-8"))

    def _channel_limit_bytes(self) -> int:
        """The largest message the peer's channel takes (0: no limit). Measured once the channel is
        open: until SCTP starts, aiortc holds its default (65,536)."""
        return _max_message_bytes(self.pc)

    @property
    def is_transport_closed(self) -> bool:
        return self.ended.is_set() and self.channel_open.is_set()

    async def close_transport(self, code: int, reason: str) -> None:
        log.info("call %s: closing (%d %s)", self.call_id, code, reason)
        self.ended.set()
        # bounded like the close at the end of run (the close goes on by itself past it)
        await asyncio.wait([self._close_pc()], timeout=PC_CLOSE_WAIT_S)

    def abort_transport(self) -> None:
        self.ended.set()
        self._close_pc()

    def _close_pc(self) -> asyncio.Future[None]:
        """The peer connection's close: started once, never cancelled. aiortc's ``close()`` marks the
        connection closed at its start and resolves only at its end, and a later ``close()`` waits for
        that end: a close cancelled half-way (one that took longer than ``CLOSE_WAIT_S`` on a loaded
        loop) left the runner's last ``close()`` waiting for good, the call listed and its seat taken."""
        if self._pc_closing is None:
            self._pc_closing = start_close(self.pc)
        return self._pc_closing

    async def run(self) -> None:
        try:
            await super().run()
        finally:
            self.track.stop()
            self.reply_decoder.close_all()
            self.call_faults.close()
            for sideband in list(self.sidebands):
                await sideband.close(code=1000, message=b"call ended")
            closing = self._close_pc()
            await asyncio.wait([closing], timeout=PC_CLOSE_WAIT_S)
            if not closing.done():  # the call is freed regardless; the close goes on by itself
                log.warning(
                    "call %s: its peer connection took over %.0f s to close (%s)",
                    self.call_id,
                    PC_CLOSE_WAIT_S,
                    where_closing_waits(self.pc, closing),
                )

    def stall_media(self) -> None:
        """Media stops both ways (fault): nothing more on the track, the microphone's packets are lost.

        Lost, the microphone is what a sender that stopped sending is (rtc/inbound.py): silence in real
        time, so a turn the user was speaking when the network died ends after its silence, as the
        service would hear it. (Ignored outright, such a turn stayed open for the rest of the call.)"""
        self.is_media_stalled = True
        self.track.stall()
        for microphone in self.microphones:
            microphone.drop_frames()

    # -- playback ----------------------------------------------------------------------------------

    def _interrupts(self) -> bool:
        turn_detection = self.session.view.turn_detection
        return turn_detection is None or turn_detection.interrupt_response

    def clear_output(self, why: str, stopped: tuple[str, ...] = ()) -> None:
        """Cut the reply being played: ``output_audio_buffer.cleared``, then truncate the assistant item
        at what went out on the track (``conversation.item.truncated``). ``stopped``: replies the session
        has just cancelled (barge-in), whose audio must not play either."""
        if why == "client":
            # The clear "will trigger the server to stop generating audio" (the SDK's docstring): the
            # reply playing and the one being made behind it (a tool call answered, a second
            # response.create, while the first is still heard), or the reply whose audio had not
            # reached the track yet. Not cancelled, the reply behind played right after the .cleared,
            # and a clear before the first frame did nothing at all. Cancelled as response.cancel does,
            # so the events come in barge-in's order: response.done, .cleared, conversation.item.truncated.
            stopped += self._cancel_audio_replies()
        cut = self.track.clear(stopped)
        if cut is None:
            return
        log.info(
            "call %s: output cleared (%s) at %d ms of %s", self.call_id, why, cut.audio_end_ms, cut.item_id
        )
        cleared = se.output_audio_buffer_cleared(self.session.ids.event(), response_id=cut.response_id)
        self.apply(Step(events=[cleared]))
        truncate = ConversationItemTruncate(
            item_id=cut.item_id, content_index=0, audio_end_ms=cut.audio_end_ms
        )
        self.apply(self.session.receive(truncate, self.now_ms()))

    def _cancel_audio_replies(self) -> tuple[str, ...]:
        """Cancel the replies whose audio is still being made for the track: the one playing (its
        ``response.done`` not sent yet) and the default conversation's active one. Their ids."""
        responses = self.session.responses
        playing = self.track.playing_response_id
        candidates = (playing, responses.active_id)
        ids = dict.fromkeys(i for i in candidates if i is not None and responses.is_active(i))
        for response_id in ids:
            self.apply(self.session.receive(ResponseCancel(response_id=response_id), self.now_ms()))
        return tuple(ids)

    def _on_playback_started(self, response_id: str) -> None:
        started = se.output_audio_buffer_started(self.session.ids.event(), response_id=response_id)
        self.apply(Step(events=[started]))

    def _on_playback_stopped(self, response_id: str) -> None:
        stopped = se.output_audio_buffer_stopped(self.session.ids.event(), response_id=response_id)
        self.apply(Step(events=[stopped]))


def _cancelled(step: Step) -> tuple[str, ...]:
    """The ids of the responses a step ends as cancelled (its ``response.done`` events)."""
    return tuple(
        event["response"]["id"]
        for event in step.events
        if event["type"] == "response.done" and event["response"]["status"] == "cancelled"
    )


def _without_audio(event: dict[str, Any]) -> dict[str, Any]:
    """A ``conversation.item.retrieved`` event whose item's content parts carry ``audio: null``: the item as
    a call's data channel can take it (its transcript and every other field kept)."""
    item = event["item"]
    if "content" not in item:
        return event
    content = [{**part, "audio": None} if part.get("audio") is not None else part for part in item["content"]]
    return {**event, "item": {**item, "content": content}}


def _max_message_bytes(pc: RTCPeerConnection) -> int:
    """The largest message the peer's data channel takes (its offer's ``a=max-message-size``; aiortc's
    default when the offer has none). 0: no limit."""
    return int(getattr(pc.sctp, "_remote_max_message_size", 0) or 0) if pc.sctp is not None else 0
