"""The console across an engine restarted with other flags, its close codes in words, the "not answering"
alert on a 400 px window, and the WebRTC reply track's silence told from reply audio."""

from __future__ import annotations

import pytest
from playwright.async_api import async_playwright, expect

from mockengine.brain.selection import load_library
from tests.integration.browser.conftest import chromium_args
from tests.integration.browser.test_console import _console, _go_live

pytestmark = pytest.mark.models

KIOSK = """
name: kiosk
rules:
  - id: greet
    when: {heard_contains: hello}
    say: Hello from the kiosk.
"""


async def test_console_rereads_its_choices_from_a_restarted_engine(
    restartable_engine, chromium_path, fake_mic_wav, tmp_path
):
    """console.json was read once, at load: an engine restarted under the open page with another
    scenarios directory, journaling and DTX still showed the old engine's scenarios, "journaling off"
    and watched the media as without DTX. The page reads it again when the engine comes back (and at
    each connect) and keeps the picks that still exist."""
    engine = restartable_engine
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "kiosk.yaml").write_text(KIOSK)
    kiosk = load_library(None, [str(tmp_path / "scenarios")])
    await engine.start()
    async with _console(chromium_path, fake_mic_wav, engine.http_url) as (page, problems):
        await expect(page.locator("#journal-id")).to_contain_text("--journal-dir")
        scenario = await page.locator("#scenario option").nth(1).get_attribute("value")
        assert scenario and scenario != "kiosk"
        await page.select_option("#scenario", scenario)
        await page.select_option("#voice", "ash")
        await _go_live(page, transport="websocket", turn_detection="none")
        await engine.stop()
        await expect(page.locator("#status")).to_contain_text("ended", timeout=15_000)
        await expect(page.locator("#sessions")).to_contain_text("does not answer", timeout=10_000)
        await engine.start(scenarios=kiosk, journal_dir=str(tmp_path / "journal"), webrtc_dtx=True)
        # Back: the new engine's choices, without a reload and before any connect.
        await expect(page.locator("#scenario option[value=kiosk]")).to_be_attached(timeout=10_000)
        await expect(page.locator("#journal-id")).not_to_contain_text("--journal-dir")
        assert await page.evaluate("state.info.webrtc_dtx") is True
        # The picks that still exist are kept.
        await expect(page.locator("#scenario")).to_have_value(scenario)
        await expect(page.locator("#voice")).to_have_value("ash")
        await expect(page.locator("#turn-detection")).to_have_value("none")
        await expect(page.locator("#transport")).to_have_value("websocket")
        await page.select_option("#scenario", "kiosk")
        # A restart quicker than the sessions' 5 s refresh: Connect reads console.json first.
        await engine.stop()
        await engine.start()
        await page.click("#connect")
        await expect(page.locator("#scenario option[value=kiosk]")).to_have_count(0)
        await expect(page.locator("#journal-id")).to_contain_text("--journal-dir")
        # The scenario picked is gone: the page says so instead of connecting to another one.
        await expect(page.locator("#connect-error")).to_contain_text("kiosk")
        await expect(page.locator("#status")).not_to_have_text("live")
        await _go_live(page)
        await page.click("#hangup")
        assert not problems, problems


