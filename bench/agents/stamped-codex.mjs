// A scripted Codex app-server peer for bench/structured-latency.ts: each turn asks one command approval, then
// answers; both stamped with this process's wall clock (timeOrigin + now, in ms) just before they are written.
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

const now = () => (performance.timeOrigin + performance.now()).toFixed(3);
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
const thread = { id: 'bench-thread' };
let turn = 0;
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') return send({ id: message.id, result: {} });
  if (message.method === 'thread/start') return send({ id: message.id, result: { thread, model: 'bench' } });
  if (message.method === 'turn/start') {
    turn++;
    send({ id: message.id, result: { turn: { id: `turn-${turn}` } } });
    const params = {
      threadId: thread.id,
      turnId: `turn-${turn}`,
      itemId: `item-${turn}`,
      command: `touch t${turn} # prompt-at=${now()}`,
      availableDecisions: ['accept', 'cancel'],
    };
    return send({ id: `approval-${turn}`, method: 'item/commandExecution/requestApproval', params });
  }
  if (String(message.id).startsWith('approval-')) {
    const item = { type: 'agentMessage', id: `msg-${turn}`, text: `done message-at=${now()}` };
    send({ method: 'item/completed', params: { item, threadId: thread.id, turnId: `turn-${turn}` } });
    send({
      method: 'turn/completed',
      params: { threadId: thread.id, turn: { id: `turn-${turn}`, status: 'completed', error: null } },
    });
  }
});
