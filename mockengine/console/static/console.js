// The mockengine console (docs/console.md). Plain JavaScript, no build step, nothing from a CDN.
"use strict";

const $ = (id) => document.getElementById(id);
const A = window.consoleAudio;
const TIMELINE_S = 30;          // seconds of input level the timeline shows
const MAX_EVENTS_SHOWN = 400;
// A long session's transcript and tool calls: the newest are kept (the page slowed as they grew).
const MAX_LINES_SHOWN = 500;

const state = {
  attempt: null,       // the current connection: {close()}; events of an older one are ignored
  transport: null,     // {send(event), close()}
  sessionId: null,
  context: null,       // AudioContext
  stream: null,        // the microphone
  meter: null,
  capture: null,       // WebSocket: microphone → appends
  player: null,        // WebSocket: reply playback
  levels: [],          // [{t, level}]
  replyMeter: null,    // WebRTC: the reply track's level
  replyLevels: [],     // [{t, level}]
  marks: [],           // [{t, kind}]
  replyPlaying: [],    // [{from, to}]
  assistant: new Map(),  // item id → <li> of the assistant's transcript
  playingItem: null,
  eventCount: 0,
  info: null,
  journal: null,       // the live session's journal directory (sess_…, or sess_….2 when a seeded id was taken)
  pastJournals: [],    // this page's ended sessions' journals, newest first: they stay a click away
  handle: null,        // the live session's handle (sess_…~n): the control endpoints act on it alone
  pastHandles: [],     // this page's ended sessions' handles
};

// ---- set-up -----------------------------------------------------------------------------------

// What to pick from. Without it (the engine not answering, or a 403 from another machine) the page says
// why and still connects with the defaults; an engine that did not answer is asked again every 5 s.
async function loadInfo() {
  let answer;
  try {
    answer = await request("/mockengine/console.json");
  } catch (error) {
    $("connect-error").textContent = String(error.message || error);
    if (!state.info) fill($("scenario"), ["(default)"]);
    setTimeout(loadInfo, 5000);
    return;
  }
  if (!answer.ok) {
    const body = await answer.json().catch(() => ({ error: { message: `HTTP ${answer.status}` } }));
    $("connect-error").textContent = `console.json ${answer.status}: ${body.error.message}`;
    fill($("scenario"), ["(default)"]);
    fill($("voice"), ["alloy"]);
    fill($("turn-detection"), ["server_vad", "semantic_vad", "none"]);
    return;
  }
  const lost = showInfo(await answer.json());
  if (!state.attempt) $("connect-error").textContent = lost ? lostScenario(lost) : "";
  refreshSessions();
}

// console.json again: an engine restarted under the open page with other flags (--scenarios-dir,
// --journal-dir, --webrtc-dtx) offers other choices, and the page showed the old engine's until reloaded.
// Read when the engine answers again after not answering, and at each Connect (a restart quicker than
// the sessions' 5 s refresh is not seen otherwise). Returns the scenario picked that the engine no
// longer has, or null; an engine not answering is left to the connect to report.
async function rereadInfo() {
  let answer;
  try {
    answer = await request("/mockengine/console.json");
  } catch (error) {
    return null;
  }
  if (!answer.ok) return null;
  return showInfo(await answer.json());
}

function lostScenario(name) {
  return `the scenario "${name}" is not on this engine any more (restarted with other scenarios?): `
    + "pick another and connect again";
}

// The pickers from console.json, each keeping its pick where the engine still offers it. Returns the
// scenario picked that is gone (the picker is back at "(default)"), or null.
function showInfo(info) {
  const before = state.info;
  state.info = info;
  if (before && before.engine !== info.engine) {
    // Another start of the engine: it numbers its handles from ~1 again (an ended session's handle
    // would be taken for the new session's).
    state.pastHandles = [];
  }
  $("journal-id").textContent = info.journal
    ? ($("journal-id").textContent.includes("--journal-dir") ? "" : $("journal-id").textContent)
    : "off: start the engine with --journal-dir DIR";
  const lost = fill($("scenario"), ["(default)", ...info.scenarios]);
  fill($("voice"), info.voices);
  fill($("turn-detection"), info.turn_detection);
  const kind = $("fault-kind").value;
  fill($("fault-kind"), info.faults.map((f) => f.kind));
  $("fault-kind").onchange = showFaultDoc;
  fitFaultKinds(!kind);
  // The parameters typed stay while their kind is still the one picked.
  showFaultDoc($("fault-kind").value === kind);
  return lost;
}

// The fault kinds against the transport picked: a kind that acts on the other transport only is marked
// so in the picker ("refuse_upgrade (WebSocket only)"). With ``moveOff`` (the first fill, a transport
// change) a pick that does not act on the transport moves to the first kind that does: the picker
// opened on refuse_upgrade, WebSocket-only, with WebRTC picked. A pick made by hand stays (the fault's
// text and Fire say it would not act).
function fitFaultKinds(moveOff) {
  if (!state.info) return;
  const transport = $("transport").value;
  const applies = (fault) => !fault.transport || fault.transport === transport;
  const select = $("fault-kind");
  for (const option of select.options) {
    const fault = state.info.faults.find((f) => f.kind === option.value);
    const other = fault && !applies(fault);
    option.textContent = other ? `${fault.kind} (${TRANSPORT_NAMES[fault.transport]} only)` : option.value;
    option.classList.toggle("other-transport", Boolean(other));
  }
  const picked = selectedFault();
  if (moveOff && picked && !applies(picked)) {
    const first = state.info.faults.find(applies);
    if (first) { select.value = first.kind; showFaultDoc(); }
  }
}

// The select's options, the current pick kept if it is among them; returns the pick that is not (or
// null).
function fill(select, values) {
  const picked = select.value;
  select.innerHTML = "";
  for (const value of values) select.append(new Option(value, value));
  if (!picked) return null;
  if (values.includes(picked)) { select.value = picked; return null; }
  return picked;
}

function selectedFault() {
  return state.info.faults.find((f) => f.kind === $("fault-kind").value);
}

function showFaultDoc(keepParams) {
  const fault = selectedFault();
  const params = Object.entries(fault.params).map(([k, v]) => `${k}=${v}`).join(",");
  const only = fault.transport ? ` — ${TRANSPORT_NAMES[fault.transport]} only` : "";
  $("fault-doc").textContent = fault.doc + (params ? ` (defaults: ${params})` : "") + only;
  if (keepParams !== true) $("fault-params").value = "";
  updateFaultButton();
}

// A fault that acts while a connection is made is armed for the next one (any time); the others are
// fired on the live session.
function updateFaultButton() {
  const fault = state.info && selectedFault();
  if (!fault) return;
  $("fire-fault").textContent = fault.at_connect ? "Arm for the next connect" : "Fire on this session";
  $("fire-fault").disabled = !fault.at_connect && !state.transport;
}

