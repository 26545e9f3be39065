// A hosted MCP tool (hostedMcpTool) in the OpenAI Agents JS SDK (@openai/agents-realtime) against the
// engine, which lists and calls the MCP server itself: the SDK learns the server's tools from the
// mcp_list_tools item, sees the mcp_call with the server's output, and (automaticallyTriggerResponseForMcpToolCalls,
// on by default) asks for the answer, which quotes it.
// Usage: node agents_hosted_mcp.mjs ws://127.0.0.1:PORT/v1/realtime?model=gpt-realtime <MCP server URL> [approve]
// (approve: requireApproval 'always', and the app approves each request with session.approve()).
// Prints one JSON object {tools, calls, approvals, replies, errors} and exits 0; 1 on failure.
import { hostedMcpTool } from '@openai/agents-core';
import { RealtimeAgent, RealtimeSession } from '@openai/agents-realtime';
import { report } from './report.mjs';

const [url, mcpUrl, mode] = process.argv.slice(2);
const TIMEOUT_MS = 30_000;
const requireApproval = mode === 'approve' ? 'always' : 'never';
const weather = hostedMcpTool({ serverLabel: 'weather', serverUrl: mcpUrl, requireApproval });
const agent = new RealtimeAgent({ name: 'Assistant', instructions: 'Be brief.', tools: [weather] });
const session = new RealtimeSession(agent, {
  transport: 'websocket',
  model: 'gpt-realtime',
  config: { outputModalities: ['text'] },
});
const errors = [];
const replies = [];
const calls = [];
const approvals = [];
session.on('error', (error) => errors.push(error.error?.error ?? String(error)));
session.on('mcp_tool_call_completed', (_context, _agent, call) => calls.push(call));
session.on('tool_approval_requested', (_context, _agent, request) => {
  approvals.push(request.approvalItem.rawItem.name);
  session.approve(request.approvalItem).catch((error) => errors.push(String(error)));
});

function waitFor(emitter, name, check = () => true) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${name} in time`)), TIMEOUT_MS);
    const listener = (...args) => {
      if (!check(...args)) return;
      clearTimeout(timer);
      emitter.off(name, listener);
      resolve(args);
    };
    emitter.on(name, listener);
  });
}

async function main() {
  const listed = waitFor(session, 'mcp_tools_changed', (tools) => tools.length > 0);
  await session.connect({ apiKey: 'sk-test', url });
  const [tools] = await listed;
  session.on('agent_end', (_context, _agent, output) => replies.push(output));
  const answered = waitFor(session, 'agent_end', (_context, _agent, output) => output.includes('sunny'));
  session.sendMessage("What's the weather like in Paris?");
  await answered;
  session.close();
  return {
    tools: tools.map((tool) => tool.name),
    calls: calls.map((call) => ({ name: call.name, arguments: call.arguments, output: call.output })),
    approvals,
    replies,
    errors,
  };
}

report(main, errors);
