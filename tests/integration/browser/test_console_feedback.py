"""The console says what just happened where the user looks: the sessions pane right after Hang up, the
fault picker against the transport picked, a refused voice beside the voice picker."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.integration.browser.test_console import _console, _go_live

pytestmark = pytest.mark.models

# The sessions pane's 5 s refresh left out: what the pane shows after Hang up is then the page's own
# doing (with the timer, a test would pass or fail by where in its 5 s the hang-up fell).
NO_PERIODIC_REFRESH = (
    "const nativeSetInterval = window.setInterval;"
    "window.setInterval = (f, ms, ...a) => (ms === 5000 ? 0 : nativeSetInterval(f, ms, ...a));"
)


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
@pytest.mark.parametrize("journaling", [False, True])
async def test_console_sessions_pane_drops_the_ended_session_at_hang_up(
    engine, chromium_path, fake_mic_wav, tmp_path, transport, journaling
):
    """Hang up: the sessions pane still listed the page's session live until its next 5 s refresh (the
    refresh at hang-up came before the engine had torn the session down). It asks again until the
    engine no longer lists it: "no live session" (journaling on: the journal as "ended, this page")."""
    server = await engine(journal_dir=str(tmp_path / "journal") if journaling else None)
    url = server.http_url
    async with _console(chromium_path, fake_mic_wav, url, NO_PERIODIC_REFRESH) as (page, problems):
        await _go_live(page, transport=transport, turn_detection="none")
        mine = page.locator("#sessions li", has_text="(this page)")
        await expect(mine).to_have_count(1)
        await page.click("#hangup")
        await expect(page.locator("#sessions li", has_text="no live session")).to_have_count(1)
        await expect(mine).to_have_count(0)
        if journaling:
            ended = page.locator("#sessions li", has_text="(ended, this page)")
            await expect(ended).to_have_count(1)
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_fault_picker_follows_the_transport(engine, chromium_path, fake_mic_wav):
    """The fault picker opened on refuse_upgrade, which acts on WebSocket only, with WebRTC the transport
    picked. It opens on a kind that acts on the transport picked, marks the kinds of the other transport
    "(… only)", and a transport change moves it off a kind of the old transport only (a kind for both
    stays)."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        kind = page.locator("#fault-kind")
        option = lambda name: page.locator(f"#fault-kind option[value={name}]")  # noqa: E731
        await expect(option("refuse_upgrade")).to_have_text("refuse_upgrade (WebSocket only)")
        await expect(page.locator("#transport")).to_have_value("webrtc")
        await expect(kind).not_to_have_value("refuse_upgrade")
        assert await page.evaluate("selectedFault().transport") in (None, "webrtc")
        await expect(page.locator("#fault-doc")).not_to_contain_text("WebSocket only")
        await expect(option("media_stall")).to_have_text("media_stall")
        await page.select_option("#fault-kind", "media_stall")
        await page.fill("#fault-params", "after_ms=0")
        await page.select_option("#transport", "websocket")
        await expect(option("media_stall")).to_have_text("media_stall (WebRTC only)")
        await expect(option("refuse_upgrade")).to_have_text("refuse_upgrade")
        await expect(kind).to_have_value("refuse_upgrade")
        await expect(page.locator("#fault-params")).to_have_value("")  # media_stall's, gone with it
        await expect(page.locator("#fire-fault")).to_have_text("Arm for the next connect")
        await page.select_option("#fault-kind", "dead_peer")
        await page.fill("#fault-params", "after_events=0")
        await page.select_option("#transport", "webrtc")
        await expect(kind).to_have_value("dead_peer")
        await expect(page.locator("#fault-params")).to_have_value("after_events=0")
        await expect(option("refuse_upgrade")).to_have_text("refuse_upgrade (WebSocket only)")
        assert not problems, problems


async def test_console_refused_voice_change_says_why_beside_the_picker(engine, chromium_path, fake_mic_wav):
    """A new voice after the assistant has spoken is refused: the picker went back to the session's voice
    and the reason was only an error among the events. It shows beside the picker, in the error's own
    words, until the next change of voice (or the next session)."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await page.select_option("#voice", "ash")
        await _go_live(page, transport="websocket", turn_detection="none")
        why = page.locator("#voice-error")
        await expect(why).to_be_hidden()
        await page.fill("#text-input", "hello there")
        await page.click("#send-text")
        await expect(page.locator("#events li", has_text="response.done").first).to_be_attached(
            timeout=30_000
        )
        await page.select_option("#voice", "verse")
        await expect(why).to_have_text(
            "The voice stays ash: Cannot update a conversation's voice if assistant audio is present."
        )
        await expect(why).to_be_visible()
        await expect(page.locator("#voice")).to_have_value("ash")
        # The next change clears it at once (the engine refuses this one too: it says so again).
        cleared = await page.evaluate(
            "() => { const v = document.getElementById('voice'); v.value = 'coral';"
            " v.dispatchEvent(new Event('change'));"
            " return document.getElementById('voice-error').textContent; }"
        )
        assert cleared == ""
        await expect(why).to_contain_text("The voice stays ash")
        await page.click("#hangup")
        await _go_live(page)
        await expect(why).to_be_hidden()
        await page.select_option("#voice", "verse")  # before the assistant speaks: taken
        await expect(page.locator("#events li", has_text="session.updated")).not_to_have_count(0)
        await expect(page.locator("#voice")).to_have_value("verse")
        await expect(why).to_be_hidden()
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems


async def test_console_says_an_arming_for_the_next_connect_was_used(engine, chromium_path, fake_mic_wav):
    """refuse_call armed for the next connect: the connect failed with its 503 and the faults pane still
    said "armed refuse_call… for the next connection: press Connect", though the connect had used it up
    (the next Connect went live). After a connect it says whether anything is still armed: a connect
    refused before the call (an empty API key) leaves it armed."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        result = page.locator("#fault-result")
        await page.select_option("#fault-kind", "refuse_call")
        await page.click("#fire-fault")
        await expect(result).to_contain_text("press Connect")
        await page.fill("#api-key", "")  # refused before it reaches the call: the arming waits on
        await page.click("#connect")
        await expect(page.locator("#connect-error")).to_contain_text("API key field is empty")
        await expect(result).to_have_text("still armed for the next connection: refuse_call:status=503")
        await page.fill("#api-key", "sk-console")
        await page.click("#connect")
        await expect(page.locator("#connect-error")).to_contain_text("503")
        await expect(result).to_have_text(
            "refuse_call:status=503 was used by this connect: nothing is armed now"
        )
        await _go_live(page)
        await expect(result).to_be_empty()
        await page.click("#hangup")
        await server.wait_until_idle()
        assert not problems, problems