function setStatus(text, kind) {
  $("status").textContent = text;
  $("status").dataset.state = kind || text;
}

// ---- connecting -------------------------------------------------------------------------------

// The tool the page can offer, so that the tool calls pane has something to show ("what's the weather
// in Paris?"); the page answers every call with {"ok": true}.
const WEATHER_TOOL = {
  type: "function",
  name: "get_weather",
  description: "Get the current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

function sessionConfig() {
  const scenario = $("scenario").value;
  const turn = $("turn-detection").value;
  return {
    type: "realtime",
    model: scenario === "(default)" ? "gpt-realtime" : `mockengine-${scenario}`,
    ...($("offer-tool").checked ? { tools: [WEATHER_TOOL], tool_choice: "auto" } : {}),
    audio: {
      input: {
        transcription: { model: "whisper-1" },
        turn_detection: turn === "none" ? null : { type: turn },
      },
      output: { voice: $("voice").value },
    },
  };
}

// fetch, with "the engine does not answer" instead of the browser's bare "Failed to fetch".
async function request(url, options) {
  try {
    return await fetch(url, options);
  } catch (error) {
    throw new Error(`the engine at ${location.host} does not answer (is it running?)`);
  }
}

async function mintSecret(session) {
  // fetch throws on a header value outside ISO-8859-1 before it sends anything (a "…" or a curly quote
  // pasted with the key), and request() took that for an engine that does not answer.
  const odd = [...$("api-key").value].find((c) => c.codePointAt(0) > 0xff);
  if (odd) {
    const code = `U+${odd.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    throw new Error(`the API key field holds "${odd}" (${code}), which an HTTP header cannot carry: `
      + "keys are plain ASCII (pasted from a document?)");
  }
  const answer = await request("/v1/realtime/client_secrets", {
    method: "POST",
    headers: { Authorization: `Bearer ${$("api-key").value}`, "Content-Type": "application/json" },
    body: JSON.stringify({ session }),
  });
  const text = await answer.text();
  let body = null;
  try { body = JSON.parse(text); } catch (error) { /* not JSON: shown as text */ }
  if (!answer.ok) {
    let message = `client_secrets ${answer.status}: ${body && body.error ? body.error.message : text}`;
    if (answer.status === 401 && !$("api-key").value.trim()) {
      // Any non-empty key opens an engine started without --api-key: naming --api-key here sent users
      // looking for a flag the engine was never given.
      message += " — the API key field is empty: put a key in it (any key, unless the engine was started with --api-key).";
    } else if (answer.status === 401) {
      message += " — this engine checks API keys (serve --api-key): put one of its keys in the API key field.";
    }
    throw new Error(message);
  }
  return body.value;
}

// Voice and turn detection changed during a session go to the engine as a session.update (the engine
// refuses a new voice once the assistant has spoken, as the real service does: its error shows beside
// the voice picker and in the events); transport and scenario (the model) are fixed for a session.
function updateSession(part) {
  if (!state.transport) return;
  state.transport.send({ type: "session.update", session: { type: "realtime", ...part } });
}

function lockSessionChoices(locked) {
  for (const id of ["transport", "scenario", "offer-tool"]) {
    $(id).disabled = locked;
    $(id).title = locked ? "fixed for this session: hang up to change it" : "";
  }
}

async function connect() {
  $("connect").disabled = true;
  lockSessionChoices(true);
  $("connect-error").textContent = "";
  $("voice-error").textContent = "";  // about the last session's voice
  setStatus("connecting");
  const attempt = state.attempt = { close: () => {} };
  const created = new Promise((resolve) => { attempt.created = resolve; });
  // Handlers of this connection end it only while it is the current one (an old peer connection's
  // late "failed" must not end the next session).
  const end = (why, meaning) => { if (state.attempt === attempt) ended(why, meaning); };
  try {
    // The engine may have been restarted with other choices since the page read them.
    const lost = await rereadInfo();
    if (lost) throw new Error(lostScenario(lost));
    const session = sessionConfig();
    const secret = await mintSecret(session);
    state.context = new AudioContext();
    // Without a microphone (none, or not allowed) the session still goes on: type to it.
    try {
      state.stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      state.meter = new A.LevelMeter(state.context, state.stream);
    } catch (error) {
      $("connect-error").textContent = `no microphone (${error.message || error.name}): type to the `
        + "participant below, or allow the microphone for this page and connect again";
    }
    const open = $("transport").value === "webrtc" ? openWebRtc : openWebSocket;
    // Connected means session.created has arrived: a handshake that hangs after the upgrade (or the
    // call's answer) is given up after 8 s too.
    const opening = open(secret, session, attempt, end).then(async (transport) => {
      attempt.transport = transport;
      await created;
      return transport;
    });
    state.transport = await withTimeout(opening, 8000, "gave up after 8 s without session.created");
    if (state.attempt !== attempt) return;  // ended while connecting
    // Live once the page can act on the session, not at session.created: over WebSocket that came while
    // the microphone's worklet was still loading, and a setting picked then was dropped (no transport).
    setStatus("live");
    // A fault's result is about the session it named ("connection dropped", "armed … on sess_…~1"),
    // or an arming this connect has just used: beside the new session it read as this one's.
    $("fault-result").textContent = "";
    showArmedLeft();
    watchEngine(attempt);
    for (const id of ["hangup", "mute", "text-input", "send-text", "kill"]) $(id).disabled = false;
    updateTalkButton();
    updateFaultButton();
    refreshSessions();  // now that it knows its transport: "(this page)", and a WebSocket session's handle
  } catch (error) {
    if (state.attempt !== attempt) return;
    const message = String(error.message || error);
    setStatus("failed");
    $("connect-error").textContent = message;
    addEvent({ type: "error", error: { message } });
    ended("failed");
    showArmedLeft();
  }
}

function withTimeout(promise, ms, message) {
  return Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(message)), ms))]);
}

async function openWebRtc(secret, session, attempt, end) {
  const pc = new RTCPeerConnection();
  attempt.close = () => pc.close();
  if (state.stream) {
    for (const track of state.stream.getAudioTracks()) pc.addTrack(track, state.stream);
  } else {
    pc.addTransceiver("audio", { direction: "sendrecv" });  // no microphone: the reply still plays
  }
  pc.ontrack = (e) => {
    const stream = e.streams[0] || new MediaStream([e.track]);
    $("remote-audio").srcObject = stream;
    // What the reply track carries, drawn on the timeline: "reply playing" is what the engine says it
    // sends, this is what arrives.
    if (state.context && state.attempt === attempt) state.replyMeter = new A.LevelMeter(state.context, stream);
  };
  const channel = pc.createDataChannel("oai-events");
  // Listened for from the channel's creation: its "open" can fire before setRemoteDescription's promise
  // resumes this function (ICE, DTLS and SCTP run once the answer is applied, and the pion plane's
  // sidecar completes them within milliseconds). A handler set only after that await missed it: the
  // call ran, session.created came, and the page gave up 8 s later (1 to 3 connects in 50 on pion).
  const opened = new Promise((resolve) => channel.addEventListener("open", resolve, { once: true }));
  channel.onmessage = (e) => onServerEvent(JSON.parse(e.data));
  channel.onclose = () => end("data channel closed", "the engine closed the call's data channel: it ended the call, "
    + "or was shut down or restarted");
  pc.onconnectionstatechange = () => {
    if (["failed", "closed"].includes(pc.connectionState)) {
      end(`connection ${pc.connectionState}`, "the call's network path failed: the engine stopped, or cannot be reached");
    }
  };
  await pc.setLocalDescription(await pc.createOffer());
  const answer = await request("/v1/realtime/calls", {
    method: "POST",
    headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/sdp" },
    body: pc.localDescription.sdp,
  });
  const body = await answer.text();
  if (answer.status !== 201) {
    // The error's message, as for client_secrets (the whole JSON body was shown).
    let message = body;
    try { message = JSON.parse(body).error.message || body; } catch (error) { /* not JSON: shown as text */ }
    throw new Error(`calls ${answer.status}: ${message}`);
  }
  state.handle = answer.headers.get("X-Mockengine-Session-Handle");
  await pc.setRemoteDescription({ type: "answer", sdp: body });
  await opened;
  watchMedia(pc, attempt);
  return {
    send: (event) => channel.readyState === "open" && channel.send(JSON.stringify(event)),
    clearOutput: () => channel.send(JSON.stringify({ type: "output_audio_buffer.clear" })),
    close: () => pc.close(),
    mute: (muted) => state.stream && state.stream.getAudioTracks().forEach((t) => { t.enabled = !muted; }),
  };
}

async function openWebSocket(secret, session, attempt, end) {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/realtime?model=${encodeURIComponent(session.model)}`;
  const ws = new WebSocket(url, ["realtime", `openai-insecure-api-key.${secret}`]);
  state.player = new A.PcmPlayer(state.context);
  ws.onmessage = (e) => onServerEvent(JSON.parse(e.data));
  attempt.close = () => ws.close();
  // The reason, if any, came as an error first; else what the code means, in words.
  ws.onclose = (e) => {
    const words = closeWords(e.code);
    end(`websocket closed ${e.code}${words ? ` (${words})` : ""}`, closeMeaning(e.code, e.reason));
  };
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = () => reject(new Error("the engine refused the WebSocket (the browser does not tell the HTTP status: see the engine's log)")); });
  const send = (event) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(event));
  if (state.stream) {
    const capture = await A.PcmCapture.open(state.context, state.stream, (bytes) =>
      send({ type: "input_audio_buffer.append", audio: A.toBase64(bytes) }));
    if (state.attempt !== attempt) { capture.stop(); throw new Error("ended while connecting"); }
    state.capture = capture;
  }
  return {
    send,
    clearOutput: () => bargeIn(),
    close: () => ws.close(),
    mute: (muted) => { if (state.capture) state.capture.muted = muted; },
  };
}

