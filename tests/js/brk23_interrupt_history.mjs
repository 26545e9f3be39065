// The OpenAI Agents JS SDK's RealtimeSession as a voice app uses it mid-call, only the URL changed: a long
// reply cut by `interrupt()` (cancel, then truncate), the history edited with `updateHistory` (the cut
// reply dropped, the user's words corrected: deletes and re-creates), then typed turns: a question about
// the edited words, a tool the app declares (`book_table`), and "What did I just ask you?".
// Usage: node brk23_interrupt_history.mjs ws://127.0.0.1:PORT/v1/realtime?model=gpt-realtime
// Prints one JSON object (what the SDK saw) and exits 0; exits 1 with the reason on stderr otherwise.
import { RealtimeAgent, RealtimeSession, tool } from '@openai/agents-realtime';
import { z } from 'zod';
import { report } from './report.mjs';

const url = process.argv[2];
const TIMEOUT_MS = 60_000;
const calls = [];
const bookTable = tool({
  name: 'book_table',
  description: 'Book a table at the restaurant.',
  parameters: z.object({ party_size: z.number().int(), time: z.string() }),
  execute: async (args) => {
    calls.push(args);
    return 'Booked.';
  },
});
const agent = new RealtimeAgent({ name: 'Host', instructions: 'Be brief.', tools: [bookTable] });
const session = new RealtimeSession(agent, { transport: 'websocket', model: 'gpt-realtime' });
const errors = [];
session.on('error', (error) => errors.push(String(error.error?.message ?? error.error ?? error)));
session.on('transport_event', (event) => {
  if (event.type === 'error') errors.push(JSON.stringify(event));
});

function serverEvent(type) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} in time`)), TIMEOUT_MS);
    const seen = (event) => {
      if (event.type !== type) return;
      clearTimeout(timer);
      session.off('transport_event', seen);
      resolve(event);
    };
    session.on('transport_event', seen);
  });
}

function agentEnd() {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no agent_end in time')), TIMEOUT_MS);
    session.once('agent_end', (_context, _agent, output) => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const history = () =>
  session.history.map((item) => ({
    type: item.type,
    role: item.role ?? null,
    status: item.status ?? null,
    text: (item.content ?? []).map((part) => part.transcript ?? part.text ?? null).join(' '),
  }));

async function main() {
  await session.connect({ apiKey: 'sk-test', url });
  const firstAudio = serverEvent('response.output_audio.delta');
  session.sendMessage('Tell me a long story about a dragon.');
  await firstAudio;
  await sleep(500);
  const cut = serverEvent('response.done');
  const truncated = serverEvent('conversation.item.truncated');
  session.interrupt();
  const cancelled = (await cut).response.status;
  await truncated;
  session.updateHistory((items) =>
    items
      .filter((item) => !(item.type === 'message' && item.role === 'assistant'))
      .map((item) =>
        item.type === 'message' && item.role === 'user'
          ? { ...item, content: [{ type: 'input_text', text: 'My name is Ada.' }] }
          : item,
      ),
  );
  await serverEvent('conversation.item.done'); // the corrected message re-created
  const edited = history();

  let end = agentEnd();
  session.sendMessage("What's my name?");
  const name = await end;
  end = agentEnd();
  session.sendMessage('Book a table for four at 7 pm.');
  const acting = await end;
  const booked = await agentEnd(); // the reply after the tool's output
  end = agentEnd();
  session.sendMessage('What did I just ask you?');
  const recalled = await end;
  session.close();
  return { cancelled, edited, name, acting, booked, recalled, calls, errors, history: history() };
}

report(main, errors);
