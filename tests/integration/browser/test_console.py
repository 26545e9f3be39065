"""The console in a real browser: connect over WebRTC, the fake microphone's question gets a spoken reply,
the transcript and the events appear on the page; a screenshot is saved in reports/."""

from __future__ import annotations

import contextlib
import json
import re

import aiohttp
import pytest
from playwright.async_api import async_playwright, expect

from mockengine.engines.voices import VOICE_NAMES
from tests.integration.browser.conftest import chromium_args
from tests.integration.browser.test_agents_sdk import skip_without_pion

pytestmark = pytest.mark.models


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_spoken_turn(engine, chromium_path, question_once_wav, reports_dir, transport):
    server = await engine()
    async with async_playwright() as p:
        args = chromium_args(question_once_wav)
        browser = await p.chromium.launch(executable_path=chromium_path, args=args)
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 1000})
            problems: list[str] = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            # Console errors and warnings too (a missing /favicon.ico once logged a 404 on every load; the
            # WebSocket microphone's ScriptProcessorNode a deprecation warning on every connect).
            page.on(
                "console", lambda msg: problems.append(msg.text) if msg.type in ("error", "warning") else None
            )
            await page.goto(f"{server.http_url}/")
            await _go_live(page, transport=transport, turn_detection="server_vad")
            user = page.locator("#transcript li.user").first
            await expect(user).to_contain_text("capital", timeout=30_000, ignore_case=True)
            reply = page.locator("#transcript li.assistant:not(.partial)").first
            await expect(reply).not_to_be_empty(timeout=30_000)
            events = page.locator("#events li")
            await expect(events.filter(has_text="input_audio_buffer.speech_started").first).to_be_visible()
            await expect(events.filter(has_text="response.done").first).to_be_visible(timeout=30_000)
            if transport == "webrtc":
                stopped = events.filter(has_text="output_audio_buffer.stopped").first
                await expect(stopped).to_be_attached(timeout=30_000)
            # One turn, its reply not cut (a cut one's response.done says "cancelled"): the question is
            # said once in the test's time (conftest.question_once_wav), so no next round barges in.
            await expect(events.filter(has_text="input_audio_buffer.speech_started")).to_have_count(1)
            await expect(events.filter(has_text="response.done").first).not_to_contain_text("cancelled")
            await page.screenshot(path=str(reports_dir / f"console-{transport}.png"), full_page=True)
            await page.click("#hangup")
            await server.wait_until_idle()
            assert not problems, problems
        finally:
            await browser.close()


@contextlib.asynccontextmanager
async def _console(chromium_path, wav, url, init_script=""):
    """The console open in headless Chromium (the fake microphone playing ``wav``; ``init_script`` run
    before the page's own): yields the page and the list its uncaught errors go to; the browser is
    closed on the way out."""
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path, args=chromium_args(wav))
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 1000})
            problems: list[str] = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            # Every peer connection the page makes, to look at after the call.
            await page.add_init_script(
                "const Native = window.RTCPeerConnection; window.pcs = [];"
                "window.RTCPeerConnection = function (...a) {"
                " const pc = new Native(...a); window.pcs.push(pc); return pc; };"
            )
            if init_script:
                await page.add_init_script(init_script)
            await page.goto(f"{url}/")
            yield page, problems
        finally:
            await browser.close()


async def _go_live(page, transport=None, turn_detection=None):
    """Pick ``transport`` and ``turn_detection`` (where given), connect, and wait for the session."""
    if transport is not None:
        await page.select_option("#transport", transport)
    if turn_detection is not None:
        await page.select_option("#turn-detection", turn_detection)
    await page.click("#connect")
    await expect(page.locator("#status")).to_have_text("live", timeout=15_000)


# The page's setRemoteDescription resumes its caller only once the call's data channel is open: the order
# in which a loaded chromium ran them when the pion plane's sidecar had ICE, DTLS and SCTP up within
# milliseconds of the answer (the channel's "open" fired, and session.created arrived, before the
# page's code after the await ran). Forced here by waiting for the event, not for any time.
OPEN_BEFORE_ANSWER_APPLIED = """
const Made = window.RTCPeerConnection;
window.RTCPeerConnection = function (...args) {
  const pc = new Made(...args);
  const create = pc.createDataChannel.bind(pc);
  const apply = pc.setRemoteDescription.bind(pc);
  let opened = null;
  pc.createDataChannel = (...a) => {
    const channel = create(...a);
    opened = new Promise((resolve) => channel.addEventListener("open", resolve, { once: true }));
    return channel;
  };
  pc.setRemoteDescription = async (...a) => {
    await apply(...a);
    if (opened) {
      await opened;
      window.answerAppliedAfterOpen = true;
    }
  };
  return pc;
};
"""