// What a WebSocket close code means to a person: a few words for the status in the header
// ("ended: websocket closed 1006 (lost without a close)": the bare code had to be looked up) and a
// sentence for under Connect. The codes the engine closes a session with, and 1006, which no one sends:
// the browser's word for a connection that ended without a close.
const CLOSE_CODES = {
  1000: ["normal", "the engine closed the session (1000, normal)"],
  1001: ["going away", "the engine went away: it was shut down or restarted (1001)"],
  1006: ["lost without a close", "the connection dropped without a close: the engine stopped, was shut "
    + "down or restarted, or the network failed (1006)"],
  1008: ["policy", "the engine closed it under one of its limits (1008, policy)"],
  1009: ["message too big", "an event was larger than the engine takes (1009, message too big)"],
  1011: ["server error", "the engine hit an error (1011, server error): its log says which"],
};

// The few words for a close code: the table's, "application's own" for 4000–4999 (codes the engine
// does not use for sessions: a fault's choice), else none.
function closeWords(code) {
  if (CLOSE_CODES[code]) return CLOSE_CODES[code][0];
  if (code >= 4000 && code <= 4999) return "application's own";
  return "";
}

// The sentence for under Connect, with the engine's reason when the close carried one.
function closeMeaning(code, reason) {
  const meaning = CLOSE_CODES[code] ? CLOSE_CODES[code][1] : `the engine closed the connection (${code}${closeWords(code) ? `, ${closeWords(code)}` : ""})`;
  return reason ? `${meaning}: "${reason}"` : meaning;
}

function hangup() {
  ended("hung up");
}

// The connection is over (hung up, failed, or ended by the engine): close it (a peer connection the
// engine ended is still open on this side), release the microphone, and make the page ready to connect.
function ended(why, meaning) {
  const watch = state.watch;
  state.watch = null;
  showNotAnswering(null);
  // Its journal directory, as the engine listed it while live (the session id names the first of a
  // seeded engine's sessions, which share ids, if the list never came).
  const journal = state.journal || (state.transport && state.sessionId);
  if (journal && !state.pastJournals.includes(journal)) state.pastJournals.unshift(journal);
  state.journal = null;
  const handle = state.handle;
  if (state.handle) state.pastHandles.unshift(state.handle);
  state.handle = null;
  const attempt = state.attempt;
  state.attempt = null;
  if (attempt) attempt.close();
  state.transport = null;
  if (state.capture) state.capture.stop();
  if (state.meter) state.meter.stop();
  if (state.replyMeter) state.replyMeter.stop();
  setMedia("idle", "");
  if (state.stream) state.stream.getTracks().forEach((t) => t.stop());
  if (state.context) state.context.close();
  closeReplySpan(performance.now() / 1000);
  state.capture = state.meter = state.replyMeter = state.stream = state.player = state.context = null;
  if ($("status").dataset.state !== "failed") setStatus(`ended: ${why}`, "idle");
  // An engine that ends a session says why first (session_expired's error, then the close): the reason
  // goes under Connect, not only among the events.
  const last = state.lastError;
  state.lastError = null;
  // A kill first: an error just before it (any refused event) was named as the engine's reason.
  if (meaning && performance.now() - (state.killedAt || -1e9) < 5000) {
    $("connect-error").textContent = "Kill connection dropped it — Connect starts a new session";
  } else if (last && why !== "hung up" && why !== "failed" && performance.now() / 1000 - last.at < 3) {
    $("connect-error").textContent = `the engine ended the session: ${last.message}`;
  } else if (meaning) {
    $("connect-error").textContent = `${meaning} — Connect starts a new session`;
  }
  if (watch && watch.silent && why !== "hung up") {
    // The close that came at last (the engine's own pings unanswered) is not the news: the silence was.
    const quiet = ((performance.now() - watch.heard) / 1000).toFixed(0);
    $("connect-error").textContent = `the engine had stopped answering ${quiet} s before the connection ended (${why})`;
  }
  $("connect").disabled = false;
  lockSessionChoices(false);
  for (const id of ["hangup", "mute", "text-input", "send-text", "kill"]) $(id).disabled = true;
  state.talking = false;
  state.responding = null;
  state.muted = false;  // the next session's microphone starts unmuted
  updateTalkButton();
  updateFaultButton();
  $("mute").textContent = "Mute mic";
  refreshUntilGone(handle, journal);
}

