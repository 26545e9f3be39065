// openai-node's Realtime translation WebSocket (OpenAIRealtimeTranslationWS, openai >= 7.59) against the
// engine: session.created, a session.update, PCM16 24 kHz appended in 200 ms chunks, then finish()
// (session.close, every event through session.closed, the socket closed).
// Usage: node openai_translation_ws.mjs https://localhost:PORT/v1 FILE.pcm
// The SDK refuses a base URL that is not https: run the engine with TLS and trust its CA
// (NODE_EXTRA_CA_CERTS). Prints one JSON object ({types, input, output, audioBytes, elapsed, errors}).
import fs from 'node:fs';
import OpenAI from 'openai';
import { OpenAIRealtimeTranslationWS } from 'openai/realtime/translations/ws';

const [baseURL, pcmFile] = process.argv.slice(2);
const pcm = fs.readFileSync(pcmFile);
const client = new OpenAI({ apiKey: 'sk-test', baseURL });
const rt = await OpenAIRealtimeTranslationWS.create(client, { model: 'gpt-realtime-translate' });
const events = [];
const errors = [];
rt.on('event', (event) => events.push(event));
rt.on('error', (error) => errors.push(String(error.message)));
await new Promise((resolve, reject) => {
  rt.socket.once('open', resolve);
  rt.socket.once('error', reject);
});
rt.send({
  type: 'session.update',
  session: { audio: { input: { transcription: { model: 'gpt-realtime-whisper' } }, output: { language: 'es' } } },
});
const chunk = 9600; // 200 ms of 24 kHz PCM16
for (let start = 0; start < pcm.length; start += chunk) {
  rt.send({ type: 'session.input_audio_buffer.append', audio: pcm.subarray(start, start + chunk).toString('base64') });
}
await rt.finish({ timeoutMs: 60000 });
const text = (type) => events.filter((e) => e.type === type).map((e) => e.delta).join('');
console.log(
  JSON.stringify({
    types: events.map((e) => e.type),
    input: text('session.input_transcript.delta'),
    output: text('session.output_transcript.delta'),
    audioBytes: events
      .filter((e) => e.type === 'session.output_audio.delta')
      .reduce((n, e) => n + Buffer.from(e.delta, 'base64').length, 0),
    elapsed: events.filter((e) => 'elapsed_ms' in e).map((e) => e.elapsed_ms),
    errors,
  }),
);
process.exit(0);