@pytest.mark.parametrize("media_plane", ["aiortc", "pion"])
async def test_console_goes_live_when_the_channel_opens_before_the_answer_is_applied(
    engine, chromium_path, fake_mic_wav, media_plane
):
    """The channel's "open" before the page's code after ``setRemoteDescription`` runs: the page goes
    live. Its handler set after that await missed the event, and the page gave up after 8 s "without
    session.created" on a call that was up (1 to 3 connects in 50 on the pion plane)."""
    skip_without_pion(media_plane)
    server = await engine(media_plane=media_plane)
    async with _console(chromium_path, fake_mic_wav, server.http_url, OPEN_BEFORE_ANSWER_APPLIED) as (
        page,
        problems,
    ):
        await _go_live(page, transport="webrtc")
        assert await page.evaluate("window.answerAppliedAfterOpen === true")
        await expect(page.locator("#connect-error")).to_be_empty()
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_failed_connect_can_be_retried(engine, chromium_path, fake_mic_wav):
    """An engine that checks API keys: the page's default key is refused; the reason shows beside the
    buttons, Connect works again, and with the right key the session goes live."""
    server = await engine(api_key="sk-the-right-one")
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        # Without --journal-dir the journal pane says so up front (not only once a session is clicked).
        await expect(page.locator("#journal-id")).to_contain_text("--journal-dir")
        shown = await page.locator("#journal-id").evaluate("e => e.innerText")
        assert "--journal-dir" in shown  # not upper-cased like the heading (session ids neither)
        await page.click("#connect")
        await expect(page.locator("#status")).to_have_text("failed")
        await expect(page.locator("#connect-error")).to_contain_text("401")
        await expect(page.locator("#connect-error")).to_contain_text("--api-key")
        await expect(page.locator("#connect")).to_be_enabled()
        await page.fill("#api-key", "sk-the-right-one")
        await _go_live(page)
        await expect(page.locator("#connect-error")).to_be_empty()
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_empty_api_key_says_so(engine, chromium_path, fake_mic_wav):
    """An engine that takes any key, the key field emptied: the reason names the empty field, not an
    --api-key the engine was never started with; any key then connects."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.fill("#api-key", "")
        await page.click("#connect")
        await expect(page.locator("#status")).to_have_text("failed")
        await expect(page.locator("#connect-error")).to_contain_text("API key field is empty")
        assert "this engine checks API keys" not in await page.text_content("#connect-error")
        await page.fill("#api-key", "sk-anything")
        await _go_live(page)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_api_key_a_header_cannot_carry(engine, chromium_path, fake_mic_wav):
    """A key pasted with a character an HTTP header cannot carry (a "…" or a curly quote from a document):
    the browser's fetch threw before sending anything, and the page said the engine does not answer (is it
    running?) about an engine that was running. It names the field and the character now; fixed, the key
    connects."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.fill("#api-key", "sk-proj-abc\u2026")
        await page.click("#connect")
        await expect(page.locator("#status")).to_have_text("failed")
        error = page.locator("#connect-error")
        await expect(error).to_contain_text("API key field")
        await expect(error).to_contain_text("\u2026")
        assert "does not answer" not in await error.text_content()
        await expect(page.locator("#connect")).to_be_enabled()
        await page.fill("#api-key", "sk-proj-abc")
        await _go_live(page)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_call_ended_by_the_engine(engine, chromium_path, fake_mic_wav):
    """Kill connection on a WebRTC call: the page closes its side of the call (left open, its ICE
    failure 15-20 s later ended the *next* session), the mute button is reset, and it connects again."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page)
        await page.click("#mute")
        await page.click("#kill")
        await expect(page.locator("#status")).to_contain_text("ended", timeout=15_000)
        assert await page.evaluate("window.pcs[0].connectionState") == "closed"
        await expect(page.locator("#mute")).to_have_text("Mute mic")
        await _go_live(page)
        # Each session's transcript starts with its id (the lines of sessions ran together).
        await expect(page.locator("#transcript li.session")).to_have_count(2)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_kill_drops_only_its_own_session_on_a_seeded_engine(
    engine, chromium_path, fake_mic_wav, transport
):
    """A seeded engine's sessions share their id: Kill connection named the page's session by its id and
    dropped every session holding it. It names the page's session by its handle now (WebRTC: the call's
    answer header; WebSocket: the newest live session of its id in /mockengine/sessions)."""
    server = await engine(seed=5)
    headers = {"Authorization": "Bearer sk-test"}
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{server.url}/realtime?model=gpt-realtime", headers=headers) as other,
    ):
        other_id = json.loads((await other.receive(timeout=10)).data)["session"]["id"]
        async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
            await _go_live(page, transport=transport)
            shown = page.locator("#transcript li.session").first
            await expect(shown).to_contain_text(other_id)  # the same id: the seed's
            await expect(page.locator("#sessions li", has_text="(this page)")).to_have_count(1)
            await page.click("#kill")
            await expect(page.locator("#status")).to_contain_text("ended", timeout=15_000)
            await expect(page.locator("#fault-result")).to_have_text("connection dropped")
            assert not problems, problems
        await other.send_str(json.dumps({"type": "session.update", "session": {"type": "realtime"}}))
        assert json.loads((await other.receive(timeout=10)).data)["type"] == "session.updated"


async def test_console_fault_at_connect_is_armed_for_the_next_connect(engine, chromium_path, fake_mic_wav):
    """refuse_call acts on POST /v1/realtime/calls: fired on a live session it never acted. The page
    arms it for the next connection (no session needed): that connect fails with the 503, the next one
    goes live."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.select_option("#fault-kind", "refuse_call")
        await expect(page.locator("#fire-fault")).to_have_text("Arm for the next connect")
        await page.click("#fire-fault")
        await expect(page.locator("#fault-result")).to_contain_text("next connection")
        await page.click("#connect")
        await expect(page.locator("#status")).to_have_text("failed")
        await expect(page.locator("#connect-error")).to_contain_text("503")
        # The error's message, not its JSON body (as a client_secrets error already was).
        await expect(page.locator("#connect-error")).not_to_contain_text('{"error"')
        await _go_live(page)
        await page.select_option("#fault-kind", "close_after_events")
        await expect(page.locator("#fire-fault")).to_have_text("Fire on this session")
        await page.click("#fire-fault")
        await expect(page.locator("#status")).to_contain_text("ended", timeout=30_000)
        await expect(page.locator("#fire-fault")).to_be_disabled()
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_settings_changed_during_a_session(engine, chromium_path, fake_mic_wav):
    """Turn detection and voice picked during a session go to the engine as session.update (they were
    silently ignored); transport and scenario are locked until hang-up."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport="websocket", turn_detection="none")
        await expect(page.locator("#scenario")).to_be_disabled()
        await expect(page.locator("#transport")).to_be_disabled()
        updated = page.locator("#events li", has_text="session.updated")
        await page.select_option("#turn-detection", "semantic_vad")
        await expect(updated).to_have_count(1)
        await updated.click()
        await expect(updated.locator("pre")).to_contain_text('"semantic_vad"')
        await page.select_option("#voice", "verse")
        await expect(updated).to_have_count(2)
        await page.click("#hangup")
        await expect(page.locator("#scenario")).to_be_enabled()
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_journal_of_the_session_just_ended(engine, chromium_path, fake_mic_wav, tmp_path):
    """With --journal-dir, the page's own session stays in the list after hang-up (only live sessions
    were listed: a finished session's journal could not be opened); its records are readable (the list's
    numbers were cut off from 10 on: the record's time is its label). A seeded engine's second session
    shares the first's id and journals to ``<id>.2``: the list names each, and each opens its own."""
    server = await engine(journal_dir=str(tmp_path / "journal"), seed=3)
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        for said in ("hello there", "good morning"):
            # No turn detection: the fake mic's speech would barge in and cut the reply (and its journal)
            # short, as early as before its first delta on a slow machine.
            await _go_live(page, transport="websocket", turn_detection="none")
            await page.fill("#text-input", said)
            await page.click("#send-text")
            done = page.locator("#events li", has_text="response.done")
            await expect(done).to_have_count(1 if said == "hello there" else 2, timeout=30_000)
            await page.click("#hangup")
            await server.wait_until_idle()
        # The page lists sessions as the engine saw them at hang-up (its refresh raced the engine's noticing
        # the close: the second one was still live) and again every 5 s; ask now that the engine is idle.
        await page.click("#refresh-sessions")
        ended = page.locator("#sessions li", has_text="ended, this page")
        await expect(ended).to_have_count(2)
        names = [await li.get_attribute("data-journal") for li in await ended.all()]
        assert names[0] == f"{names[1]}.2"  # newest first: the second session's journal
        records = page.locator("#journal li")
        for n, said in ((0, "good morning"), (1, "hello there")):
            await ended.nth(n).click()
            await expect(page.locator("#journal-id")).to_have_text(names[n])
            await expect(records.filter(has_text="response.done").first).to_be_attached()
            created = records.filter(has_text="conversation.item.create").first
            await created.click()  # its JSON: the text this session sent
            await expect(created.locator("pre")).to_contain_text(said)
        assert await records.count() > 10
        assert await records.nth(0).evaluate("li => getComputedStyle(li).listStyleType") == "none"
        assert not problems, problems


