// The OpenAI Agents JS SDK (@openai/agents-realtime) over WebSocket in Node, as its docs show, with only
// the URL changed: a typed turn, then a declared tool called and its output followed by a reply.
// Usage: node agents_realtime.mjs ws://127.0.0.1:PORT/v1/realtime?model=gpt-realtime
// Prints one JSON object (what the SDK saw) and exits 0; exits 1 with the reason on stderr otherwise.
import { RealtimeAgent, RealtimeSession, tool } from '@openai/agents-realtime';
import { z } from 'zod';
import { report } from './report.mjs';

const url = process.argv[2];
const TIMEOUT_MS = 60_000;
const weatherCalls = [];

const getWeather = tool({
  name: 'get_weather',
  description: 'Get the weather for a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    weatherCalls.push(city);
    return `The weather in ${city} is sunny.`;
  },
});
const agent = new RealtimeAgent({
  name: 'Assistant',
  instructions: 'You are a helpful assistant.',
  tools: [getWeather],
});
const session = new RealtimeSession(agent, { transport: 'websocket', model: 'gpt-realtime' });

const errors = [];
const serverEvents = [];
session.on('error', (error) => errors.push(String(error.error ?? error)));
session.on('transport_event', (event) => {
  serverEvents.push(event.type);
  if (event.type === 'error') errors.push(JSON.stringify(event));
});

function nextAgentEnd() {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no agent_end in time')), TIMEOUT_MS);
    session.once('agent_end', (_context, _agent, output) => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

function toolEnd() {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no agent_tool_end in time')), TIMEOUT_MS);
    session.once('agent_tool_end', (_context, _agent, calledTool, result) => {
      clearTimeout(timer);
      resolve({ name: calledTool.name, result });
    });
  });
}

function assistantTranscripts() {
  return session.history
    .filter((item) => item.type === 'message' && item.role === 'assistant')
    .map((item) => item.content.map((part) => part.transcript ?? part.text ?? '').join(' '));
}

async function main() {
  await session.connect({ apiKey: 'sk-test', url });

  const typedEnd = nextAgentEnd();
  session.sendMessage('What is the capital of France?');
  const typedOutput = await typedEnd;

  const calledTool = toolEnd();
  session.sendMessage('What is the weather like in Paris?');
  const toolResult = await calledTool;
  const followUp = await nextAgentEnd();

  session.close();
  return {
    typedOutput,
    toolResult,
    followUp,
    weatherCalls,
    assistantTranscripts: assistantTranscripts(),
    historyTypes: session.history.map((item) => item.type),
    errors,
    serverEvents,
  };
}

report(main, errors);
