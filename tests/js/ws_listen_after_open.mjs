// A Node WebSocket client that attaches its message listener after awaiting 'open', as LiveKit Agents
// JS's RealtimeSession does (createWsConn resolves on 'open'; runWs then sets onmessage), and as
// `await once(ws, 'open')` code does. Opens N sessions one after another and reports the first event
// each one's listener got ("nothing" after 2 s).
// Usage: node ws_listen_after_open.mjs ws://127.0.0.1:PORT/v1/realtime?model=gpt-realtime N
// Prints one JSON object ({"first": [...]}) and exits 0.
import WebSocket from 'ws';

const [url, count] = [process.argv[2], Number(process.argv[3] ?? 20)];
const first = [];
for (let i = 0; i < count; i++) {
  const ws = await new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { Authorization: 'Bearer sk-test' } });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
  first.push(
    await new Promise((resolve) => {
      const timer = setTimeout(() => resolve('nothing'), 2000);
      ws.onmessage = (message) => {
        clearTimeout(timer);
        resolve(JSON.parse(message.data).type);
      };
    }),
  );
  ws.close();
}
console.log(JSON.stringify({ first }));
process.exit(0);
