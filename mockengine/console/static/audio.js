// Audio helpers of the console: the microphone's level (both transports), the microphone as PCM16
// 24 kHz chunks and the reply's playback (WebSocket transport; on WebRTC the browser does both).
"use strict";

const RATE_HZ = 24000;

function toBase64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

function fromBase64(b64) {
  const text = atob(b64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

// RMS level (0–1) of a MediaStream, read whenever asked.
class LevelMeter {
  constructor(context, stream) {
    this.analyser = context.createAnalyser();
    this.analyser.fftSize = 1024;
    this.source = context.createMediaStreamSource(stream);
    this.source.connect(this.analyser);
    this.samples = new Float32Array(this.analyser.fftSize);
  }
  level() {
    this.analyser.getFloatTimeDomainData(this.samples);
    let sum = 0;
    for (const s of this.samples) sum += s * s;
    return Math.sqrt(sum / this.samples.length);
  }
  stop() { this.source.disconnect(); }
}

// The microphone as PCM16 24 kHz, handed to onChunk(Uint8Array) every ~40 ms (WebSocket transport).
// An AudioWorklet where the browser has one (a secure context: localhost or https), else the deprecated
// ScriptProcessorNode. Build it with `await PcmCapture.open(...)`.
class PcmCapture {
  static async open(context, stream, onChunk) {
    const capture = new PcmCapture(context, stream, onChunk);
    if (context.audioWorklet) {
      await context.audioWorklet.addModule("/console/capture-worklet.js");
      capture.node = new AudioWorkletNode(context, "console-capture");
      capture.node.port.onmessage = (e) => capture.take(e.data);
    } else {
      capture.node = context.createScriptProcessor(2048, 1, 1);
      capture.node.onaudioprocess = (e) => capture.take(e.inputBuffer.getChannelData(0));
    }
    capture.source.connect(capture.node);
    capture.node.connect(context.destination);  // a ScriptProcessor runs only while connected
    return capture;
  }
  constructor(context, stream, onChunk) {
    this.context = context;
    this.source = context.createMediaStreamSource(stream);
    this.node = null;
    this.muted = false;
    this.onChunk = onChunk;
    this.ratio = context.sampleRate / RATE_HZ;
  }
  take(input) {
    if (this.muted) return;
    const n = Math.floor(input.length / this.ratio);
    const out = new Int16Array(n);
    for (let i = 0; i < n; i++) {
      const s = Math.max(-1, Math.min(1, input[Math.floor(i * this.ratio)]));
      out[i] = s < 0 ? s * 0x8000 : s * 0x7fff;
    }
    this.onChunk(new Uint8Array(out.buffer));
  }
  stop() {
    if (this.node) { this.node.disconnect(); if (this.node.port) this.node.port.onmessage = null; }
    this.source.disconnect();
  }
}

// Reply audio deltas played back to back; knows how much of each item has been played.
class PcmPlayer {
  constructor(context) {
    this.context = context;
    this.nextAt = 0;
    this.sources = [];
    this.items = new Map();  // item id → {startAt, ms}: where its audio sits on the context's clock
  }
  play(itemId, bytes) {
    const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
    const buffer = this.context.createBuffer(1, samples.length, RATE_HZ);
    const channel = buffer.getChannelData(0);
    for (let i = 0; i < samples.length; i++) channel[i] = samples[i] / 32768;
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.context.destination);
    const at = Math.max(this.context.currentTime + 0.05, this.nextAt);
    source.start(at);
    this.nextAt = at + buffer.duration;
    this.sources.push(source);
    source.onended = () => { this.sources = this.sources.filter((s) => s !== source); };
    if (!this.items.has(itemId)) this.items.set(itemId, { startAt: at, ms: 0 });
    this.items.get(itemId).ms += buffer.duration * 1000;
    // When it plays, on performance.now()'s clock in seconds (for the timeline).
    const now = performance.now() / 1000 - this.context.currentTime;
    return { from: now + at, to: now + at + buffer.duration };
  }
  isPlaying() { return this.nextAt > this.context.currentTime; }
  // Stop everything; the ms of itemId heard so far (for conversation.item.truncate).
  clear(itemId) {
    for (const s of this.sources) { try { s.stop(); } catch (e) { /* already stopped */ } }
    this.sources = [];
    this.nextAt = 0;
    const item = this.items.get(itemId);
    if (!item) return 0;
    return Math.max(0, Math.min(item.ms, (this.context.currentTime - item.startAt) * 1000));
  }
}

window.consoleAudio = { RATE_HZ, toBase64, fromBase64, LevelMeter, PcmCapture, PcmPlayer };
