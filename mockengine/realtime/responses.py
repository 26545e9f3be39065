"""The session's responses (``response.*``): at most one active in the default conversation, any number
out of band (``conversation: "none"``) beside it (reference §6).

A response waits ("thinking") until every user audio item in its context has a transcript, then asks
the brain once and streams the reply (``streaming.ResponseStreamer``); it is forgotten once done. The
server_vad idle timer (``idle_timeout_ms``, reference §3.8) is armed here, when the default
conversation's reply has been heard; ``turns.UserTurns`` fires it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import deque
from collections.abc import Set as AbstractSet
from typing import Any

from mockengine.brain.arguments import unbuildable_reason
from mockengine.brain.model import Brain, Reply, ReplyRequest, ToolCall
from mockengine.brain.window import HistoryWindow
from mockengine.engines.stt import WordTiming
from mockengine.protocol import client_events as ce
from mockengine.protocol import errors
from mockengine.protocol import server_events as se
from mockengine.protocol.session_config import ServerVad
from mockengine.realtime.context import SessionContext
from mockengine.realtime.context_window import CONTEXT_LENGTH_EXCEEDED, ContextTooLong, FitLedger, Fitted, fit
from mockengine.realtime.conversation import Item
from mockengine.realtime.effects import CountTexts, ListMcpTools, McpCallKey, McpListKey, Step, Think, Trace
from mockengine.realtime.items import COUNT_ASIDE_CHARS, UNINTELLIGIBLE_CODE, ConversationItems
from mockengine.realtime.mcp import McpRoute, McpServers, approved_call
from mockengine.realtime.replies import build_reply_request, response_params, without_pending_repeats
from mockengine.realtime.response import Response, ResponseParams
from mockengine.realtime.streaming import ResponseStreamer
from mockengine.realtime.usage import TokenCounting

Events = list[dict[str, Any]]

log = logging.getLogger(__name__)


class Responses:
    def __init__(
        self, ctx: SessionContext, items: ConversationItems, *, brain: Brain, tokens: TokenCounting
    ) -> None:
        self.ctx = ctx
        self.items = items
        self.brain = brain
        self.tokens = tokens
        self._ledger = FitLedger()
        self.active_id: str | None = None  # the default conversation's active response
        self.count = 0  # replies asked of the brain (its response_index)
        self.idle_deadline_ms: float | None = None  # server_vad idle_timeout_ms, armed after a reply
        self._audio_was_sent = False  # by finished responses; see has_assistant_audio
        # The shell runs the brain off its event loop (server sessions): replies come back as on_reply.
        self.think_aside = False
        self._asked: dict[str, tuple[Item, ...]] = {}  # responses asked aside → the context they read
        self._counting: set[str] = set()  # responses whose context's long texts are counted aside
        # per response: the long items counted aside for it (by id(); the items themselves kept alive)
        self._counted_aside: dict[str, dict[int, Item]] = {}
        # Hashes of the long instructions already counted aside (a few: a session alternates between
        # its own and a response's); the counter keeps their counts by digest.
        self._instructions_counted: deque[int] = deque(maxlen=8)
        self.mcp = McpServers(ctx.ids)  # the session's hosted MCP servers and their listed tools
        self._routes: dict[str, dict[str, McpRoute]] = {}  # per response: its tools that are MCP tools
        self._window = HistoryWindow()  # what the brain reads of the conversation's older items
        # per response: the input tokens its fitted context bills (text, audio, image), _think to _replied
        self._input_usage: dict[str, tuple[int, int, int]] = {}

    # -- client events --------------------------------------------------------------------------------

    def on_response_create(self, event: ce.ResponseCreate, now_ms: float) -> Step:
        if self.ctx.view.is_transcription:
            raise errors.not_in_transcription_session(event.type)
        out_of_band = event.response.get("conversation") == "none"
        if not out_of_band and self.active_id is not None:
            raise errors.active_response(self.active_id)
        input_items = None
        transcribe: list[Item] = []
        if "input" in event.response:
            # the input is the response's own context: an output may answer a call made earlier in it
            # (its calls kept as they are read: gathered again from every earlier entry for each one,
            # 50,000 entries held the event loop, every session's, for minutes)
            items: list[Item] = []
            calls: set[str] = set()
            for index, entry in enumerate(event.response["input"]):
                item = self._input_item(entry, transcribe, f"response.input[{index}]", calls)
                items.append(item)
                if item.type == "function_call" and item.call_id:
                    calls.add(item.call_id)
            input_items = tuple(items)
        params = response_params(self.ctx.view, event.response, input_items)
        step = self.list_mcp_tools(params.tools) if "tools" in event.response else Step()
        for item in transcribe:  # inline audio: the response waits for its words like for a turn's
            item.in_conversation = False
            step.effects.append(self.items.transcribe(item, self.ctx.await_transcript(item)))
        return step.extend(self.start(params, now_ms))

    def _input_item(
        self, entry: dict[str, Any], transcribe: list[Item], path: str, calls_before: AbstractSet[str]
    ) -> Item:
        """``path``: the entry's JSON path (``response.input[i]``), which every error about it names."""
        if entry.get("type") == "item_reference":
            item = self.ctx.conversation.get(entry["id"])
            if item is None:
                raise errors.item_not_found(
                    "referencing", "invalid_item_reference", entry["id"], f"{path}.id"
                )
            return item
        try:
            item, needs_transcript = self.items.from_wire(entry, calls_before)
        except errors.ProtocolError as exc:
            # The conversation's checks name conversation.item.create's paths (item.call_id,
            # item.content[0].image_url); here the item is this entry of the input.
            if exc.param is not None and exc.param.startswith("item."):
                raise dataclasses.replace(exc, param=path + exc.param.removeprefix("item")) from None
            raise
        if needs_transcript:
            transcribe.append(item)
        return item

    def is_active(self, response_id: str) -> bool:
        """Whether ``response_id`` is still being generated (``response.done`` not sent)."""
        streamer = self.ctx.streamers.get(response_id)
        return streamer is not None and streamer.response.is_active

    def on_response_cancel(self, event: ce.ResponseCancel, now_ms: float) -> Step:
        response_id = event.response_id or self.active_id
        streamer = self.ctx.streamers.get(response_id) if response_id else None
        if streamer is None or not streamer.response.is_active:
            raise errors.cancel_not_active()
        step = Step(events=streamer.cancel("client_cancelled"))
        self._forget_if_done(streamer, now_ms)
        return step

    # -- lifecycle ------------------------------------------------------------------------------------

    def start(self, params: ResponseParams, now_ms: float) -> Step:
        """``response.created``, then the reply as soon as its context's transcripts are in."""
        self.idle_deadline_ms = None
        out_of_band = params.conversation == "none"
        response = Response(
            self.ctx.ids.response(),
            params,
            None if out_of_band else self.ctx.conversation.id,
            now_ms,
            self.ctx.options.pacing,
        )
        streamer = ResponseStreamer(response, self.ctx.ids, self._place_output, self.tokens)
        self.ctx.streamers[response.id] = streamer
        if not out_of_band:
            self.active_id = response.id
        evicted = [] if out_of_band else self.items.make_room(0)
        step = Step(events=[*evicted, se.response_created(self.ctx.ids.event(), response=response.wire())])
        return step.extend(self._think(streamer, now_ms))

    def start_default(self, now_ms: float) -> Step:
        """A response with the session's settings (a turn's end, an idle timeout)."""
        return self.start(response_params(self.ctx.view, {}), now_ms)

    def item_transcribed(
        self,
        item_id: str,
        text: str,
        now_ms: float,
        announce: bool = True,
        words: tuple[WordTiming, ...] = (),
        language: str | None = None,
    ) -> Step:
        """A user item's transcript landed (``words``: whisper's word timings of it, when known;
        ``language``: whisper's, ISO 639-1): record it (announce it, when asked for) and let the responses
        waiting for words go on."""
        step = Step(events=self.items.transcribed(item_id, text, announce, words, language))
        return step.extend(self.go_on_waiting(now_ms))

    def go_on_waiting(self, now_ms: float) -> Step:
        """Ask again for the responses still waiting (for a transcript, an MCP listing): what they waited
        for may have come, or left the conversation (an item dropped to make room, whose transcript is
        then no longer awaited nor run)."""
        step = Step()
        for streamer in list(self.ctx.streamers.values()):
            if streamer.is_thinking:
                step.extend(self._think(streamer, now_ms))
        return step

    def item_transcription_failed(
        self, item_id: str, message: str, now_ms: float, code: str = UNINTELLIGIBLE_CODE
    ) -> Step:
        """A user item could not be transcribed: ``…input_audio_transcription.failed`` (when asked for;
        ``code``: its error's), and the responses waiting for it go on without its words."""
        step = Step(events=self.items.transcription_failed(item_id, message, code))
        return step.extend(self.item_transcribed(item_id, "", now_ms, announce=False))

    def interrupt(self, now_ms: float) -> Events:
        """The user started speaking over the active response (``interrupt_response``): cancel it."""
        if self.active_id is None:
            return []
        streamer = self.ctx.streamers[self.active_id]
        events = streamer.cancel("turn_detected")
        self._forget_if_done(streamer, now_ms)
        return events

    def fail(self, response_id: str, error: dict[str, Any], now_ms: float) -> Step:
        """End an active response now with ``status: "failed"`` (``error`` as ``status_details.error``);
        a response already finished is left alone."""
        streamer = self.ctx.streamers.get(response_id)
        if streamer is None or not streamer.response.is_active:
            return Step()
        step = Step(events=streamer.fail(error.get("code") or "server_error", str(error.get("message", ""))))
        self._forget_if_done(streamer, now_ms)
        return step

    def advance(self, now_ms: float) -> Step:
        """Release each response's events that are due (paced audio, then its end, and the MCP calls
        reached)."""
        step = Step()
        for streamer in list(self.ctx.streamers.values()):
            step.events += streamer.advance(now_ms)
            step.effects += streamer.take_effects()
            self._forget_if_done(streamer, now_ms)
        return step

    # -- hosted MCP tools -----------------------------------------------------------------------------

    def list_mcp_tools(self, tools: Any) -> Step:
        """List the MCP servers among ``tools`` (the session's, or one response's) not listed yet: their
        ``mcp_list_tools`` items and ``ListMcpTools`` effects (``realtime.mcp``)."""
        events, servers = self.mcp.sync(tools, self.ctx.conversation)
        if servers:  # the new items count against max_conversation_items like any other
            events += self.items.make_room(0, items_needed=0)
        effects = [ListMcpTools(McpListKey(self.mcp.item_id_of(server)), server) for server in servers]
        return Step(events=events, effects=list(effects))

    def mcp_listed(self, item_id: str, tools: list[dict[str, Any]] | None, now_ms: float) -> Step:
        """An MCP server's tools were listed (None: it could not be): the ``mcp_list_tools`` item's end,
        and the responses that waited for the listing go on."""
        step = Step(events=self.mcp.listed(item_id, tools))
        names = None if tools is None else [tool.get("name") for tool in tools]
        step.effects.append(Trace("mcp_list_tools", {"item_id": item_id, "tools": names}))
        return step.extend(self.go_on_waiting(now_ms))

    def approval_answered(self, item: Item, now_ms: float) -> Step:
        """The client created an ``mcp_approval_response``: the response waiting on its request goes on
        (approved: the call runs in it; refused: it ends). None waiting: see ``_answered_after_cut``."""
        request_id = item.approval_request_id or ""
        waiting = [s for s in self.ctx.streamers.values() if s.awaited_approval_id == request_id]
        if not waiting:
            return self._answered_after_cut(item, now_ms)
        step = Step()
        for streamer in waiting:
            step.extend(self._go_on(streamer, request_id, bool(item.approve), now_ms))
        return step

    def _go_on(
        self, streamer: ResponseStreamer, request_id: str, approve: bool, now_ms: float, answered_id: str = ""
    ) -> Step:
        params = streamer.response.params
        tools = params.tools if params.own_tools else self.ctx.view.tools
        labels = {tool.get("server_label") for tool in tools if tool.get("type") == "mcp"}
        # A server the session no longer declares (session.update while the request waited) is
        # not called: the approved call fails (streaming._start_mcp_call).
        streamer.keep_servers(labels)
        step = Step(events=streamer.on_approval(request_id, approve, now_ms, answered_id or None))
        step.effects += streamer.take_effects()
        self._forget_if_done(streamer, now_ms)
        return step

    def _answered_after_cut(self, item: Item, now_ms: float) -> Step:
        """An answer to a request whose response was cut (cancel, barge-in) while it waited: the request
        stayed in the conversation, and the answer is honoured as if that response still waited
        (docs/tools.md, "Hosted MCP tools"; the live service's behaviour here is not public):

        * a response now waits on a request for the same call (server, tool, arguments; asked again,
          e.g. by server_vad's reply to the barge-in): it takes this answer as its own;
        * else, approved and no response active: a response starts now and runs the call (the brain is
          not asked again; trace rule ``mcp_approved``), as the cut one would have;
        * else (refused, or another response under way): the next response reads the answer (a refusal
          is declined; an approval runs the call there, ``_approved_reply``)."""
        request = self.ctx.conversation.get(item.approval_request_id or "")
        if request is None:
            return Step()
        call = (request.server_label, request.name, request.arguments)
        for streamer in list(self.ctx.streamers.values()):
            asked = streamer.awaited_request
            if asked is not None and (asked.server_label, asked.name, asked.arguments) == call:
                return self._go_on(streamer, asked.id, bool(item.approve), now_ms, answered_id=request.id)
        session_labels = {t.get("server_label") for t in self.ctx.view.tools if t.get("type") == "mcp"}
        if not item.approve or self.active_id is not None or request.server_label not in session_labels:
            return Step()
        return self.start_default(now_ms)

    def on_mcp_result(
        self, key: McpCallKey, output: str | None, error: dict[str, Any] | None, now_ms: float
    ) -> Step:
        """An MCP server answered a call (``output``) or failed it (``error``, the item's error object)."""
        streamer = self.ctx.streamers.get(key.response_id)
        if streamer is None:
            return Step()  # the response ended meanwhile (its call was closed then)
        step = Step(events=streamer.on_mcp_result(key.item_id, output, error, now_ms))
        step.effects += streamer.take_effects()
        trace = {"response_id": key.response_id, "item_id": key.item_id, "error": error}
        step.effects.append(Trace("mcp_call", trace))
        self._forget_if_done(streamer, now_ms)
        return step

    def next_deadline_ms(self) -> float | None:
        deadlines = [d for s in self.ctx.streamers.values() if (d := s.next_deadline_ms()) is not None]
        return min(deadlines) if deadlines else None

    def on_speech(self, response_id: str, index: int, pcm16: bytes) -> bool:
        """A sentence's speech is ready; False when its response already ended."""
        streamer = self.ctx.streamers.get(response_id)
        if streamer is None:
            return False
        streamer.on_speech(index, pcm16)
        return True

    def on_speech_failed(self, response_id: str, message: str, now_ms: float) -> Step:
        streamer = self.ctx.streamers.get(response_id)
        if streamer is None:
            return Step()
        step = Step(events=streamer.fail("speech_synthesis_failed", message))
        self._forget_if_done(streamer, now_ms)
        return step

    @property
    def has_assistant_audio(self) -> bool:
        """Any assistant audio sent in this session (the voice is fixed from then on, reference §4)."""
        return self._audio_was_sent or any(s.audio_sent_bytes for s in self.ctx.streamers.values())

    # -- the brain ------------------------------------------------------------------------------------

    def _think(self, streamer: ResponseStreamer, now_ms: float) -> Step:
        """Ask the brain once every user audio item in the context has its transcript: inline, or (when
        ``think_aside``) through a ``Think`` effect whose outcome comes back to ``on_reply``."""
        r = streamer.response
        if r.id in self._asked or r.id in self._counting:
            return Step()  # asked aside already: the reply (or the count it waits for) is on its way
        context = r.params.input_items if r.params.input_items is not None else tuple(self.ctx.conversation)
        if self.ctx.is_awaiting_any(context):
            return Step()
        if self.think_aside:
            texts = self._uncounted_long_texts(r.id, r.params.input_items) if self.ctx.long_texts else ()
            texts += self._uncounted_instructions(r.params.instructions)
            if texts:
                self._counting.add(r.id)
                return Step(effects=[CountTexts(r.id, texts)])
        self._counted_aside.pop(r.id, None)
        try:
            fitted = self._fitted(r.params.instructions, context, remember=r.params.input_items is None)
        except ContextTooLong as exc:
            step = Step(events=streamer.fail(CONTEXT_LENGTH_EXCEEDED, str(exc), "invalid_request_error"))
            self._forget_if_done(streamer, now_ms)
            return step
        context = fitted.items
        self._input_usage[r.id] = fitted.usage  # billed when the reply comes (_replied): counted once
        if self.mcp.is_listing(r.params.tools):
            return Step()  # its MCP tools are still being listed (mcp_listed asks again)
        approved = self._approved_reply(r.id, r.params.tools, context)
        if approved is not None:
            return self._replied(streamer, context, approved, now_ms)
        mcp_tools, self._routes[r.id] = self.mcp.declared(r.params.tools)
        window = self._window if r.params.input_items is None else None  # a response's own input: afresh
        request = build_reply_request(r.params, context, self.count, tuple(mcp_tools), window)
        self.count += 1
        if self.think_aside:
            self._asked[r.id] = context
            # Only the instructions: fitting the context (above) counted every item's text and keeps the
            # counts with the items, so looking each up again in the lane grew with the conversation.
            return Step(effects=[Think(r.id, request, self.brain, (r.params.instructions,))])
        return self._replied(streamer, context, ask(self.brain, request), now_ms)

    def _uncounted_long_texts(
        self, response_id: str, input_items: tuple[Item, ...] | None
    ) -> tuple[str, ...]:
        """The texts of the long client items (``ctx.long_texts``) in a response's context that its fit
        would count on the event loop: held by the conversation (``input_items`` None) or among the
        response's own input, with no counts kept, not yet counted aside for this response. Items
        counted, or held by neither, leave the list (a response's own input is read by that response)."""
        own = {id(item) for item in input_items} if input_items is not None else set()
        done = self._counted_aside.setdefault(response_id, {})
        texts, kept = [], []
        for item in self.ctx.long_texts:
            held = self.ctx.conversation.holds(item)
            if item.token_counts(self.tokens) is not None or not (held or id(item) in own):
                continue
            kept.append(item)
            in_context = id(item) in own if input_items is not None else held
            if in_context and id(item) not in done:
                done[id(item)] = item
                texts.append(item.text())
        self.ctx.long_texts[:] = kept
        return tuple(texts)

    def _uncounted_instructions(self, instructions: str) -> tuple[str, ...]:
        """``(instructions,)`` when they are longer than the counter caches by text and were not counted
        aside yet (the fit would count them on the event loop: a pasted 1 MB prompt, about a second);
        else ``()``."""
        if len(instructions) <= COUNT_ASIDE_CHARS or hash(instructions) in self._instructions_counted:
            return ()
        self._instructions_counted.append(hash(instructions))
        return (instructions,)

    def on_counted(self, response_id: str, now_ms: float) -> Step:
        """The long texts of a response's context were counted (``CountTexts``): it goes on thinking,
        unless it ended meanwhile."""
        self._counting.discard(response_id)
        streamer = self.ctx.streamers.get(response_id)
        if streamer is None or not streamer.response.is_active or not streamer.is_thinking:
            self._counted_aside.pop(response_id, None)
            return Step()
        return self._think(streamer, now_ms)

    def _fitted(self, instructions: str, context: tuple[Item, ...], remember: bool) -> Fitted:
        """``context`` within the model's input limit under the session's ``truncation``
        (``context_window.fit``); items dropped from the conversation's context are remembered, so later
        responses leave them out too. Raises ContextTooLong."""
        truncation = self.ctx.config.get("truncation", "auto")
        out = self.ctx.out_of_context if remember else ()
        # remember: ``context`` is the whole conversation, whose counts the ledger keeps between responses
        ledger = (self._ledger, self.ctx.conversation) if remember else None
        fitted = fit(truncation, instructions, context, self.tokens, out, ledger)
        if remember:
            self.ctx.out_of_context.update(fitted.dropped)
        return fitted

    def _approved_reply(
        self, response_id: str, tools: tuple[dict[str, Any], ...], context: tuple[Item, ...]
    ) -> Reply | None:
        """The call of an MCP approval request the user approved and no call ran for, when the response
        still has its server: it runs as the brain asked for it then (the brain is not asked again)."""
        approved = approved_call(context)
        labels = {tool.get("server_label") for tool in tools if tool.get("type") == "mcp"}
        if approved is None or approved.server_label not in labels:
            return None
        label, name = approved.server_label or "", approved.name or ""
        if self.mcp.server(label) is None:
            return None
        self._routes[response_id] = {
            name: McpRoute(label, needs_approval=False, approval_request_id=approved.id)
        }
        return Reply(None, (ToolCall(name, approved.arguments or "{}"),), rule="mcp_approved")

    def on_reply(self, response_id: str, outcome: Reply | Exception, now_ms: float) -> Step:
        """The brain's ``outcome`` for a response asked aside; nothing when the response already ended
        (cancelled while the brain thought)."""
        context = self._asked.pop(response_id, None)
        streamer = self.ctx.streamers.get(response_id)
        if context is None or streamer is None or not streamer.response.is_active:
            return Step()
        return self._replied(streamer, context, outcome, now_ms)

    def _replied(
        self, streamer: ResponseStreamer, context: tuple[Item, ...], outcome: Reply | Exception, now_ms: float
    ) -> Step:
        r = streamer.response
        if isinstance(outcome, Exception):
            # E.g. a tool schema no arguments can satisfy: the response fails, the session goes on.
            step = Step(events=streamer.fail("reply_failed", f"Could not build a reply: {outcome}"))
            step.effects.append(Trace("reply_failed", {"response_id": r.id, "error": repr(outcome)}))
            self._forget_if_done(streamer, now_ms)
            return step
        # A call still waiting for its output is not made again (docs/tools.md).
        reply = without_pending_repeats(outcome, context, r.params.tool_choice)
        counted = self._input_usage.pop(r.id, None)
        if counted is None:
            streamer.account_input(r.params.instructions, context)
        else:
            streamer.response.usage.input_text_tokens += counted[0]
            streamer.response.usage.input_audio_tokens += counted[1]
            streamer.response.usage.input_image_tokens += counted[2]
        routes = self._routes.pop(r.id, {})
        servers = {
            label: server
            for route in routes.values()
            if (server := self.mcp.server(label := route.server_label))
        }
        events, effects = streamer.begin(reply, now_ms, routes, servers)
        step = Step(events=events, effects=[*effects, *streamer.take_effects()])
        step.effects.append(
            Trace(
                "reply",
                {
                    "response_id": r.id,
                    "rule": reply.rule,
                    "why": reply.why,
                    "text": reply.text,
                    "tool_calls": [c.name for c in reply.tool_calls],
                },
            )
        )
        self._forget_if_done(streamer, now_ms)
        return step

    def _place_output(self, item: Item) -> str | None:
        return self.ctx.conversation.insert(item)

    def _forget_if_done(self, streamer: ResponseStreamer, now_ms: float) -> None:
        if streamer.response.is_active:
            return
        self.ctx.streamers.pop(streamer.response.id, None)
        self._routes.pop(streamer.response.id, None)
        self._input_usage.pop(streamer.response.id, None)
        self._audio_was_sent = self._audio_was_sent or streamer.audio_sent_bytes > 0
        if self.active_id == streamer.response.id:
            self.active_id = None
            self._arm_idle_timeout(streamer, now_ms)

    def _arm_idle_timeout(self, streamer: ResponseStreamer, now_ms: float) -> None:
        config = self.ctx.turn_detection
        idle_ms = config.idle_timeout_ms if isinstance(config, ServerVad) else None
        if not idle_ms or streamer.response.status != "completed":
            return
        heard_by_ms = max(now_ms, streamer.playback_end_ms or now_ms)
        self.idle_deadline_ms = heard_by_ms + idle_ms


class BrainBug(Exception):
    """An exception the brain raised that no input should cause (a mockengine bug the client's input
    met, e.g. a tool schema shape the slot filler did not expect). Its message names the original."""


def ask(brain: Brain, request: ReplyRequest) -> Reply | Exception:
    """The brain's reply to ``request``, or the exception that fails the response (``response.done``
    ``status: "failed"``, ``server_error`` / ``reply_failed``; the session goes on): a ``ValueError`` /
    ``RecursionError`` as raised (a tool schema no arguments can satisfy), any other exception as a
    :class:`BrainBug`, logged with its traceback. A bug must not close the client's session: the live
    service answers its own failures with a failed response, and a framework such as LiveKit Agents
    reconnects into the same failure again and again when the socket closes instead."""
    try:
        return brain.reply(request)
    except ValueError as exc:
        return exc
    except RecursionError as exc:
        return ValueError(unbuildable_reason(exc))
    except Exception as exc:
        log.exception("brain: no reply (a mockengine bug; the response fails and the session goes on)")
        return BrainBug(
            f"internal error ({type(exc).__name__}: {exc}); please report it with this session's journal"
        )