// The page's own session has just ended: the engine tears it down a moment later (a WebRTC call's close,
// a WebSocket's closing handshake), so a refresh right away still listed it live, and it stayed listed
// until the next 5 s refresh. Asked again every REFRESH_GONE_MS until the engine no longer lists it
// live, for REFRESH_GONE_FOR_MS at most.
const REFRESH_GONE_MS = 250;
const REFRESH_GONE_FOR_MS = 5000;

async function refreshUntilGone(handle, journal) {
  const until = performance.now() + REFRESH_GONE_FOR_MS;
  for (;;) {
    const live = await refreshSessions();
    if (!live || (!live.handles.includes(handle) && !live.journals.includes(journal))) return;
    if (performance.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, REFRESH_GONE_MS));
  }
}

// ---- the call's media (WebRTC) ----------------------------------------------------------------

// A call whose media stopped (a dead network path, the media_stall fault) keeps its connection and data
// channel: nothing else on the page would tell, and replies "play" that nobody hears. The reply track's
// received packets (getStats, every 500 ms) say it: none for 1.5 s is a stall. The engine sends a silent
// packet every 20 ms between replies, except with --webrtc-dtx (console.json's webrtc_dtx), which sends
// nothing then on purpose: there only a reply playing without packets is a stall.
const STALL_MS = 1500;
// Packets arriving are not a reply arriving: between replies, and under dead_peer, the engine sends
// silence on the track, and "receiving" beside "not answering" read as a contradiction. The reply
// track's level says which: any above HEARD_LEVEL (RMS, 0–1; decoded silence is ~0, speech ~0.02–0.2)
// in the last HEARD_MS is reply audio.
const HEARD_LEVEL = 0.003;
const HEARD_MS = 1000;

function heard() {
  if (!state.replyMeter) return false;
  const since = performance.now() / 1000 - HEARD_MS / 1000;
  const now = state.replyMeter.level();
  return now > HEARD_LEVEL || state.replyLevels.some((p) => p.t >= since && p.level > HEARD_LEVEL);
}

function watchMedia(pc, attempt) {
  let packets = -1;
  let changed = performance.now();
  let stalled = false;
  const dtx = Boolean(state.info && state.info.webrtc_dtx);
  const timer = setInterval(async () => {
    if (state.attempt !== attempt || pc.connectionState === "closed") { clearInterval(timer); return; }
    let received = 0;
    try {
      (await pc.getStats()).forEach((s) => {
        if (s.type === "inbound-rtp" && s.kind === "audio") received += s.packetsReceived || 0;
      });
    } catch (error) {
      return;  // closed meanwhile
    }
    if (state.attempt !== attempt) return;
    const now = performance.now();
    if (received !== packets) { packets = received; changed = now; }
    const replying = state.replyPlaying.some((span) => span.to === null);
    const quiet = now - changed;
    const wasStalled = stalled;
    stalled = quiet >= STALL_MS && (!dtx || replying || stalled);
    if (stalled) {
      setMedia("stalled", `media stalled: no reply audio for ${(quiet / 1000).toFixed(0)} s`);
      if (!wasStalled) addEvent({ type: "(page) media stalled", detail: `no RTP packets received for ${STALL_MS} ms` });
    } else {
      setMedia("flowing", quiet >= STALL_MS ? "media: quiet (DTX)" : `media: receiving ${heard() ? "reply audio" : "silence"}`);
      if (wasStalled) addEvent({ type: "(page) media flowing again" });
    }
  }, 500);
}

// ---- is the engine answering? ----------------------------------------------------------------

// A connection can stay up while nothing comes through it (a dead network path, a peer that hangs: the
// dead_peer fault): the page said "live" and waited for a reply that never came. Every event the page
// sends is answered by at least one event (conversation.item.create by conversation.item.added,
// session.update by session.updated, a refused one by an error), so one unanswered for ANSWER_MS means
// the engine is not answering. A session quiet for PROBE_AFTER_MS is asked with a session.update that
// changes nothing (a keep-alive the real service answers with session.updated too): a quiet session's
// dead peer shows within 8 s, as the voice-client spec asks of a network that died mid-conversation.
// Any event from the engine, however late, counts as an answer and clears the alert.
const ANSWER_MS = 3000;
const PROBE_AFTER_MS = 5000;

function watchEngine(attempt) {
  const watch = state.watch = { heard: performance.now(), awaiting: null, probing: false, silent: false };
  const send = state.transport.send;
  state.transport.send = (event) => {
    if (state.watch === watch && !watch.awaiting) watch.awaiting = { since: performance.now(), type: event.type };
    return send(event);
  };
  const timer = setInterval(() => {
    if (state.attempt !== attempt || state.watch !== watch) { clearInterval(timer); return; }
    const now = performance.now();
    if (!watch.awaiting && now - watch.heard >= PROBE_AFTER_MS) {
      watch.probing = true;
      state.transport.send({ type: "session.update", session: { type: "realtime" } });
    }
    if (watch.awaiting && now - watch.awaiting.since >= ANSWER_MS) {
      if (!watch.silent) {
        addEvent({ type: "(page) engine not answering", detail: `${watch.awaiting.type} unanswered for ${ANSWER_MS} ms` });
        setStatus("not answering", "unresponsive");
      }
      watch.silent = true;
      showNotAnswering(watch, now);
    }
  }, 500);
}

// An event from the engine: it answers (a late answer clears the alert).
function heardEngine() {
  const watch = state.watch;
  if (!watch) return;
  watch.heard = performance.now();
  watch.awaiting = null;
  if (watch.silent) {
    watch.silent = false;
    showNotAnswering(null);
    setStatus("live");
    addEvent({ type: "(page) engine answering again" });
  }
}

function showNotAnswering(watch, now) {
  $("engine-alert").hidden = !watch;
  if (!watch) return;
  const quiet = ((now - watch.heard) / 1000).toFixed(0);
  const probe = watch.awaiting.type === "session.update" && watch.probing ? " (the page's keep-alive)" : "";
  $("engine-alert-text").textContent = `The engine stopped answering: nothing for ${quiet} s, `
    + `${watch.awaiting.type}${probe} sent ${((now - watch.awaiting.since) / 1000).toFixed(0)} s ago is unanswered. `
    + "The connection still looks open (a dead peer or network path): reconnect for a new session.";
}

function reconnect() {
  ended("reconnecting: the engine stopped answering");
  connect();
}

