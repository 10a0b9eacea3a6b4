// A scripted ACP agent for bench/structured-latency.ts (on the SDK's agent side): each prompt asks one
// permission, then answers; both stamped with this process's wall clock (timeOrigin + now, in ms).
import { performance } from 'node:perf_hooks';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const now = () => (performance.timeOrigin + performance.now()).toFixed(3);
let turn = 0;
acp
  .agent({ name: 'stamped' })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {},
  }))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: 'bench' }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    turn++;
    const toolCall = { toolCallId: `call-${turn}`, title: `prompt-at=${now()}`, status: 'pending' };
    await client.request(acp.methods.client.session.requestPermission, {
      sessionId: params.sessionId,
      toolCall,
      options: [
        { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    const text = `done message-at=${now()}`;
    await client.notify(acp.methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
    });
    return { stopReason: 'end_turn' };
  })
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