async def test_console_journal_of_a_live_session_follows_it(engine, chromium_path, fake_mic_wav, tmp_path):
    """The journal of the page's live session, opened, grows as the session goes on (on the sessions'
    5 s refresh): it stayed as it was when clicked, so what was said after never showed. A record
    opened for its JSON stays open, and no record is listed twice."""
    server = await engine(journal_dir=str(tmp_path / "journal"))
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport="websocket", turn_detection="none")
        mine = page.locator("#sessions li", has_text="this page")
        await expect(mine).to_have_count(1, timeout=15_000)
        await mine.click()
        records = page.locator("#journal li")
        created = records.filter(has_text="session.created")
        await expect(created).to_have_count(1)
        await created.click()  # its JSON, open
        sent = records.filter(has_text="conversation.item.create")
        await expect(sent).to_have_count(0)
        for n, said in enumerate(("hello there", "good morning"), 1):
            await page.fill("#text-input", said)
            await page.click("#send-text")
            await expect(sent).to_have_count(n, timeout=15_000)
            await expect(records.filter(has_text="response.done")).to_have_count(n, timeout=15_000)
        await expect(sent.nth(1)).to_be_attached()
        await sent.nth(1).click()
        await expect(sent.nth(1).locator("pre")).to_contain_text("good morning")
        await expect(created.locator("pre")).to_contain_text("session.created")  # still open
        await expect(created).to_have_count(1)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_shows_a_failed_response(engine, chromium_path, fake_mic_wav):
    """response_failed fired on the session: the reply's transcript line and the response.done event say
    'failed' and why (the line was an empty or half 'engine:' with no reason, the event a plain
    response.done)."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport="websocket", turn_detection="none")
        await page.select_option("#fault-kind", "response_failed")
        await page.click("#fire-fault")
        await expect(page.locator("#fault-result")).to_contain_text("armed")
        await page.fill("#text-input", "hello there")
        await page.click("#send-text")
        failed = page.locator("#transcript li.assistant.failed")
        await expect(failed).to_have_attribute("data-outcome", re.compile("failed: .+"), timeout=30_000)
        done = page.locator("#events li.error", has_text="response.done")
        await expect(done).to_contain_text("failed")
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_timeline_shades_websocket_playback(engine, chromium_path, fake_mic_wav):
    """Over WebSocket the page plays the reply itself: the timeline's "reply playing" shading covers the
    time the audio plays (it covered the time the deltas arrived, a third of it)."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport="websocket", turn_detection="none")
        await page.fill("#text-input", "what is the capital of France")
        await page.click("#send-text")
        done = page.locator("#events li", has_text="response.done").first
        await expect(done).to_be_attached(timeout=30_000)
        shaded, played = await page.evaluate(
            "[state.replyPlaying.reduce((s, span) => s + ((span.to ?? 0) - span.from), 0),"
            " [...state.player.items.values()].reduce((s, item) => s + item.ms / 1000, 0)]"
        )
        assert played > 1.0 and abs(shaded - played) < 0.2, (shaded, played)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_gives_up_on_a_hanging_handshake(engine, chromium_path, fake_mic_wav):
    """withhold_session_created: the WebSocket opens but session.created never comes. The page gives up
    after 8 s and says so (it stayed 'connecting' for good, with the session's buttons enabled); a refused
    upgrade says so too; the next connect goes live."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.select_option("#transport", "websocket")
        await page.select_option("#fault-kind", "withhold_session_created")
        await page.click("#fire-fault")
        await page.click("#connect")
        await expect(page.locator("#connect-error")).to_contain_text("session.created", timeout=12_000)
        await expect(page.locator("#status")).to_have_text("failed")
        await page.select_option("#fault-kind", "refuse_upgrade")
        await page.click("#fire-fault")
        await page.click("#connect")
        await expect(page.locator("#connect-error")).to_contain_text("refused")
        await _go_live(page)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("width", [1280, 400])
async def test_console_layout(engine, chromium_path, fake_mic_wav, width):
    """Wide: the transcript sits in the first row beside the session panel (it left two thirds of the
    first screen empty); narrow (a phone, 400 px): one column, nothing wider than the window."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.set_viewport_size({"width": width, "height": 900})
        await expect(page.locator("#fault-kind option").first).to_be_attached()
        session = await page.locator("#connect-panel").bounding_box()
        transcript = await page.locator("#transcript").locator("xpath=..").bounding_box()
        assert session and transcript
        if width > 1000:
            assert transcript["y"] == session["y"]
        else:
            assert transcript["x"] == session["x"]
        assert await page.evaluate("document.documentElement.scrollWidth") <= width
        # The longest event name wraps instead of being cut off at the panel's edge.
        await page.evaluate("addEvent({type: 'conversation.item.input_audio_transcription.completed'})")
        assert await page.locator("#events").evaluate("e => e.scrollWidth <= e.clientWidth")
        assert not problems, problems


