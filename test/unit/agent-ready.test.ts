import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import type { TerminalSession } from '../../src/drivers/terminal/terminal-session.js';
import { READY_QUIET_MAX_MS, READY_QUIET_MS, whenAgentReady } from '../../src/sessions/agent-ready.js';
import { FakeClock } from '../support/fake-clock.js';

/** An agent's terminal as whenAgentReady hears it: output, idle status, its exit. */
function watched(knowsIdle = true) {
  const clock = new FakeClock();
  const outputs: Array<() => void> = [];
  const events: Array<(event: AgentEvent) => void> = [];
  const terminal = {
    exited: new Promise(() => undefined),
    screen: {
      onOutput: (listener: () => void) => outputs.push(listener),
      onSettled: () => undefined,
    },
  } as unknown as TerminalSession;
  let ready = false;
  void whenAgentReady({ terminal, clock, knowsIdle, idle: false, on: (l) => events.push(l) }, 20_000).then(
    () => (ready = true),
  );
  return {
    clock,
    output: () => outputs.forEach((listener) => listener()),
    idle: () => events.forEach((listener) => listener({ type: 'status', state: 'idle' } as AgentEvent)),
    /** Whether it said ready once the microtasks ran. */
    ready: async () => {
      await Promise.resolve();
      await Promise.resolve();
      return ready;
    },
  };
}

describe('when an agent is ready for a message', () => {
  it('is once it shows its input box and printed nothing more for a while', async () => {
    const agent = watched();
    agent.output();
    agent.clock.advance(READY_QUIET_MS * 2);
    expect(await agent.ready(), 'no box yet').toBe(false);
    agent.idle();
    agent.clock.advance(READY_QUIET_MS - 100);
    agent.output(); // still starting up: the quiet starts again
    agent.clock.advance(READY_QUIET_MS - 100);
    expect(await agent.ready()).toBe(false);
    agent.clock.advance(100);
    expect(await agent.ready()).toBe(true);
  });

  it('is at the latest a little after its box shows, however much it goes on printing', async () => {
    const agent = watched();
    agent.idle();
    for (let at = 0; at < READY_QUIET_MAX_MS - 200; at += 200) {
      agent.clock.advance(200);
      agent.output();
    }
    expect(await agent.ready()).toBe(false);
    agent.clock.advance(200);
    expect(await agent.ready()).toBe(true);
  });
});
