import type { AgentSession } from '../../sessions/agent-session.js';
import { endStatusOf } from '../../sessions/session-record-files.js';
import { openStore } from '../../store/store.js';
import { terminalRelay } from '../terminal-relay.js';
import { exitCodeOf } from './run.js';

/**
 * `run --driver structured`: the agent speaks its protocol, so there is no screen to pass through. This
 * terminal becomes a conversation with it, as in chat: its messages print as they come, its prompts as
 * numbered blocks (answer with `1`, `no`, or words), every other line is a message for it; `/cancel` (or
 * Ctrl-C while it works) stops what it is doing, Ctrl-C while it waits or Ctrl-D ends it.
 */
export async function converse(session: AgentSession, outputThreshold: number): Promise<number> {
  // The relay's own connection: SQLite tells a connection about other connections' commits only.
  const store = openStore();
  const relay = terminalRelay(store, {
    outputThreshold,
    serves: (record) => record.id === session.id,
    onAnswer: () => session.poke(),
    route: async (event) => {
      if (event.type !== 'text' || event.text.trim() !== '/cancel') return false;
      session.driver.interrupt();
      return true;
    },
  });
  let stoppedBySignal = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signal === 'SIGINT' && !session.isIdle) return session.driver.interrupt();
    stoppedBySignal = true;
    void session.driver.stop();
  };
  const onEnd = () => {
    stoppedBySignal = true;
    void session.driver.stop();
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);
  process.stdin.once('end', onEnd);
  process.stderr.write(
    `agent-bridge: ${session.id.slice(0, 8)} speaks its own protocol (structured driver): type a message; ` +
      `answer a prompt with its number or words; /cancel stops it working; Ctrl-D ends it\n`,
  );
  await relay.start();
  try {
    const exit = await session.exited;
    await session.finish(exit, endStatusOf(exit, stoppedBySignal));
    relay.poke();
    await relay.stop();
    return stoppedBySignal ? 0 : exitCodeOf(exit);
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
    process.stdin.off('end', onEnd);
    store.close();
  }
}