function setMedia(kind, text) {
  $("media").dataset.state = kind;
  $("media").textContent = text;
}

// ---- server events ----------------------------------------------------------------------------

function onServerEvent(event) {
  const watch = state.watch;
  const keepAlive = watch && watch.probing && event.type === "session.updated";
  if (keepAlive) watch.probing = false;
  heardEngine();
  addEvent(event, keepAlive ? "the page's keep-alive answered" : "");
  const now = performance.now() / 1000;
  switch (event.type) {
    case "session.created":
      if (state.attempt && state.attempt.created) state.attempt.created();
      state.sessionId = event.session.id;
      // Where this session starts in the transcript (the page keeps earlier sessions' lines).
      addLine("session", `${event.session.id} · ${$("transport").value} · ${event.session.model}`);
      showSession(event.session);
      break;
    case "session.updated":
      showSession(event.session);
      break;
    case "error":
      state.lastError = { at: now, message: event.error.message };
      // A refused session.update (e.g. a new voice after the assistant spoke): the pickers show the
      // session as it still is.
      if (String(event.error.param || "").startsWith("session.") && state.session) showSession(state.session);
      // A refused voice said so only among the events while the picker went quietly back: the reason
      // shows beside the picker (until the next change).
      if (event.error.param === "session.audio.output.voice") {
        $("voice-error").textContent = `The voice stays ${$("voice").value}: ${event.error.message}`;
      }
      break;
    case "input_audio_buffer.speech_started":
      state.marks.push({ t: now, kind: "started" });
      if (state.player && state.player.isPlaying()) bargeIn();
      break;
    case "input_audio_buffer.speech_stopped":
      state.marks.push({ t: now, kind: "stopped" });
      break;
    case "conversation.item.input_audio_transcription.completed":
      addLine("user", event.transcript, event.item_id);
      break;
    case "response.output_audio_transcript.delta":
      assistantLine(event.item_id).textContent += event.delta;
      break;
    case "response.output_audio_transcript.done":
      assistantLine(event.item_id).textContent = event.transcript;
      assistantLine(event.item_id).classList.remove("partial");
      break;
    case "response.output_text.done":
      addLine("assistant", event.text, event.item_id);
      break;
    case "response.output_audio.delta": {
      // WebSocket: shade while the page plays it (deltas arrive faster than they play).
      state.playingItem = event.item_id;
      const span = state.player.play(event.item_id, A.fromBase64(event.delta));
      const last = state.replyPlaying[state.replyPlaying.length - 1];
      if (last && last.to !== null && span.from - last.to < 0.05) last.to = Math.max(last.to, span.to);
      else state.replyPlaying.push(span);
      break;
    }
    case "output_audio_buffer.started":
      if (!state.replyPlaying.some((span) => span.to === null)) state.replyPlaying.push({ from: now, to: null });
      break;
    case "output_audio_buffer.stopped":
    case "output_audio_buffer.cleared":
      closeReplySpan(now);
      break;
    case "conversation.item.truncated":
      assistantLine(event.item_id).title = `truncated at ${event.audio_end_ms} ms`;
      assistantLine(event.item_id).classList.add("truncated");
      break;
    case "response.function_call_arguments.done":
      onToolCall(event);
      break;
    case "response.created":
      state.responding = event.response.id;
      break;
    case "response.done":
      if (state.responding === event.response.id) state.responding = null;
      if (event.response.status !== "completed") onResponseNotCompleted(event.response);
      break;
  }
}

function responseOutcome(response) {
  const details = response.status_details || {};
  const why = details.error ? details.error.message || details.error.code : details.reason;
  return response.status + (why ? `: ${why}` : "");
}

// A failed, cancelled or incomplete reply says so in the transcript (a failed one with no output, e.g.
// rate_limit_exceeded, left nothing there at all, or an empty "engine:" line).
function onResponseNotCompleted(response) {
  const outcome = responseOutcome(response);
  const lines = (response.output || []).map((item) => state.assistant.get(item.id)).filter(Boolean);
  if (!lines.length) {
    if (response.status !== "failed") return;
    lines.push(addLine("assistant", "", response.id));
  }
  for (const li of lines) {
    li.dataset.outcome = `(${outcome})`;
    if (response.status === "failed") li.classList.add("failed");
  }
}

// Playback stopped now: no span goes on past it.
// The voice and turn detection pickers follow the session the engine says it has.
function showSession(session) {
  state.session = session;
  setTimeout(updateTalkButton);  // after connect() has set the transport
  const audio = session.audio || {};
  if (audio.output && audio.output.voice) $("voice").value = audio.output.voice;
  if (audio.input && "turn_detection" in audio.input) {
    $("turn-detection").value = audio.input.turn_detection ? audio.input.turn_detection.type : "none";
  }
}

function closeReplySpan(now) {
  for (const span of state.replyPlaying) {
    if (span.to === null || span.to > now) span.to = Math.max(span.from, now);
  }
  state.replyPlaying = state.replyPlaying.filter((span) => span.to > span.from);
}

// WebSocket transport: the page plays the audio, so it stops it and truncates the item itself.
function bargeIn() {
  if (!state.player || !state.playingItem) return;
  closeReplySpan(performance.now() / 1000);
  const playedMs = Math.floor(state.player.clear(state.playingItem));
  state.transport.send({ type: "conversation.item.truncate", item_id: state.playingItem, content_index: 0, audio_end_ms: playedMs });
}

function onToolCall(event) {
  const li = document.createElement("li");
  li.innerHTML = `<code></code> <span></span>`;
  li.querySelector("code").textContent = event.name;
  li.querySelector("span").textContent = event.arguments;
  $("tools").append(li);
  trim($("tools"));
  // The console answers every tool call with a plain success, so the conversation goes on.
  state.transport.send({
    type: "conversation.item.create",
    item: { type: "function_call_output", call_id: event.call_id, output: JSON.stringify({ ok: true }) },
  });
  state.transport.send({ type: "response.create" });
}

function addLine(role, text, itemId) {
  const li = document.createElement("li");
  li.className = role;
  li.dataset.itemId = itemId || "";
  li.textContent = text;
  const list = $("transcript");
  list.append(li);
  trim(list);
  li.scrollIntoView({ block: "nearest" });
  return li;
}

function trim(list) {
  while (list.children.length > MAX_LINES_SHOWN) {
    const gone = list.firstChild;
    if (gone.dataset.itemId && state.assistant.get(gone.dataset.itemId) === gone) state.assistant.delete(gone.dataset.itemId);
    gone.remove();
  }
}

function assistantLine(itemId) {
  if (!state.assistant.has(itemId)) {
    const li = addLine("assistant", "", itemId);
    li.classList.add("partial");
    state.assistant.set(itemId, li);
  }
  return state.assistant.get(itemId);
}

