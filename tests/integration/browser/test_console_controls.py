"""The console's controls as a person meets them: the "hide deltas" box over both panes, Hold to talk
with the microphone muted, another client's session ending in the sessions list, and every control
clicked through with the browser's console and network watched."""

from __future__ import annotations

import aiohttp
import pytest
from playwright.async_api import expect

from tests.integration.browser.test_console import _console, _go_live
from tests.integration.browser.test_console_feedback import NO_PERIODIC_REFRESH

pytestmark = pytest.mark.models


async def test_console_hide_deltas_filters_the_journal_too(engine, chromium_path, fake_mic_wav, tmp_path):
    """The "hide deltas" box (ticked by default) hid the events' deltas, but a session's journal
    timeline listed every transcript and audio delta, hundreds of rows burying the turn's few events. The
    box filters both panes; unticked, the journal shown lists them at once."""
    server = await engine(journal_dir=str(tmp_path / "journal"))
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport="websocket", turn_detection="none")
        await page.fill("#text-input", "hello there")
        await page.click("#send-text")
        await expect(page.locator("#events li", has_text="response.done").first).to_be_attached(
            timeout=30_000
        )
        await page.click("#hangup")
        ended = page.locator("#sessions li", has_text="(ended, this page)")
        await expect(ended).to_have_count(1)
        await ended.locator("button").click()
        records = page.locator("#journal li")
        await expect(records.filter(has_text="response.done")).to_have_count(1)
        await expect(page.locator("#events li", has_text=".delta")).to_have_count(0)
        await expect(records.filter(has_text=".delta")).to_have_count(0)
        await page.uncheck("#hide-deltas")
        await expect(records.filter(has_text="response.output_audio.delta")).not_to_have_count(0)
        await expect(records.filter(has_text="response.done")).to_have_count(1)  # listed once, not twice
        await page.check("#hide-deltas")
        await expect(records.filter(has_text=".delta")).to_have_count(0)
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_hold_to_talk_is_disabled_while_muted(engine, chromium_path, fake_mic_wav, transport):
    """Turn detection none, the microphone muted: Hold to talk stayed enabled, and holding it sent a
    turn of silence (nothing visible happened). It is disabled while muted, its title saying why, and
    enabled again on unmute."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport=transport, turn_detection="none")
        talk = page.locator("#talk")
        await expect(talk).to_be_enabled()
        await page.click("#mute")
        await expect(page.locator("#mute")).to_have_text("Unmute mic")
        await expect(talk).to_be_disabled()
        await expect(talk).to_have_attribute("title", "the microphone is muted: unmute it to talk")
        await page.click("#mute")
        await expect(talk).to_be_enabled()
        await expect(talk).not_to_have_attribute("title", "the microphone is muted: unmute it to talk")
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("journaling", [False, True])
async def test_console_lists_another_clients_session_ending_at_once(
    engine, chromium_path, fake_mic_wav, tmp_path, journaling
):
    """Another client's session that ended stayed listed live until the sessions' next 5 s refresh. The
    page waits on the engine's list (a long poll of GET /mockengine/sessions?changed_from=N): the
    session shows as it starts, and as soon as it ends it shows "(ended)" (journaling on) or is gone
    (off). The 5 s refresh is left out here, so only the page's watching can show it."""
    server = await engine(journal_dir=str(tmp_path / "journal") if journaling else None)
    console = _console(chromium_path, fake_mic_wav, server.http_url, NO_PERIODIC_REFRESH)
    async with console as (page, problems):
        await expect(page.locator("#sessions li", has_text="no live session")).to_have_count(1)
        async with aiohttp.ClientSession() as http:
            ws = await http.ws_connect(server.realtime, headers={"Authorization": "Bearer sk-other"})
            created = await ws.receive_json()
            session_id = created["session"]["id"]
            row = page.locator("#sessions li", has_text=session_id)
            await expect(row).to_have_count(1, timeout=3_000)
            await expect(row).not_to_contain_text("ended")
            await ws.close()
        if journaling:
            await expect(row).to_contain_text("(ended)", timeout=3_000)
        else:
            await expect(row).to_have_count(0, timeout=3_000)
            await expect(page.locator("#sessions li", has_text="no live session")).to_have_count(1)
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_calls_its_older_ended_sessions_its_own(engine, chromium_path, fake_mic_wav, tmp_path):
    """Six sessions of this page, journaling on: the pane named the newest five "(ended, this page)" and
    the sixth "(ended)", as if another client's. The page's own are never listed as another's."""
    server = await engine(journal_dir=str(tmp_path / "journal"))
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        for n in range(6):
            await _go_live(page, transport="websocket", turn_detection="none")
            await page.click("#hangup")
            await expect(page.locator("#sessions li", has_text="(ended, this page)")).to_have_count(
                min(n + 1, 5)
            )
        await page.click("#refresh-sessions")
        await expect(page.locator("#sessions li", has_text="(ended, this page)")).to_have_count(5)
        await expect(page.locator("#sessions li", has_text="(ended)")).to_have_count(0)  # another's
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_says_both_armings_for_the_next_connect_were_used(engine, chromium_path, fake_mic_wav):
    """refuse_upgrade and withhold_session_created armed for the next connect, which used both: the
    result named only the last one armed as used."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.select_option("#transport", "websocket")
        for kind in ("refuse_upgrade", "withhold_session_created"):
            await page.select_option("#fault-kind", kind)
            await page.click("#fire-fault")
            await expect(page.locator("#fault-result")).to_contain_text(f"armed {kind}")
        await page.click("#connect")
        await expect(page.locator("#status")).to_have_text("failed")
        await expect(page.locator("#fault-result")).to_have_text(
            "refuse_upgrade:status=503, withhold_session_created were used by this connect: "
            "nothing is armed now"
        )
        await _go_live(page)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_every_control_clicked_through(
    engine, chromium_path, fake_mic_wav, tmp_path, transport
):
    """A person's tour of the page, journaling on: every picker, the tool, a typed turn, mute and unmute,
    Hold to talk, "hide deltas" both ways, every fault kind picked and one fired, the sessions, a journal
    and its records opened, an event opened, Kill connection. No page error, no console error or warning,
    no HTTP answer of 400 or more."""
    server = await engine(journal_dir=str(tmp_path / "journal"))
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
        page.on("response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        await page.select_option("#scenario", "conformance")
        await page.select_option("#voice", "ash")
        await page.check("#offer-tool")
        await _go_live(page, transport=transport, turn_detection="semantic_vad")
        await page.select_option("#turn-detection", "none")
        await expect(page.locator("#talk")).to_be_enabled()
        await page.select_option("#voice", "verse")  # before the assistant spoke: taken
        await expect(page.locator("#voice-error")).to_be_empty()
        await page.fill("#text-input", "what's the weather in Paris?")
        await page.press("#text-input", "Enter")
        await expect(page.locator("#tools li")).not_to_have_count(0, timeout=30_000)
        await page.click("#mute")
        await page.click("#mute")
        talk = page.locator("#talk")
        await talk.hover()
        await page.mouse.down()
        await page.wait_for_timeout(600)
        await page.mouse.up()
        await page.uncheck("#hide-deltas")
        await page.check("#hide-deltas")
        kinds = await page.eval_on_selector_all("#fault-kind option", "os => os.map(o => o.value)")
        assert len(kinds) > 10
        for kind in kinds:
            await page.select_option("#fault-kind", kind)
            await expect(page.locator("#fault-doc")).not_to_be_empty()
        await page.select_option("#fault-kind", "response_failed")
        await page.click("#fire-fault")
        await expect(page.locator("#fault-result")).to_contain_text("armed response_failed")
        await page.click("#refresh-sessions")
        mine = page.locator("#sessions li", has_text="(this page)")
        await mine.locator("button").click()
        await expect(page.locator("#journal li").first).to_be_attached()
        await page.locator("#journal li button").first.click()
        await expect(page.locator("#journal li pre").first).to_contain_text("session.created")
        await page.locator("#events li button").first.click()
        await expect(page.locator("#events li pre").first).to_contain_text("session.created")
        await page.click("#kill")
        await expect(page.locator("#connect-error")).to_contain_text("Kill connection dropped it")
        await expect(page.locator("#sessions li", has_text="(ended, this page)")).to_have_count(1)
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_kill_is_not_blamed_on_an_earlier_error(engine, chromium_path, fake_mic_wav, transport):
    """An error a moment before Kill connection (any refused event): the page said "the engine ended the
    session: <that error>", though the kill had ended it. A kill says so whatever came before."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport=transport, turn_detection="none")
        await page.evaluate("state.transport.send({type: 'no.such.event'})")
        await expect(page.locator("#events li.error")).to_have_count(1)
        await page.click("#kill")
        await expect(page.locator("#connect-error")).to_have_text(
            "Kill connection dropped it — Connect starts a new session"
        )
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_hold_to_talk_during_a_reply_cancels_it(engine, chromium_path, fake_mic_wav, transport):
    """Hold to talk pressed while a reply was still being made: released, its response.create was refused
    ("Conversation already has an active response in progress"), an error in red and no answer to the
    turn. Pressed, it cancels the reply in progress (response.cancel) as it stops its audio, and the
    turn gets its reply."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport=transport, turn_detection="none")
        # The reply in progress while the page holds: its response.create sent, nothing back yet.
        await page.evaluate(
            "state.transport.send({type: 'conversation.item.create', item: {type: 'message', role: 'user',"
            " content: [{type: 'input_text', text: 'Tell me a long story about a lighthouse keeper.'}]}});"
            "state.transport.send({type: 'response.create'});"
        )
        events = page.locator("#events li")
        await expect(events.filter(has_text="response.created")).to_have_count(1)
        await page.locator("#talk").hover()
        await page.mouse.down()
        await page.wait_for_timeout(1000)
        await page.mouse.up()
        await expect(events.filter(has_text="response.done")).to_have_count(2, timeout=30_000)
        await expect(events.filter(has_text="response.done").first).to_contain_text("cancelled")
        await expect(page.locator("#events li.error")).to_have_count(0)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_hold_to_talk_with_the_mouse(engine, chromium_path, fake_mic_wav, transport):
    """Held with the mouse, Hold to talk's label grew ("Talking… release to send"), the row wrapped it to
    the next line out from under the pointer, and its pointerleave ended the turn at once: an empty
    buffer committed ("buffer too small … 0.00ms") and no turn. The pointer is captured while held: the
    turn ends at the release, with the audio held for."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport=transport, turn_detection="none")
        talk = page.locator("#talk")
        await talk.hover()
        await page.mouse.down()
        await expect(talk).to_have_text("Talking… release to send")
        await page.wait_for_timeout(1000)
        await expect(talk).to_have_text("Talking… release to send")  # still held
        await page.mouse.up()
        await expect(talk).to_have_text("Hold to talk")
        events = page.locator("#events li")
        await expect(events.filter(has_text="input_audio_buffer.committed")).to_have_count(1)
        await expect(events.filter(has_text="response.done")).to_have_count(1, timeout=30_000)
        await expect(page.locator("#events li.error")).to_have_count(0)
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems
