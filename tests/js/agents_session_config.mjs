// The session config an app gives the OpenAI Agents JS SDK (@openai/agents-realtime), as the SDK sends it
// in its session.update on connect, and what the engine answered.
// Usage: node agents_session_config.mjs ws://127.0.0.1:PORT/v1/realtime?model=gpt-realtime '<config JSON>' [MCP URL]
// (MCP URL: the agent also has a hosted MCP tool, hostedMcpTool, on the MCP server there).
// Prints one JSON object {session (the last session.updated), errors} and exits 0; 1 on failure.
import { hostedMcpTool } from '@openai/agents-core';
import { RealtimeAgent, RealtimeSession } from '@openai/agents-realtime';
import { report } from './report.mjs';

const [url, config, mcpUrl] = process.argv.slice(2);
const TIMEOUT_MS = 30_000;
const tools = mcpUrl ? [hostedMcpTool({ serverLabel: 'weather', serverUrl: mcpUrl, requireApproval: 'never' })] : [];
const agent = new RealtimeAgent({ name: 'Assistant', instructions: 'You are a helpful assistant.', tools });
const session = new RealtimeSession(agent, { transport: 'websocket', model: 'gpt-realtime', config: JSON.parse(config) });
const errors = [];
let updated = null;
session.on('error', (error) => errors.push(error.error?.error ?? String(error)));
session.on('transport_event', (event) => {
  if (event.type === 'session.updated') updated = event.session;
});

async function main() {
  await session.connect({ apiKey: 'sk-test', url });
  // The SDK's own session.update and its answer, then a typed turn: the session still works.
  const ended = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no agent_end in time')), TIMEOUT_MS);
    session.once('agent_end', (_context, _agent, output) => {
      clearTimeout(timer);
      resolve(output);
    });
  });
  session.sendMessage('What is the capital of France?');
  const reply = await ended;
  session.close();
  return { session: updated, reply, errors };
}

report(main, errors);
