import { LOCAL_CHAT, TerminalChannel } from '../channels/terminal/terminal-channel.js';
import { systemClock } from '../core/clock.js';
import { ChannelRelay, type RelayOptions } from '../sessions/channel-relay.js';
import type { Store } from '../store/store.js';
import { isProcessAlive } from './process.js';
import { userName } from './user.js';

/**
 * This terminal as a chat (stdin lines in, prompts and messages out) for the sessions `serves` picks, kept in
 * books of its own (`terminal:<pid>`): `approvals --watch`, and `run --driver structured`'s conversation.
 */
export function terminalRelay(
  store: Store,
  options: Pick<RelayOptions, 'serves' | 'onAnswer' | 'route' | 'answer'> & { outputThreshold?: number },
): ChannelRelay {
  const user = userName();
  return new ChannelRelay({
    channel: new TerminalChannel({ input: process.stdin, output: process.stdout, user }),
    store,
    clock: systemClock,
    chats: [{ chatId: LOCAL_CHAT }],
    allowedUsers: new Set([user]),
    outputThreshold: options.outputThreshold ?? 1500,
    isAlive: isProcessAlive,
    exclusive: false,
    bookkeeping: `terminal:${process.pid}`,
    ...(options.serves ? { serves: options.serves } : {}),
    ...(options.onAnswer ? { onAnswer: options.onAnswer } : {}),
    ...(options.route ? { route: options.route } : {}),
    ...(options.answer ? { answer: options.answer } : {}),
  });
}
