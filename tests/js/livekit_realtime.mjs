// LiveKit Agents for Node.js (@livekit/agents + @livekit/agents-plugin-openai): the plugin's
// openai.realtime.RealtimeModel with only baseURL changed, its RealtimeSession driven directly as LiveKit's
// AgentActivity drives it, without a LiveKit server or room: audio frames pushed for a spoken turn, a
// typed turn and a function tool through updateChatCtx / updateTools / generateReply, and LiveKit's
// interruption (interrupt() then truncate() at the audio played) plus a barge-in cut by server_vad; then
// LiveKit's documented testing API, AgentSession.run({ userInput }) with an Agent's tool.
// Usage: node livekit_realtime.mjs http://127.0.0.1:PORT/v1 QUESTION.pcm OTHER.pcm
// (PCM16 mono 24 kHz files). Prints one JSON object (what LiveKit saw) and exits 0; exits 1 with the
// reason on stderr otherwise.
import { initializeLogger, llm, voice } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import { AudioFrame } from '@livekit/rtc-node';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';

const [baseURL, questionPath, otherPath] = process.argv.slice(2);
const TIMEOUT_MS = 60_000;
const SAMPLE_RATE_HZ = 24_000;
const CHUNK_SAMPLES = 480; // 20 ms

initializeLogger({ pretty: false, level: 'warn' });

function within(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not in time`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function waitFor(session, eventName) {
  return within(new Promise((resolve) => session.once(eventName, resolve)), eventName);
}

function watch(session) {
  const seen = { errors: [], sent: [], received: [], metrics: [] };
  session.on('metrics_collected', (m) => seen.metrics.push(m));
  session.on('error', (ev) => seen.errors.push(String(ev.error?.message ?? ev.error ?? ev)));
  session.on('openai_server_event_received', (ev) => {
    seen.received.push(ev.type);
    if (ev.type === 'error') seen.errors.push(ev.error);
  });
  session.on('openai_client_event_queued', (ev) => seen.sent.push(ev.type));
  return seen;
}

// A microphone: 20 ms frames at real-time pace, then silence_ms of silence.
async function speak(session, pcm, silenceMs = 0) {
  const audio = Buffer.concat([pcm, Buffer.alloc(silenceMs * 48)]);
  const start = Date.now();
  for (let index = 0, offset = 0; offset < audio.length; index++, offset += CHUNK_SAMPLES * 2) {
    const chunk = audio.subarray(offset, offset + CHUNK_SAMPLES * 2);
    const samples = new Int16Array(chunk.length / 2);
    for (let i = 0; i < samples.length; i++) samples[i] = chunk.readInt16LE(i * 2);
    session.pushAudio(new AudioFrame(samples, SAMPLE_RATE_HZ, 1, samples.length));
    await sleep(Math.max(0, start + (index + 1) * 20 - Date.now()));
  }
}

async function collectText(message) {
  let text = '';
  for await (const chunk of message.textStream) text += chunk;
  return text;
}

// The rest of a message's streams (audio: its iterator, when a first frame was already read).
async function drain(message, audio = message.audioStream[Symbol.asyncIterator]()) {
  while (!(await audio.next()).done);
  for await (const _ of message.textStream);
}

// Every message of a generation: its text, and the function calls it made.
async function collect(generation) {
  const texts = [];
  const calls = [];
  const messages = (async () => {
    for await (const message of generation.messageStream) texts.push(await collectText(message));
  })();
  const functions = (async () => {
    for await (const call of generation.functionStream) calls.push(call);
  })();
  await within(Promise.all([messages, functions]), 'generation');
  return { text: texts.join(' '), calls };
}

function model(turnDetection) {
  return new openai.realtime.RealtimeModel({
    baseURL, // the only change from the real service
    apiKey: 'sk-test',
    voice: 'alloy',
    turnDetection,
  });
}

const report = { elapsedMs: {} };
const t0 = Date.now();
const lap = (name) => (report.elapsedMs[name] = Date.now() - t0);

// 1. A spoken turn: server_vad ends it, the user's words are transcribed, LiveKit's generation answers.
{
  const session = model({ type: 'server_vad', silence_duration_ms: 500 }).session();
  const seen = watch(session);
  const transcripts = [];
  session.on('input_audio_transcription_completed', (ev) => ev.isFinal && transcripts.push(ev.transcript));
  const generation = waitFor(session, 'generation_created');
  await speak(session, readFileSync(questionPath), 2000);
  const created = await generation;
  const { text } = await collect(created);
  await session.close();
  report.spoken = {
    userInitiated: created.userInitiated,
    text,
    transcripts,
    metrics: seen.metrics,
    errors: seen.errors,
  };
}

lap('spoken');

// 2. A typed turn with a function tool: LiveKit sends the history as items and the tools in
// session.update, runs the call the model makes, sends its output and asks for the reply.
{
  const weatherCalls = [];
  const getWeather = llm.tool({
    name: 'get_weather',
    description: 'Get the weather for a city.',
    parameters: z.object({ city: z.string().describe('The city name') }),
    execute: async ({ city }) => {
      weatherCalls.push(city);
      return `The weather in ${city} is sunny.`;
    },
  });
  const session = model({ type: 'server_vad' }).session();
  const seen = watch(session);
  await session.updateInstructions('You are a helpful assistant.');
  await session.updateTools(new llm.ToolContext([getWeather]));

  const typed = session.chatCtx.copy();
  typed.addMessage({ role: 'user', content: 'What is the capital of France?' });
  await within(session.updateChatCtx(typed), 'updateChatCtx');
  const answer = await collect(await within(session.generateReply(), 'generateReply'));

  const asked = session.chatCtx.copy();
  asked.addMessage({ role: 'user', content: 'What is the weather like in Paris?' });
  await within(session.updateChatCtx(asked), 'updateChatCtx');
  const first = await collect(await within(session.generateReply(), 'generateReply'));
  const call = first.calls[0];
  const output = await getWeather.execute(JSON.parse(call.args), {});
  const answered = session.chatCtx.copy();
  answered.insert(llm.FunctionCallOutput.create({ callId: call.callId, name: call.name, output, isError: false }));
  await within(session.updateChatCtx(answered), 'updateChatCtx');
  const followUp = await collect(await within(session.generateReply(), 'generateReply'));
  const history = session.chatCtx.items.map((item) => item.type);
  await session.close();
  report.typed = {
    answer: answer.text,
    call: call && { name: call.name, args: JSON.parse(call.args), callId: call.callId },
    weatherCalls,
    followUp: followUp.text,
    history,
    errors: seen.errors,
  };
}

lap('typed');

// 3. Interruptions. Speech over a long reply (server_vad with interrupt_response cuts it), then
// LiveKit's own interrupt as AgentSession does it: response.cancel, then a truncate at what was played.
{
  const session = model({ type: 'server_vad', silence_duration_ms: 500, interrupt_response: true }).session();
  const seen = watch(session);
  const story = 'Tell me a long story about a lighthouse keeper.';

  const cutByVad = await within(session.generateReply(story), 'generateReply');
  const cutMessage = (await within(cutByVad.messageStream[Symbol.asyncIterator]().next(), 'message')).value;
  const cutAudio = cutMessage.audioStream[Symbol.asyncIterator]();
  await within(cutAudio.next(), 'first audio');
  const started = waitFor(session, 'input_speech_started');
  const answerToSpeech = new Promise((resolve) => {
    session.on('generation_created', (ev) => !ev.userInitiated && resolve(ev));
  });
  await speak(session, readFileSync(otherPath), 1500);
  await started;
  await within(drain(cutMessage, cutAudio), 'drain after barge-in');
  const cutText = await collect(await within(answerToSpeech, 'answer to the speech'));

  const interrupted = await within(session.generateReply(story), 'generateReply');
  const message = (await within(interrupted.messageStream[Symbol.asyncIterator]().next(), 'message')).value;
  const audio = message.audioStream[Symbol.asyncIterator]();
  const firstFrame = (await within(audio.next(), 'first audio')).value;
  await session.interrupt();
  const playedMs = Math.floor((firstFrame.samplesPerChannel / firstFrame.sampleRate) * 1000);
  await session.truncate({ messageId: message.messageId, modalities: ['audio'], audioEndMs: playedMs });
  await within(drain(message, audio), 'drain after interrupt');
  const after = await collect(await within(session.generateReply(), 'generateReply'));
  await sleep(300); // the truncate's answer arrives before the session closes
  await session.close();
  report.interrupt = {
    answerToSpeech: cutText.text,
    playedMs,
    after: after.text,
    sent: seen.sent,
    received: seen.received,
    metrics: seen.metrics,
    errors: seen.errors,
  };
}

lap('interrupt');

// 4. AgentSession.run({ userInput }), LiveKit's testing API (no room): a typed turn, then a tool turn.
// Its RunResult ends at the tool's output (LiveKit JS watches the tool reply's speech only for models
// that generate it themselves, which this plugin's does not), so the reply is awaited in the history.
{
  const weatherCalls = [];
  const agent = new voice.Agent({
    instructions: 'You are a helpful assistant.',
    tools: {
      get_weather: llm.tool({
        description: 'Get the weather for a city.',
        parameters: z.object({ city: z.string().describe('The city name') }),
        execute: async ({ city }) => {
          weatherCalls.push(city);
          return `The weather in ${city} is sunny.`;
        },
      }),
    },
  });
  const realtimeModel = model({ type: 'server_vad' });
  const openSession = realtimeModel.session.bind(realtimeModel);
  const serverErrors = [];
  realtimeModel.session = () => {
    const created = openSession();
    created.on('openai_server_event_received', (ev) => ev.type === 'error' && serverErrors.push(ev.error));
    return created;
  };
  const session = new voice.AgentSession({ llm: realtimeModel });
  const errors = [];
  session.on('error', (ev) => errors.push(String(ev.error?.message ?? ev.error)));
  await within(session.start({ agent }), 'AgentSession.start');
  lap('agentSession.start');
  const runs = [];
  for (const said of ['What is the capital of France?', 'What is the weather like in Paris?']) {
    const result = await within(session.run({ userInput: said }).wait(), 'run');
    runs.push(result.events.map((e) => ({ type: e.type, text: e.item.textContent ?? null, name: e.item.name ?? null })));
  }
  const replied = () => {
    const items = session.history.items;
    const output = items.findIndex((item) => item.type === 'function_call_output');
    return output >= 0 && items.slice(output + 1).find((item) => item.type === 'message' && item.role === 'assistant');
  };
  await within(
    (async () => {
      while (!replied()) await sleep(50);
    })(),
    'the reply after the tool output',
  );
  lap('agentSession.replied');
  await session.close();
  lap('agentSession.closed');
  report.agentSession = { runs, weatherCalls, toolReply: replied().textContent, errors: [...errors, ...serverErrors] };
}

console.log(JSON.stringify(report));
process.exit(0);