// A list row that opens (and closes) its JSON: a button, so Tab reaches it and Enter or Space opens it.
function rowButton(li, text, json) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "row";
  button.textContent = text;
  button.setAttribute("aria-expanded", "false");
  // Out of the Tab order: 400 events would be 400 presses to get past. The list takes focus once
  // (Tab), the arrow keys move along its rows (listKeys).
  button.tabIndex = -1;
  button.onclick = () => {
    const open = li.querySelector("pre");
    if (open) open.remove(); else {
      const pre = document.createElement("pre");
      pre.textContent = JSON.stringify(json, null, 1);
      li.append(pre);
    }
    button.setAttribute("aria-expanded", String(!open));
  };
  li.append(button);
  return button;
}

// A list of row buttons is one Tab stop: ↓/↑ move along the rows, Home/End to the first and last.
function listKeys(list) {
  list.tabIndex = 0;
  list.onkeydown = (e) => {
    const rows = [...list.querySelectorAll("button.row")];
    if (!rows.length || !["ArrowDown", "ArrowUp", "Home", "End"].includes(e.key)) return;
    e.preventDefault();
    const at = rows.indexOf(document.activeElement);
    let next;
    if (e.key === "Home") next = 0;
    else if (e.key === "End") next = rows.length - 1;
    else if (at < 0) next = e.key === "ArrowDown" ? 0 : rows.length - 1;
    else next = Math.max(0, Math.min(rows.length - 1, at + (e.key === "ArrowDown" ? 1 : -1)));
    rows[next].focus();
  };
}

function isDelta(type) {
  return typeof type === "string" && type.endsWith(".delta");
}

// "hide deltas" filters both panes: the journal shown is listed again at once (its records are the
// engine's, asked again); the events from now on (the deltas hidden were not kept).
function onHideDeltas() {
  if (state.journalShown) showJournal(state.journalShown.id);
}

function addEvent(event, note) {
  state.eventCount += 1;
  $("event-count").textContent = state.eventCount;
  if ($("hide-deltas").checked && isDelta(event.type)) return;
  const li = document.createElement("li");
  let text = event.type;
  li.dataset.type = event.type;
  if (event.type === "error") {
    li.classList.add("error");
    text += `: ${event.error.message}`;
  }
  if (event.type === "response.done" && event.response.status !== "completed") {
    text += ` (${responseOutcome(event.response)})`;
    if (event.response.status === "failed") li.classList.add("error");
  }
  if (note) text += ` (${note})`;
  if (event.type.startsWith("(page)")) li.classList.add("page");
  rowButton(li, text, event);
  const list = $("events");
  // Follow the newest event only while the list is scrolled to its end: one scrolled up to read (an
  // event opened for its JSON) stays where it is.
  const following = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.append(li);
  while (list.children.length > MAX_EVENTS_SHOWN) list.firstChild.remove();
  if (following) list.scrollTop = list.scrollHeight;
}

// ---- the timeline -----------------------------------------------------------------------------

function drawTimeline() {
  const canvas = $("timeline");
  const g = canvas.getContext("2d");
  const now = performance.now() / 1000;
  if (state.meter) state.levels.push({ t: now, level: state.meter.level() });
  if (state.replyMeter) state.replyLevels.push({ t: now, level: state.replyMeter.level() });
  const from = now - TIMELINE_S;
  state.levels = state.levels.filter((p) => p.t >= from);
  state.replyLevels = state.replyLevels.filter((p) => p.t >= from);
  state.marks = state.marks.filter((m) => m.t >= from);
  state.replyPlaying = state.replyPlaying.filter((span) => span.to === null || span.to >= from);
  const x = (t) => ((t - from) / TIMELINE_S) * canvas.width;
  g.fillStyle = "#10141c";
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = "rgba(142, 91, 214, 0.35)";
  for (const span of state.replyPlaying) {
    const to = span.to === null ? now : span.to;
    if (to >= from) g.fillRect(x(span.from), 0, x(to) - x(span.from), canvas.height);
  }
  const line = (levels, colour) => {
    g.strokeStyle = colour;
    g.beginPath();
    levels.forEach((p, i) => {
      const y = canvas.height - Math.min(1, p.level * 4) * (canvas.height - 4);
      // A new line after a gap (between sessions): no stroke across the time nothing was measured.
      if (i === 0 || p.t - levels[i - 1].t > 0.5) g.moveTo(x(p.t), y); else g.lineTo(x(p.t), y);
    });
    g.stroke();
  };
  line(state.replyLevels, "#c9a6ff");  // the reply track as received (WebRTC)
  line(state.levels, "#7fb2ff");       // the microphone
  for (const mark of state.marks) {
    if (mark.t < from) continue;
    g.fillStyle = mark.kind === "started" ? "#1c9d5b" : "#d9822b";
    g.fillRect(x(mark.t) - 1, 0, 3, canvas.height);
  }
  requestAnimationFrame(drawTimeline);
}

// ---- faults, sessions, journals ---------------------------------------------------------------

const TRANSPORT_NAMES = { webrtc: "WebRTC", websocket: "WebSocket" };

async function fireFault() {
  const fault = selectedFault();
  // The transport it would act on: the live session's, or the one picked for the next connect.
  const transport = $("transport").value;
  if (fault.transport && fault.transport !== transport) {
    $("fault-result").textContent = `${fault.kind} acts on ${TRANSPORT_NAMES[fault.transport]} only: `
      + (state.transport ? "this session is " : "the transport picked is ") + TRANSPORT_NAMES[transport];
    return;
  }
  const params = $("fault-params").value.trim();
  const target = fault.at_connect ? {} : { session_id: sessionName() };
  try {
    const answer = await request("/mockengine/faults", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ fault: params ? `${fault.kind}:${params}` : fault.kind, ...target }),
    });
    const body = await answer.json();
    if (!answer.ok) { $("fault-result").textContent = body.error.message; return; }
    const armed = body.armed.map((a) => (typeof a === "string" ? a : a.fault)).join(", ");
    // Every arming waits for the next connect (two armed: the result named only the last as used).
    if (fault.at_connect) state.armedForConnect = state.armedForConnect ? `${state.armedForConnect}, ${armed}` : armed;
    $("fault-result").textContent = fault.at_connect
      ? `armed ${armed} for the next connection: press Connect`
      : `armed ${armed} on ${sessionName()}`;
  } catch (error) {
    $("fault-result").textContent = String(error.message || error);
  }
}

// After a connect that an arming for the next connect was waiting for: the result still said "armed …
// for the next connection: press Connect" when the connect it had failed (refuse_call,
// withhold_session_created) had used it up, and a second Connect then went live unharmed. What the
// engine still holds armed is asked for: none, and the result says the arming was used.
async function showArmedLeft() {
  const used = state.armedForConnect;
  if (!used) return;
  state.armedForConnect = null;
  const shown = $("fault-result").textContent;
  let left;
  try {
    const answer = await request("/mockengine/faults");
    if (!answer.ok) return;
    left = (await answer.json()).armed.map((a) => a.fault);
  } catch (error) {
    return;  // the engine went away: the connect's own error says so
  }
  if (left.length) state.armedForConnect = used;  // the next connect is asked about again
  if ($("fault-result").textContent !== shown) return;  // another fault fired meanwhile: its result stays
  $("fault-result").textContent = left.length
    ? `still armed for the next connection: ${left.join(", ")}`
    : `${used} ${used.includes(", ") ? "were" : "was"} used by this connect: nothing is armed now`;
}