async def test_console_close_code_in_words_in_the_header(engine, chromium_path, fake_mic_wav):
    """The header said "ended: websocket closed 1006", a bare code to look up: it says what it means."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport="websocket", turn_detection="none")
        await page.click("#kill")
        status = page.locator("#status")
        await expect(status).to_contain_text("ended: websocket closed", timeout=15_000)
        text = await status.text_content()
        code = int(text.split("closed ")[1][:4])
        meaning = {1000: "normal", 1001: "going away", 1006: "lost without a close", 1011: "server error"}
        assert meaning[code] in text, text
        await server.wait_until_idle(60)  # a loaded 2-core machine tears a session down slowly
        assert not problems, problems


async def test_console_not_answering_alert_on_a_narrow_window(
    engine, chromium_path, fake_mic_wav, reports_dir
):
    """The "engine not answering" alert in a 400 px wide window (a phone, a side-by-side window): the
    header's status and media lines, the alert's text and its buttons overlap nothing and stay inside
    the window; Reconnect is reachable and works. Screenshot: reports/console-not-answering-400px.png."""
    server = await engine()
    async with async_playwright() as p:
        args = [*chromium_args(fake_mic_wav), "--window-size=400,900"]
        browser = await p.chromium.launch(executable_path=chromium_path, args=args)
        try:
            # --window-size alone: headless chromium does not make a window narrower than 500 px.
            page = await browser.new_page(viewport={"width": 400, "height": 900})
            problems: list[str] = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            await page.goto(f"{server.http_url}/")
            assert await page.evaluate("window.innerWidth") == 400
            await _go_live(page, transport="webrtc", turn_detection="none")
            await page.select_option("#fault-kind", "dead_peer")
            await page.fill("#fault-params", "after_events=0")
            await page.click("#fire-fault")
            await expect(page.locator("#fault-result")).to_contain_text("armed dead_peer")
            await page.fill("#text-input", "Hello there, are you still with me?")
            await page.press("#text-input", "Enter")
            await expect(page.locator("#status")).to_have_text("not answering", timeout=8_000)
            await expect(page.locator("#engine-alert")).to_be_visible()
            await expect(page.locator("#media")).not_to_be_empty()
            await page.evaluate("window.scrollTo(0, 0)")
            await page.screenshot(path=str(reports_dir / "console-not-answering-400px.png"), full_page=True)
            width = await page.evaluate("window.innerWidth")
            assert await page.evaluate("document.documentElement.scrollWidth") <= width
            boxes = {}
            for sel in (
                "header h1",
                "#media",
                "#status",
                "#engine-alert",
                "#engine-alert-text",
                "#reconnect",
                "#alert-hangup",
            ):
                box = await page.locator(sel).bounding_box()
                assert box, sel
                assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (sel, box, width)
                boxes[sel] = box
            for i, a in enumerate(["header h1", "#media", "#status"]):
                for b in ["header h1", "#media", "#status"][i + 1 :]:
                    assert not _overlap(boxes[a], boxes[b]), (a, boxes[a], b, boxes[b])
            for a, b in [
                ("#engine-alert-text", "#reconnect"),
                ("#engine-alert-text", "#alert-hangup"),
                ("#reconnect", "#alert-hangup"),
            ]:
                assert not _overlap(boxes[a], boxes[b]), (a, boxes[a], b, boxes[b])
            for sel in ("#engine-alert-text", "#reconnect", "#alert-hangup"):
                inner, outer = boxes[sel], boxes["#engine-alert"]
                assert (
                    outer["x"] <= inner["x"]
                    and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
                )
            # Nothing covers Reconnect: the element at its centre is the button itself.
            hit = await page.locator("#reconnect").evaluate(
                "b => { const r = b.getBoundingClientRect();"
                " return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === b; }"
            )
            assert hit
            # Each pill on one line ("not answering" broke in two beside a wrapped title).
            assert boxes["#status"]["height"] < 30, boxes["#status"]
            # Scrolled down (to the faults, the events): the alert and its Reconnect stay in sight.
            await page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            assert await page.locator("#reconnect").evaluate(
                "b => { const r = b.getBoundingClientRect();"
                " return r.top >= 0 && r.bottom <= window.innerHeight"
                " && document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === b; }"
            )
            await page.screenshot(path=str(reports_dir / "console-not-answering-400px-scrolled.png"))
            await page.click("#reconnect")
            await expect(page.locator("#status")).to_have_text("live", timeout=15_000)
            await expect(page.locator("#engine-alert")).to_be_hidden()
            await page.click("#hangup")
            await server.wait_until_idle(60)
            assert not problems, problems
        finally:
            await browser.close()


def _overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"] - 0.5
        and b["x"] < a["x"] + a["width"] - 0.5
        and a["y"] < b["y"] + b["height"] - 0.5
        and b["y"] < a["y"] + a["height"] - 0.5
    )


async def test_console_webrtc_media_tells_silence_from_reply_audio(engine, chromium_path, fake_mic_wav):
    """Over WebRTC the engine sends silence on the reply track between replies and under dead_peer: the
    header said "reply audio: receiving" beside "not answering". It says "receiving reply audio" while a
    reply is heard on the track and "receiving silence" otherwise."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport="webrtc", turn_detection="none")
        media = page.locator("#media")
        await expect(media).to_contain_text("receiving silence")
        await page.fill("#text-input", "Tell me about the weather today please.")
        await page.press("#text-input", "Enter")
        await expect(media).to_contain_text("receiving reply audio", timeout=20_000)
        await expect(page.locator("#events li", has_text="output_audio_buffer.stopped").first).to_be_attached(
            timeout=30_000
        )
        await expect(media).to_contain_text("receiving silence")
        await page.select_option("#fault-kind", "dead_peer")
        await page.fill("#fault-params", "after_events=0")
        await page.click("#fire-fault")
        await page.fill("#text-input", "Hello there, are you still with me?")
        await page.press("#text-input", "Enter")
        await expect(page.locator("#status")).to_have_text("not answering", timeout=8_000)
        await page.wait_for_timeout(1_500)
        await expect(media).to_contain_text("receiving silence")
        assert "reply audio" not in await media.text_content()
        await page.click("#hangup")
        await server.wait_until_idle(60)
        assert not problems, problems


async def test_console_session_clicked_without_journaling_asks_nothing(engine, chromium_path, fake_mic_wav):
    """Journaling off, a live session clicked in the sessions pane: the page asked for its journal and
    the 404 went to the browser's console as an error, each click. It says journaling is off, unasked."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        errors: list[str] = []
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        await _go_live(page, transport="websocket", turn_detection="none")
        row = page.locator("#sessions li", has_text="(this page)")
        await expect(row).to_have_count(1)
        await row.locator("button").click()
        await expect(page.locator("#journal-id")).to_contain_text("--journal-dir")
        await page.wait_for_timeout(500)
        assert not errors, errors
        await page.click("#hangup")
        await server.wait_until_idle(60)  # a loaded 2-core machine tears a session down slowly
        assert not problems, problems


async def test_console_fault_result_of_the_last_session_goes_with_it(engine, chromium_path, fake_mic_wav):
    """Kill connection said "connection dropped" under the faults, and still said it beside the next
    session, as if about that one. A new session starts with no fault result."""
    server = await engine()
    async with _console(chromium_path, fake_mic_wav, server.http_url) as (page, problems):
        await _go_live(page, transport="websocket", turn_detection="none")
        await page.click("#kill")
        await expect(page.locator("#fault-result")).to_have_text("connection dropped")
        await expect(page.locator("#status")).to_contain_text("ended", timeout=15_000)
        await _go_live(page)
        await expect(page.locator("#fault-result")).to_be_empty()
        await page.click("#hangup")
        await server.wait_until_idle(60)  # a loaded 2-core machine tears a session down slowly
        assert not problems, problems
