// The microphone's samples, posted to the page in blocks of 2048 (an AudioWorklet: the page's
// ScriptProcessorNode, deprecated, is its fallback where worklets are missing).
"use strict";

class CaptureProcessor extends AudioWorkletProcessor {
  constructor() {
    super();
    this.block = new Float32Array(2048);
    this.filled = 0;
  }
  process(inputs) {
    const input = inputs[0] && inputs[0][0];
    if (!input) return true;
    let at = 0;
    while (at < input.length) {
      const n = Math.min(input.length - at, this.block.length - this.filled);
      this.block.set(input.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === this.block.length) {
        this.port.postMessage(this.block.slice());
        this.filled = 0;
      }
    }
    return true;
  }
}

registerProcessor("console-capture", CaptureProcessor);