async function killSession() {
  try {
    const answer = await request(`/mockengine/sessions/${encodeURIComponent(sessionName())}/kill`, { method: "POST" });
    if (answer.ok) state.killedAt = performance.now();  // the close that follows is this, not a crash
    $("fault-result").textContent = answer.ok ? "connection dropped" : (await answer.json()).error.message;
  } catch (error) {
    $("fault-result").textContent = String(error.message || error);
  }
}

// What the control endpoints call this page's session: its handle (a seeded engine's sessions share ids,
// and an id names them all), else its id while the handle is not known yet.
function sessionName() {
  return state.handle || state.sessionId;
}

// The sessions pane from the engine's lists. Returns what the engine lists live — {handles, journals}
// — or null when it did not answer. Only the newest of refreshes in flight draws the pane (the 5 s
// timer's and one after a session ended can overlap; an older answer drawn last listed an ended session
// live again).
async function refreshSessions() {
  const asked = state.refreshes = (state.refreshes || 0) + 1;
  let answer, journals = null;
  try {
    answer = await fetch("/mockengine/sessions");
    if (answer.ok && state.info && state.info.journal) {
      const listed = await fetch("/mockengine/journal");
      if (listed.ok) journals = (await listed.json()).journals;
    }
  } catch (error) {
    $("sessions").innerHTML = "<li class=hint>the engine does not answer</li>";
    // Stopped: restarted, it numbers its handles from ~1 again, and on a seeded engine (ids repeat) the
    // page took its new session for one of its ended ones and never called it its own.
    state.pastHandles = [];
    state.engineGone = true;
    return null;
  }
  if (state.engineGone) {
    // Back, perhaps restarted with other flags: its choices again.
    state.engineGone = false;
    rereadInfo().then((lost) => { if (lost && !state.attempt) $("connect-error").textContent = lostScenario(lost); });
  }
  if (!answer.ok) return null;
  const { live: running } = await answer.json();
  const listed = {
    handles: running.map((s) => s.handle),
    journals: journals ? journals.filter((j) => j.live).map((j) => j.journal) : [],
  };
  if (asked !== state.refreshes) return listed;  // a newer refresh draws the pane
  // Only an ended session the engine still lists (its teardown) can be mistaken for the page's new one.
  state.pastHandles = state.pastHandles.filter((h) => running.some((s) => s.handle === h));
  if (state.transport && state.sessionId && !state.handle) {
    // Over WebSocket the page cannot read the 101's handle header: its session is the newest live one
    // with its id that is not an earlier one of this page.
    const mine = running.filter((s) => s.session_id === state.sessionId && !state.pastHandles.includes(s.handle));
    if (mine.length) state.handle = mine[mine.length - 1].handle;
  }
  const own = running.find((s) => s.handle === state.handle);
  if (own && own.journal && !state.journal) state.journal = own.journal;
  const list = $("sessions");
  list.innerHTML = "";
  const add = (id, note) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "row";
    button.tabIndex = -1;
    button.textContent = id + note;
    button.onclick = () => showJournal(id);
    li.dataset.journal = id;
    li.append(button);
    list.append(li);
  };
  if (!journals) {  // journaling off: the live sessions' handles (their kill and faults still apply)
    for (const s of running) add(s.handle, s.handle === state.handle && state.transport ? " (this page)" : "");
    if (!running.length) list.innerHTML = "<li class=hint>no live session</li>";
    return listed;
  }
  // One line per journal: a seeded engine's sessions share ids, their journals are sess_…, sess_….2, …
  const live = journals.filter((j) => j.live);
  if (state.transport && state.sessionId && !state.journal) {
    // This page's: the newest live journal of its session id that is not an earlier one of this page.
    const mine = live.filter((j) => j.session_id === state.sessionId && !state.pastJournals.includes(j.journal));
    if (mine.length) state.journal = mine[mine.length - 1].journal;
  }
  for (const j of live) add(j.journal, j.journal === state.journal && state.transport ? " (this page)" : "");
  followJournal(live.map((j) => j.journal));
  if (!live.length) list.innerHTML = "<li class=hint>no live session</li>";
  const ended = journals.filter((j) => !j.live);
  const names = new Set(ended.map((j) => j.journal));
  const ownEnded = state.pastJournals.filter((name) => names.has(name)).slice(0, 5);
  for (const name of ownEnded) add(name, " (ended, this page)");
  // Not this page's: its ended sessions past the newest 5 were listed as another client's "(ended)".
  const others = ended.filter((j) => !state.pastJournals.includes(j.journal)).slice(0, Math.max(0, 8 - ownEnded.length));
  for (const j of others) add(j.journal, " (ended)");
  return listed;
}

// Another client's session starting or ending showed only at the next 5 s refresh. The page waits on the
// engine's list instead: GET /mockengine/sessions?changed_from=N (N the last answer's "changes") answers
// as soon as a session is listed or unlisted, or after 25 s as it is, and the pane is drawn again when
// it changed. An engine that does not answer, or refuses (403), or is older (no "changes") is asked
// again after WATCH_RETRY_MS; the 5 s refresh goes on meanwhile.
const WATCH_RETRY_MS = 5000;

async function watchSessions() {
  let seen = null;
  for (;;) {
    let body = null;
    try {
      const answer = await fetch(seen === null ? "/mockengine/sessions" : `/mockengine/sessions?changed_from=${seen}`);
      if (answer.ok) body = await answer.json();
    } catch (error) {
      body = null;  // the engine went away: the 5 s refresh says so
    }
    if (!body || typeof body.changes !== "number") {
      seen = null;
      await new Promise((resolve) => setTimeout(resolve, WATCH_RETRY_MS));
      continue;
    }
    if (seen !== null && body.changes !== seen) refreshSessions();
    seen = body.changes;
  }
}

// The journal shown, as far as the page has listed it: a live session's journal grows, and the pane
// follows it on the sessions' 5 s refresh (it stayed as it was when clicked), once more after it ends.
function showJournal(id) {
  $("journal").innerHTML = "";
  if (state.info && !state.info.journal) {
    // Journaling off: asking would only be a 404 (an error in the browser's console at each click).
    state.journalShown = null;
    $("journal-id").textContent = `${id}: off, start the engine with --journal-dir DIR`;
    return Promise.resolve();
  }
  $("journal-id").textContent = id;
  state.journalShown = { id, count: 0, live: false };
  return loadJournal(state.journalShown);
}

