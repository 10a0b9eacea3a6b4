/**
 * A Channel (src/channels/contract.ts) with no network, for the daemon benchmarks: everything agent-bridge sends
 * is timestamped (wall clock, comparable with an agent's $EPOCHREALTIME) the moment the call arrives, handed
 * to a listener and counted; `type()` is a person writing in a chat.
 */
import type {
  Channel,
  ChatTarget,
  InboundEvent,
  MessageRef,
  PromptOutcome,
  PromptView,
} from '../src/channels/contract.js';
import { wallNow } from './support.js';

export type SentKind = 'text' | 'file' | 'prompt' | 'outcome' | 'edit';

export interface Sent {
  kind: SentKind;
  chatId: string;
  /** The message's text; a file's content; a prompt's excerpt; an outcome's status. */
  text: string;
  /** wallNow() when the call arrived. */
  at: number;
}

export class RecordingChannel implements Channel {
  readonly counts: Record<SentKind, number> = { text: 0, file: 0, prompt: 0, outcome: 0, edit: 0 };
  private inbound: ((event: InboundEvent) => void) | null = null;
  private nextId = 0;

  constructor(
    readonly name: string,
    private readonly onSend: (sent: Sent) => void,
  ) {}

  start(onInbound: (event: InboundEvent) => void): Promise<void> {
    this.inbound = onInbound;
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.inbound = null;
    return Promise.resolve();
  }

  /** `user` writes `text` in the chat `chatId`. */
  type(chatId: string, text: string, user = 'bench'): void {
    if (!this.inbound) throw new Error(`channel ${this.name} is not started`);
    this.inbound({
      type: 'text',
      target: { chatId },
      from: { id: user, name: user },
      text,
      messageId: `in-${++this.nextId}`,
    });
  }

  sendText(target: ChatTarget, text: string): Promise<MessageRef> {
    return this.record('text', target, text);
  }

  sendFile(target: ChatTarget, _fileName: string, data: Buffer): Promise<MessageRef> {
    return this.record('file', target, data.toString('utf8'));
  }

  sendPrompt(target: ChatTarget, prompt: PromptView): Promise<MessageRef> {
    return this.record('prompt', target, prompt.excerpt);
  }

  async showOutcome(ref: MessageRef, _prompt: PromptView, outcome: PromptOutcome): Promise<void> {
    await this.record('outcome', ref, outcome.status);
  }

  async editText(ref: MessageRef, text: string): Promise<void> {
    await this.record('edit', ref, text);
  }

  private record(kind: SentKind, target: ChatTarget, text: string): Promise<MessageRef> {
    const at = wallNow();
    this.counts[kind]++;
    this.onSend({ kind, chatId: target.chatId, text, at });
    return Promise.resolve({ ...target, messageId: `out-${++this.nextId}` });
  }
}
