// A scripted Claude Code stream-json peer for bench/structured-latency.ts: each user message asks one permission
// (`can_use_tool`), then answers; both stamped with this process's wall clock (timeOrigin + now, in ms) just
// before they are written.
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

const now = () => (performance.timeOrigin + performance.now()).toFixed(3);
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
let turn = 0;
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.type === 'control_request' && message.request.subtype === 'initialize')
    return send({
      type: 'control_response',
      response: { subtype: 'success', request_id: message.request_id, response: {} },
    });
  if (message.type === 'control_request')
    return send({
      type: 'control_response',
      response: { subtype: 'success', request_id: message.request_id },
    });
  if (message.type === 'user') {
    turn++;
    const input = { command: `touch t${turn}`, description: `prompt-at=${now()}` };
    return send({
      type: 'control_request',
      request_id: `perm-${turn}`,
      request: { subtype: 'can_use_tool', tool_name: 'Bash', input, tool_use_id: `tool-${turn}` },
    });
  }
  if (message.type === 'control_response') {
    send({
      type: 'assistant',
      parent_tool_use_id: null,
      message: { content: [{ type: 'text', text: `done message-at=${now()}` }] },
    });
    send({ type: 'result', subtype: 'success', is_error: false, session_id: 'bench' });
  }
});