async function loadJournal(shown) {
  if (shown.loading) return;  // a refresh while it is read: the records would be listed twice
  shown.loading = true;
  try {
    // The engine serves 5000 records a request from ?from=N on: a long session's take a few.
    for (;;) {
      let answer, body;
      try {
        answer = await fetch(`/mockengine/journal/${encodeURIComponent(shown.id)}?from=${shown.count}`);
        body = await answer.json();
      } catch (error) {
        return;  // the engine went away: the next refresh says so
      }
      if (state.journalShown !== shown) return;  // another journal was clicked meanwhile
      const list = $("journal");
      if (!answer.ok) { list.innerHTML = `<li class=hint></li>`; list.firstChild.textContent = body.error.message; return; }
      if (!showRecords(shown, body.records) || shown.count >= body.total) return;
    }
  } finally {
    shown.loading = false;
  }
}

// Records are only ever appended: the ones listed stay, an opened record's JSON with them, up to the
// newest MAX_JOURNAL_SHOWN (an hour's session journals tens of thousands: the page would crawl).
const MAX_JOURNAL_SHOWN = 3000;

function showRecords(shown, records) {
  const list = $("journal");
  const before = shown.count;
  const following = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const hide = $("hide-deltas").checked;
  for (const record of records) {
    const what = record.event ? record.event.type : record.kind || record.raw || "";
    // "hide deltas" hid the events' deltas only: a turn's journal was hundreds of delta rows.
    if (hide && isDelta(what)) continue;
    const li = document.createElement("li");
    li.className = record.from || "engine";
    rowButton(li, `${(record.ms / 1000).toFixed(2)} s ${record.from || "engine"} ${what}`, record.event || record);
    list.append(li);
  }
  shown.count += records.length;
  let dropped = 0;
  while (list.children.length > MAX_JOURNAL_SHOWN) { list.firstChild.remove(); dropped += 1; }
  if (dropped) {
    shown.dropped = (shown.dropped || 0) + dropped;
    $("journal-id").textContent = `${shown.id} (the newest ${MAX_JOURNAL_SHOWN}: ${shown.dropped} earlier records not shown)`;
  }
  if (following && before) list.scrollTop = list.scrollHeight;  // opened at the top, then followed
  return records.length > 0;
}

// On each sessions refresh: a shown journal that is live, or was at the last refresh, is read again.
function followJournal(liveNames) {
  const shown = state.journalShown;
  if (!shown) return;
  const live = liveNames.includes(shown.id);
  if (live || shown.live) loadJournal(shown);
  shown.live = live;
}

// ---- push to talk (turn detection none) ----------------------------------------------------------

// Without turn detection nothing ends a spoken turn: the microphone's audio piled up in the input buffer
// and never got an answer. Held, the button clears the buffer (what was said before is not this turn)
// and stops a reply playing; released, it commits the buffer and asks for the response, as the
// service's push-to-talk clients do.
const TALK_TITLE = "turn detection none: hold to talk (Space or Enter held, or the mouse)";

function updateTalkButton() {
  const td = state.session && state.session.audio && state.session.audio.input
    ? state.session.audio.input.turn_detection : undefined;
  // Muted, holding it sent a turn of silence and nothing visible happened: disabled, saying why (a
  // mute is the person's choice, so the button does not unmute for the hold).
  const muted = Boolean(state.transport && state.muted);
  $("talk").disabled = !state.transport || !state.stream || td !== null || muted;
  $("talk").title = muted ? "the microphone is muted: unmute it to talk" : TALK_TITLE;
  if ($("talk").disabled) $("talk").classList.remove("held");
}

function talkStart() {
  if ($("talk").disabled || state.talking) return;
  state.talking = true;
  $("talk").classList.add("held");
  $("talk").textContent = "Talking… release to send";
  // A reply still being made is cancelled: the release's response.create was refused ("Conversation
  // already has an active response in progress") and the turn went unanswered.
  if (state.responding) state.transport.send({ type: "response.cancel", response_id: state.responding });
  if (state.player && state.player.isPlaying()) bargeIn();
  else if (state.replyPlaying.some((span) => span.to === null)) state.transport.send({ type: "output_audio_buffer.clear" });
  state.transport.send({ type: "input_audio_buffer.clear" });
}

function talkEnd() {
  if (!state.talking) return;
  state.talking = false;
  $("talk").classList.remove("held");
  $("talk").textContent = "Hold to talk";
  if (!state.transport) return;
  state.transport.send({ type: "input_audio_buffer.commit" });
  state.transport.send({ type: "response.create" });
}

function sendText() {
  const text = $("text-input").value.trim();
  if (!text || !state.transport) return;
  addLine("user", text);
  state.transport.send({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text }] } });
  state.transport.send({ type: "response.create" });
  $("text-input").value = "";
}

for (const id of ["events", "sessions", "journal"]) listKeys($(id));
$("connect").onclick = connect;
$("hangup").onclick = hangup;
$("mute").onclick = () => {
  const muted = !state.muted;
  state.muted = muted;
  state.transport.mute(muted);
  $("mute").textContent = muted ? "Unmute mic" : "Mute mic";
  if (muted) talkEnd();  // muted while held: what was said so far is the turn
  updateTalkButton();
};
$("send-text").onclick = sendText;
// Pressed, the button's label grows ("Talking… release to send") and the row can wrap it to the next
// line, out from under the pointer: its pointerleave ended the turn at once and committed an empty
// buffer. The pointer is captured while held, so only the release (or a cancel) ends it.
$("talk").onpointerdown = (e) => {
  if ($("talk").disabled) return;
  $("talk").setPointerCapture(e.pointerId);
  talkStart();
};
$("talk").onpointerup = $("talk").onpointercancel = $("talk").onlostpointercapture = talkEnd;
$("talk").onkeydown = (e) => { if ((e.key === " " || e.key === "Enter") && !e.repeat) { e.preventDefault(); talkStart(); } };
$("talk").onkeyup = (e) => { if (e.key === " " || e.key === "Enter") { e.preventDefault(); talkEnd(); } };
$("transport").onchange = () => fitFaultKinds(true);
$("voice").onchange = () => {
  $("voice-error").textContent = "";
  updateSession({ audio: { output: { voice: $("voice").value } } });
};
$("turn-detection").onchange = () =>
  updateSession({ audio: { input: { turn_detection: sessionConfig().audio.input.turn_detection } } });
$("text-input").onkeydown = (e) => { if (e.key === "Enter") sendText(); };
$("fire-fault").onclick = fireFault;
$("kill").onclick = killSession;
$("reconnect").onclick = reconnect;
$("alert-hangup").onclick = hangup;
$("refresh-sessions").onclick = refreshSessions;
$("hide-deltas").onchange = onHideDeltas;
setInterval(refreshSessions, 5000);
loadInfo();
watchSessions();
requestAnimationFrame(drawTimeline);