async def test_console_refused_voice_change_shows_the_voice_in_use(engine, chromium_path, fake_mic_wav):
    """A new voice after the assistant has spoken is refused (cannot_update_voice): the error shows and the
    voice picker goes back to the session's voice (it kept showing the refused one)."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.select_option("#transport", "websocket")
        await page.select_option("#turn-detection", "none")
        await page.select_option("#voice", "ash")
        await _go_live(page)
        await page.fill("#text-input", "hello there")
        await page.click("#send-text")
        done = page.locator("#events li", has_text="response.done").first
        await expect(done).to_be_attached(timeout=30_000)
        await page.select_option("#voice", "verse")
        await expect(page.locator("#events li.error", has_text="voice")).to_be_attached()
        await expect(page.locator("#voice")).to_have_value("ash")
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_opened_while_the_engine_does_not_answer(engine, chromium_path, fake_mic_wav):
    """console.json not answering when the page loads: the page says so (it stayed blank, an unhandled
    rejection) and fills its pickers once the engine answers."""
    server = await engine()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path, args=chromium_args(fake_mic_wav))
        try:
            page = await browser.new_page()
            problems: list[str] = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            await page.route("**/mockengine/console.json", lambda route: route.abort())
            await page.goto(f"{server.http_url}/")
            await expect(page.locator("#connect-error")).to_contain_text("does not answer")
            await page.unroute("**/mockengine/console.json")
            await expect(page.locator("#voice option")).to_have_count(len(VOICE_NAMES), timeout=10_000)
            await expect(page.locator("#connect-error")).to_be_empty()
            assert not problems, problems
        finally:
            await browser.close()


async def test_console_event_list_scrolled_up_stays(engine, chromium_path, fake_mic_wav):
    """Events scrolled up to read one (opened for its JSON) stay in view while more arrive (every event
    scrolled the list back to its end); at the end, the list follows the newest."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.select_option("#transport", "websocket")
        await page.select_option("#turn-detection", "none")
        await page.uncheck("#hide-deltas")
        await _go_live(page)
        done = page.locator("#events li", has_text="response.done")
        await page.fill("#text-input", "hello there")
        await page.click("#send-text")
        await expect(done).to_have_count(1, timeout=30_000)
        events = page.locator("#events")
        at_end = "e => e.scrollHeight - e.scrollTop - e.clientHeight < 40"
        assert await events.evaluate(at_end)
        await events.evaluate("e => { e.scrollTop = 0; }")
        await page.locator("#events li").first.click()
        await page.fill("#text-input", "tell me more")
        await page.click("#send-text")
        await expect(done).to_have_count(2, timeout=30_000)
        assert await events.evaluate("e => e.scrollTop") == 0
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_offers_a_tool_and_answers_its_call(engine, chromium_path, fake_mic_wav):
    """'offer a tool' gives the session get_weather: asked for the weather, the engine calls it, the call
    shows in the tool calls pane, the page answers it and the reply follows (the page offered no tools,
    so the pane stayed empty whatever you said)."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.select_option("#transport", "websocket")
        await page.select_option("#turn-detection", "none")
        await page.check("#offer-tool")
        await _go_live(page)
        await expect(page.locator("#offer-tool")).to_be_disabled()
        await page.fill("#text-input", "What's the weather in Paris?")
        await page.click("#send-text")
        await expect(page.locator("#tools li")).to_contain_text("get_weather", timeout=30_000)
        await expect(page.locator("#tools li")).to_contain_text("Paris")
        done = page.locator("#events li", has_text="response.done")
        await expect(done).to_have_count(2, timeout=30_000)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_fault_for_the_other_transport_is_not_armed(engine, chromium_path, fake_mic_wav):
    """A WebRTC-only fault on a WebSocket session, or refuse_call for a WebSocket connect: the page says
    it would not act (it said 'armed' and nothing happened; an at-connect one was used up silently)."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.select_option("#transport", "websocket")
        await page.select_option("#fault-kind", "refuse_call")
        await expect(page.locator("#fault-doc")).to_contain_text("WebRTC only")
        await page.click("#fire-fault")
        await expect(page.locator("#fault-result")).to_contain_text("acts on WebRTC only")
        await _go_live(page)
        await page.select_option("#fault-kind", "datachannel_close")
        await page.click("#fire-fault")
        await expect(page.locator("#fault-result")).to_contain_text("this session is WebSocket")
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_without_a_microphone(engine, chromium_path, fake_mic_wav, transport):
    """The microphone not allowed: the session still goes live and says why there is no microphone; a
    typed message gets its reply (the connect failed with a bare 'Permission denied')."""
    server = await engine()
    args = [a for a in chromium_args(fake_mic_wav) if "fake-ui" not in a]  # no permission: denied
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path, args=args)
        try:
            page = await browser.new_page()
            problems: list[str] = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            await page.goto(f"{server.http_url}/")
            await _go_live(page, transport=transport)
            await expect(page.locator("#connect-error")).to_contain_text("no microphone")
            await page.fill("#text-input", "hello there")
            await page.click("#send-text")
            reply = page.locator("#transcript li.assistant:not(.partial)").first
            await expect(reply).not_to_be_empty(timeout=30_000)
            await page.click("#hangup")
            await server.wait_until_idle()
            assert not problems, problems
        finally:
            await browser.close()


