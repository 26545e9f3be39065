// A voice app on the OpenAI Agents JS SDK (@openai/agents-realtime) over WebSocket in Node, only the URL
// changed: two RealtimeAgents with zod tools and handoffs both ways, a tool that needs approval (approved
// once, rejected once), an output guardrail, a spoken question sent as ArrayBuffers, then close().
// Usage: node agents_realtime_app.mjs ws://127.0.0.1:PORT/v1/realtime?model=gpt-realtime QUESTION.pcm
// (QUESTION.pcm: raw PCM16 mono 24 kHz speech).
// Prints one JSON object (what the SDK saw, step by step) and exits 0; exits 1 with the reason on stderr.
import { readFileSync } from 'node:fs';
import { RealtimeAgent, RealtimeSession, tool } from '@openai/agents-realtime';
import { z } from 'zod';
import { report } from './report.mjs';

const [url, pcmPath] = process.argv.slice(2);
const TIMEOUT_MS = 60_000;
const weatherCalls = [];
const bookings = [];

const getWeather = tool({
  name: 'get_weather',
  description: 'Get the weather for a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    weatherCalls.push(city);
    return `The weather in ${city} is sunny.`;
  },
});
const bookTable = tool({
  name: 'book_table',
  description: 'Book a restaurant table.',
  parameters: z.object({ restaurant: z.string(), people: z.number().int() }),
  needsApproval: true,
  execute: async ({ restaurant, people }) => {
    bookings.push({ restaurant, people });
    return `Booked ${restaurant} for ${people}.`;
  },
});
const weatherAgent = new RealtimeAgent({
  name: 'Weather agent',
  handoffDescription: 'Knows the weather anywhere.',
  instructions: 'You tell people the weather.',
  tools: [getWeather],
});
const assistant = new RealtimeAgent({
  name: 'Assistant',
  instructions: 'You are a helpful assistant.',
  tools: [bookTable],
  handoffs: [weatherAgent],
});
weatherAgent.handoffs = [assistant];

const session = new RealtimeSession(assistant, {
  transport: 'websocket',
  model: 'gpt-realtime',
  config: { audio: { input: { transcription: { model: 'gpt-4o-mini-transcribe' } } } },
  outputGuardrails: [
    {
      name: 'no_paris',
      execute: async ({ agentOutput }) => ({
        tripwireTriggered: agentOutput.includes('Paris'),
        outputInfo: { word: 'Paris' },
      }),
    },
  ],
  outputGuardrailSettings: { debounceTextLength: 10 },
});

const errors = [];
const handoffs = [];
const guardrailTrips = [];
const ends = [];
let approve = true;
session.on('error', (error) => errors.push(JSON.stringify(error.error ?? String(error))));
session.on('agent_handoff', (_context, from, to) => handoffs.push([from.name, to.name]));
session.on('guardrail_tripped', (_context, _agent, error) => guardrailTrips.push(error.message));
session.on('agent_end', (_context, agent, output) => ends.push({ agent: agent.name, output }));
session.on('tool_approval_requested', (_context, _agent, request) => {
  if (approve) session.approve(request.approvalItem);
  else session.reject(request.approvalItem);
});

function within(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} in time`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// The agent_end of the agent that speaks once nothing is left to do: a reply with no tool call in it.
function settled() {
  return within(
    new Promise((resolve) => {
      const onEnd = () => {
        setTimeout(() => {
          const last = session.history.at(-1);
          if (last?.type === 'message' && last.role === 'assistant' && last.status === 'completed') {
            session.off('agent_end', onEnd);
            resolve(text(last));
          }
        }, 300);
      };
      session.on('agent_end', onEnd);
    }),
    'settled reply',
  );
}

function text(item) {
  return item.content.map((part) => part.transcript ?? part.text ?? '').join(' ');
}

function messages() {
  return session.history
    .filter((item) => item.type === 'message')
    .map((item) => ({ role: item.role, status: item.status, text: text(item) }));
}

async function speak(path) {
  const pcm = readFileSync(path);
  const chunk = 960; // 20 ms
  for (let offset = 0; offset < pcm.length; offset += chunk) {
    const piece = pcm.subarray(offset, offset + chunk);
    session.sendAudio(piece.buffer.slice(piece.byteOffset, piece.byteOffset + piece.byteLength));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Then silence, as a microphone keeps sending: 5 s, past semantic_vad's longest wait at the SDK's
  // eagerness (medium: 4 s when the words look unfinished), so the turn ends whatever its cues say.
  const silence = new ArrayBuffer(chunk);
  for (let index = 0; index < 250; index += 1) {
    session.sendAudio(silence);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function main() {
  await session.connect({ apiKey: 'sk-test', url });
  const steps = {};

  let reply = settled();
  session.sendMessage('Book a table at Luigi for 4 people.');
  steps.approved = await reply;

  approve = false;
  reply = settled();
  session.sendMessage('Book a table at Mario for 2 people.');
  steps.rejected = await reply;

  reply = settled();
  session.sendMessage('Transfer me to the weather agent.');
  steps.handedOver = await reply;

  reply = settled();
  session.sendMessage('What is the weather like in Rome?');
  steps.weather = await reply;

  // Its spoken answer names Paris: the guardrail trips, the SDK cancels it and sends its feedback.
  const tripped = within(new Promise((resolve) => session.once('guardrail_tripped', resolve)), 'guardrail');
  const speaking = speak(pcmPath); // its trailing silence goes on while the answer is cut and redone
  await tripped;
  steps.afterGuardrail = await settled();
  await speaking;

  const report = {
    steps,
    handoffs,
    weatherCalls,
    bookings,
    guardrailTrips,
    ends,
    messages: messages(),
    errors,
  };
  session.close();
  return report;
}

report(main, errors);
