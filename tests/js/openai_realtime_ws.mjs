// The official openai Node SDK's Realtime WebSocket client (openai/realtime/ws, OpenAIRealtimeWS) with an
// app's own tool, as its docs show with only the base URL changed. The SDK always connects with wss:, so
// the engine runs with --tls and Node trusts its CA (NODE_EXTRA_CA_CERTS). The key is an ephemeral one
// minted through client.realtime.clientSecrets.create, as a server hands one to its front end.
// Usage: node openai_realtime_ws.mjs https://127.0.0.1:PORT/v1
// Prints one JSON object (what the SDK saw) and exits 0; exits 1 with the reason on stderr otherwise.
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { report } from './report.mjs';

const baseURL = process.argv[2];
const TIMEOUT_MS = 60_000;
const events = [];
const errors = [];

const server = new OpenAI({ apiKey: 'sk-server', baseURL });
const secret = await server.realtime.clientSecrets.create({
  session: { type: 'realtime', model: 'gpt-realtime', instructions: 'You help customers with orders.' },
});
const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime' }, new OpenAI({ apiKey: secret.value, baseURL }));
rt.on('event', (event) => events.push(event));
rt.on('error', (error) => errors.push({ message: error.message, error: error.error ?? null }));

function next(type, after = 0) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} in time`)), TIMEOUT_MS);
    const poll = setInterval(() => {
      const found = events.slice(after).find((event) => event.type === type);
      if (found) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(found);
      }
    }, 10);
  });
}

function nextError(after) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no error in time')), TIMEOUT_MS);
    const poll = setInterval(() => {
      if (errors.length > after) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(errors[after]);
      }
    }, 10);
  });
}

async function main() {
  await new Promise((resolve, reject) => {
    rt.socket.once('open', resolve);
    rt.socket.once('error', reject);
  });
  const created = await next('session.created');
  rt.send({
    type: 'session.update',
    session: {
      type: 'realtime',
      output_modalities: ['audio'],
      audio: { input: { transcription: { model: 'gpt-4o-mini-transcribe' } }, output: { voice: 'marin' } },
      tools: [
        {
          type: 'function',
          name: 'lookup_order',
          description: 'Look up the status of an order by its number.',
          parameters: {
            type: 'object',
            properties: { order_id: { type: 'string', description: 'The order number.' } },
            required: ['order_id'],
          },
        },
      ],
      tool_choice: 'auto',
    },
  });
  const updated = await next('session.updated');

  let mark = events.length;
  rt.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Where is my order 4471?' }] },
  });
  rt.send({ type: 'response.create' });
  const firstDone = await next('response.done', mark);
  const argumentDeltas = events
    .slice(mark)
    .filter((event) => event.type === 'response.function_call_arguments.delta')
    .map((event) => ({ call_id: event.call_id, item_id: event.item_id, delta: event.delta }));
  const argumentsDone = events.slice(mark).find((event) => event.type === 'response.function_call_arguments.done');
  const call = firstDone.response.output.find((item) => item.type === 'function_call');

  mark = events.length;
  rt.send({
    type: 'conversation.item.create',
    item: {
      type: 'function_call_output',
      call_id: call.call_id,
      output: JSON.stringify({ order_id: '4471', status: 'shipped', arrives: 'Friday' }),
    },
  });
  rt.send({ type: 'response.create' });
  const secondDone = await next('response.done', mark);
  const transcript = events
    .slice(mark)
    .find((event) => event.type === 'response.output_audio_transcript.done')?.transcript;

  // An app's mistakes, each with its own event_id: an output for a call that does not exist, a field
  // the GA session does not have (the beta's top-level "voice"), a cancel with no response running.
  const mistakes = [];
  for (const [eventId, event] of [
    ['evt_bad_call', { type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'call_nope', output: '{}' } }],
    ['evt_bad_field', { type: 'session.update', session: { type: 'realtime', voice: 'alloy' } }],
    ['evt_no_response', { type: 'response.cancel' }],
  ]) {
    const seen = errors.length;
    rt.send({ ...event, event_id: eventId });
    mistakes.push({ sent: eventId, got: await nextError(seen) });
  }
  rt.close();
  return {
    sessionCreated: created.session,
    sessionUpdated: updated.session,
    call,
    argumentDeltas,
    argumentsDone,
    firstStatus: firstDone.response.status,
    secondStatus: secondDone.response.status,
    transcript,
    mistakes,
    url: rt.url.toString(),
  };
}

report(main, errors);