@pytest.mark.parametrize("dtx", [False, True])
async def test_console_shows_a_media_stall(engine, chromium_path, fake_mic_wav, dtx):
    """media_stall stops the call's media while the call and its data channel stay up: the page said
    "live" and shaded "reply playing" over a reply nobody heard. It watches the reply track's packets
    (getStats) and says the media stalled; the reply's level is drawn on the timeline too. With
    ``--webrtc-dtx`` the engine sends nothing between replies on purpose: no stall is claimed then, only
    when a reply plays without packets."""
    server = await engine(webrtc_dtx=dtx)
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page)
        await page.wait_for_timeout(3_000)  # quiet between replies: not a stall, DTX or not
        await expect(page.locator("#media")).to_have_attribute("data-state", "flowing")
        await page.select_option("#fault-kind", "media_stall")
        await page.fill("#fault-params", "after_ms=0")
        await page.click("#fire-fault")
        await page.fill("#text-input", "Tell me about the weather today please.")
        await page.press("#text-input", "Enter")
        await expect(page.locator("#media")).to_have_attribute("data-state", "stalled")
        await expect(page.locator("#media")).to_contain_text("no reply audio")
        await expect(page.locator("#status")).to_have_text("live")  # the call is up: only media stopped
        await page.click("#hangup")
        await expect(page.locator("#media")).to_have_attribute("data-state", "idle")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_by_keyboard(engine, chromium_path, fake_mic_wav, tmp_path):
    """The events and sessions lists were clickable <li>s that Tab never reached: a keyboard user could
    not open an event's JSON nor a session's journal. Their rows are buttons now (Enter opens them), and
    each list is one Tab stop that the arrow keys move along (400 events are not 400 Tab presses)."""
    server = await engine(journal_dir=str(tmp_path / "journal"))
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.focus("#connect")
        await page.keyboard.press("Enter")
        await expect(page.locator("#status")).to_have_text("live", timeout=15_000)
        await page.focus("#fault-params")
        await page.keyboard.press("Shift+Tab")  # back past the events' rows in one press
        await page.keyboard.press("Shift+Tab")
        await expect(page.locator("#events")).to_be_focused()
        await page.keyboard.press("Home")
        await expect(page.locator("#events li button").first).to_be_focused()
        await expect(page.locator("#events li button").first).to_have_text("session.created")
        await expect(page.locator("#events li button").nth(1)).to_be_attached()  # the microphone's turn
        await page.keyboard.press("ArrowDown")
        await expect(page.locator("#events li button").nth(1)).to_be_focused()
        await page.keyboard.press("ArrowUp")
        await page.keyboard.press("Enter")
        await expect(page.locator("#events li pre")).to_contain_text('"session"')
        await page.keyboard.press("Enter")
        await expect(page.locator("#events li pre")).to_have_count(0)
        await page.focus("#refresh-sessions")
        await page.keyboard.press("Tab")
        await expect(page.locator("#sessions")).to_be_focused()
        await page.keyboard.press("ArrowDown")
        await expect(page.locator("#sessions li button").first).to_contain_text("(this page)")
        await page.keyboard.press("Enter")
        await expect(page.locator("#journal li button").first).to_contain_text("session.created")
        await page.keyboard.press("Tab")  # out of the sessions: the journal is the next stop
        await expect(page.locator("#journal")).to_be_focused()
        await page.keyboard.press("ArrowDown")
        await page.keyboard.press(" ")
        await expect(page.locator("#journal li pre")).to_have_count(1)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_long_session(engine, chromium_path, fake_mic_wav, tmp_path):
    """A long session. Its journal: the engine cut a journal at 5000 lines before leaving the microphone's
    appends out, so after ~3 minutes of a console session (25 appends a second) its journal timeline
    stopped growing; the page now pages with ``?from=N``. Its panes: the transcript and the tool calls
    grew without end (the events were already cut at 400); the newest 500 are kept."""
    from mockengine.server.state import JOURNAL

    server = await engine(journal_dir=str(tmp_path / "journal"))
    append = {"type": "input_audio_buffer.append", "audio": "AAA="}
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(server.realtime, headers={"Authorization": "Bearer sk-j"}) as ws:
            session_id = (await ws.receive_json(timeout=10))["session"]["id"]
            for _ in range(5200):
                await ws.send_json(append)
            item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "late"}]}
            await ws.send_json({"type": "conversation.item.create", "item": item})
            while (await ws.receive_json(timeout=30))["type"] != "conversation.item.added":
                pass
        await server.wait_until_idle()
    server.app[JOURNAL].drain()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.locator("#sessions li", has_text=session_id).click()
        await expect(page.locator("#journal li", has_text="conversation.item.create")).to_have_count(1)
        await page.evaluate(
            """() => { for (let i = 0; i < 1200; i++) {
              const item = `item_${i}`, said = "response.output_audio_transcript";
              onServerEvent({ type: `${said}.delta`, item_id: item, delta: "x" });
              onServerEvent({ type: `${said}.done`, item_id: item, transcript: `line ${i}` });
              const heard = "conversation.item.input_audio_transcription.completed";
              onServerEvent({ type: heard, item_id: `u_${i}`, transcript: `you ${i}` });
            } }"""
        )
        await expect(page.locator("#transcript li")).to_have_count(500)
        await expect(page.locator("#transcript li").last).to_have_text("you 1199")
        await expect(page.locator("#events li")).to_have_count(400)
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_says_why_the_engine_ended_the_session(engine, chromium_path, fake_mic_wav, transport):
    """session_expired (the 60-minute limit) sends its error, then ends the session: the page said only
    "ended: data channel closed" (or "websocket closed 1001"), the reason a line in the events among many.
    The error the engine sent just before it ended the session shows under Connect now."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport=transport)
        await page.select_option("#fault-kind", "session_expired")
        await page.fill("#fault-params", "ms=0")
        await page.click("#fire-fault")
        await expect(page.locator("#status")).to_contain_text("ended", timeout=15_000)
        await expect(page.locator("#connect-error")).to_contain_text("maximum duration of 60 minutes")
        await _go_live(page)  # and the next session goes live, its reason gone
        await expect(page.locator("#connect-error")).to_have_text("")
        await page.click("#hangup")
        await expect(page.locator("#connect-error")).to_have_text("")  # hung up: no error of the engine's
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_push_to_talk_without_turn_detection(
    engine, chromium_path, question_once_wav, transport
):
    """Turn detection "none" is one of the page's choices, but nothing on it ended a spoken turn: the
    microphone's audio piled up in the input buffer and was never answered. "Hold to talk" (enabled only
    then) clears the buffer when pressed and commits it with a response.create when released; held from
    the keyboard here (Space down, Space up)."""
    server = await engine()
    async with _console(chromium_path, question_once_wav, server.http_url) as (page, problems):
        await _go_live(page, transport=transport)
        await expect(page.locator("#talk")).to_be_disabled()  # server_vad ends turns itself
        await page.select_option("#turn-detection", "none")
        await expect(page.locator("#talk")).to_be_enabled()
        await page.focus("#talk")
        await page.keyboard.down(" ")
        await expect(page.locator("#talk")).to_have_text("Talking… release to send")
        await page.wait_for_timeout(7_000)  # the question is 3 s into the microphone's file
        await page.keyboard.up(" ")
        await expect(page.locator("#transcript li.user")).to_contain_text("capital", timeout=30_000)
        await expect(page.locator("#transcript li.assistant:not(.partial)")).to_contain_text("Paris")
        await expect(page.locator("#events li.error")).to_have_count(0)
        await page.select_option("#turn-detection", "server_vad")
        await expect(page.locator("#talk")).to_be_disabled()
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_shows_an_engine_that_stopped_answering(
    engine, chromium_path, fake_mic_wav, reports_dir, transport
):
    """dead_peer: the engine stops sending and reading while the connection stays up (a dead network
    path). The page said "live" and sat waiting for a reply that never came. It now watches the engine:
    an event it sent unanswered for 3 s (or its keep-alive probe, a bare session.update after 5 s of
    silence) turns the status to "not answering" with an alert that offers Reconnect, which opens a new
    session that answers. A quiet, healthy session is probed and stays live."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport=transport, turn_detection="none")  # the looping microphone: no turns
        await page.wait_for_timeout(6_500)  # quiet: the page probes, the engine answers, still live
        await expect(page.locator("#events li", has_text="keep-alive").first).to_be_attached()
        await expect(page.locator("#status")).to_have_text("live")
        await page.select_option("#fault-kind", "dead_peer")
        await page.fill("#fault-params", "after_events=0")
        await page.click("#fire-fault")
        await expect(page.locator("#fault-result")).to_contain_text("armed dead_peer")
        await page.fill("#text-input", "Hello there, are you still with me?")
        await page.press("#text-input", "Enter")
        await expect(page.locator("#status")).to_have_attribute("data-state", "unresponsive", timeout=6_000)
        await expect(page.locator("#status")).to_have_text("not answering")
        alert = page.locator("#engine-alert")
        await expect(alert).to_be_visible()
        await expect(alert).to_contain_text("stopped answering")
        await expect(alert).to_contain_text("conversation.item.create")
        await expect(page.locator("#events li.page", has_text="engine not answering")).to_have_count(1)
        shot = reports_dir / f"console-not-answering-{transport}.png"
        await page.screenshot(path=str(shot), full_page=True)
        await page.click("#reconnect")
        await expect(page.locator("#status")).to_have_text("live", timeout=15_000)
        await expect(alert).to_be_hidden()
        assert await page.locator("#transport").input_value() == transport  # the same session settings
        sessions = page.locator("#transcript li.session")
        await expect(sessions).to_have_count(2)
        await page.fill("#text-input", "Tell me about the weather today please.")
        await page.press("#text-input", "Enter")
        await expect(page.locator("#transcript li.assistant:not(.partial)").first).not_to_be_empty()
        await expect(page.locator("#status")).to_have_text("live")
        await page.click("#hangup")
        await server.wait_until_idle(60)
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_engine_restarted_under_it(restartable_engine, chromium_path, fake_mic_wav, transport):
    """The engine stopped (Ctrl-C, a restart) under a live session: the page said only "ended: websocket
    closed 1001" or "ended: data channel closed", codes a person who ran `make serve` must look up. It
    says under Connect what happened and what to do; with the engine back on its port, Connect goes live
    and the sessions pane lists the new session."""
    engine = restartable_engine
    await engine.start()
    async with _console(chromium_path, fake_mic_wav, engine.http_url) as (page, problems):
        await _go_live(page, transport=transport, turn_detection="none")
        await engine.stop()
        await expect(page.locator("#status")).to_contain_text("ended", timeout=15_000)
        await expect(page.locator("#connect-error")).to_contain_text("shut down or restarted")
        await expect(page.locator("#sessions")).to_contain_text("does not answer", timeout=10_000)
        await engine.start()
        await _go_live(page)
        await expect(page.locator("#connect-error")).to_be_empty()
        await expect(page.locator("#sessions li", has_text="(this page)")).to_have_count(1, timeout=10_000)
        await page.click("#hangup")
        assert not problems, problems
