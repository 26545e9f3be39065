// The Vercel AI SDK (`ai` + `@ai-sdk/openai`, pinned in package-lock.json) against mockengine, only the
// base URL changed: for the Chat Completions model (`openai.chat(id)`) and the default Responses model
// (`openai(id)`), generateText with a tool and stopWhen, streamText (the full stream's part types),
// a follow-up turn by ellipsis, structured output (generateText's `output` with a zod schema, and
// generateObject), a forced tool and a refused request. Prints one JSON report line; test_js_ai_sdk.py asserts on it.
import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, generateObject, generateText, Output, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";

const openai = createOpenAI({ baseURL: process.argv[2], apiKey: "sk-test" });
const calls = [];
const weather = tool({
  description: "Get the weather for a city.",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    calls.push(city);
    return `It is sunny and 21 degrees in ${city}.`;
  },
});
const CityWeather = z.object({ city: z.string(), temperature_c: z.number().int(), summary: z.string() });
const said = "It is 21 degrees and sunny in Paris.";

async function drive(model) {
  const out = {};
  calls.length = 0;
  const plain = await generateText({ model, prompt: "Hello!" });
  out.plain = { text: plain.text, finishReason: plain.finishReason, usage: plain.usage };

  const looped = await generateText({
    model, prompt: "What is the weather in Paris?", tools: { weather }, stopWhen: stepCountIs(5),
  });
  out.looped = {
    text: looped.text, steps: looped.steps.map((s) => s.finishReason), calls: [...calls],
    totalUsage: looped.totalUsage,
  };

  // The AI SDK's documented chat loop: the next turn's messages are the earlier ones plus
  // `response.messages`, which (ai 7) holds the last step only: the answer's text, not the call.
  calls.length = 0;
  const first = [{ role: "user", content: "What is the weather in Paris?" }];
  const followUp = await generateText({
    model, tools: { weather }, stopWhen: stepCountIs(5),
    messages: [...first, ...looped.response.messages, { role: "user", content: "And in Rome?" }],
  });
  out.followUp = { text: followUp.text, calls: [...calls] };

  calls.length = 0;
  const streamed = streamText({
    model, prompt: "What is the weather in Paris?", tools: { weather }, stopWhen: stepCountIs(5),
  });
  const parts = [];
  let inputDeltas = "";
  for await (const part of streamed.fullStream) {
    parts.push(part.type);
    if (part.type === "tool-input-delta") inputDeltas += part.delta;
    if (part.type === "error") throw part.error;
  }
  out.streamed = {
    text: await streamed.text, parts: [...new Set(parts)], inputDeltas, calls: [...calls],
    totalUsage: await streamed.totalUsage,
  };

  const parallel = await generateText({ model, prompt: "What is the weather in Paris and in London?", tools: { weather } });
  out.parallel = parallel.toolCalls.map((c) => c.input);
  const forced = await generateText({ model, prompt: said, tools: { weather }, toolChoice: "required" });
  out.forced = forced.toolCalls.map((c) => c.input);

  out.output = (await generateText({ model, prompt: said, output: Output.object({ schema: CityWeather }) })).output;
  out.object = (await generateObject({ model, schema: CityWeather, prompt: said })).object;

  try {
    await generateText({ model, prompt: "Hello!", temperature: 5, maxRetries: 0 });
    out.refused = null;
  } catch (error) {
    out.refused = APICallError.isInstance(error)
      ? { status: error.statusCode, body: JSON.parse(error.responseBody ?? "{}") }
      : { other: String(error) };
  }
  return out;
}

const report = {
  chat: await drive(openai.chat("gpt-4o-mini")),
  responses: await drive(openai("gpt-4o-mini")),
};
console.log(JSON.stringify(report));
