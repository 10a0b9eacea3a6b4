import type { PromptOutcome, PromptView } from './view-types.js';

/**
 * The channel contract: what every chat platform (Telegram, Discord, Slack, the web, the terminal) does for
 * agent-bridge, independent of the platform. Channels know nothing of agents or drivers.
 */

/** Where a message goes: a chat, and optionally a thread (forum topic, Discord thread, Slack thread). */
export interface ChatTarget {
  chatId: string;
  threadId?: string;
}

/** A message a channel sent, to edit it later. */
export interface MessageRef extends ChatTarget {
  messageId: string;
}

export interface ChatUser {
  id: string;
  name: string;
}

export type InboundEvent =
  | {
      type: 'text';
      target: ChatTarget;
      from: ChatUser;
      text: string;
      messageId: string;
      replyTo?: MessageRef;
    }
  | {
      type: 'button';
      target: ChatTarget;
      from: ChatUser;
      data: string;
      message: MessageRef;
      /** Shows a short notice to the person who pressed (Telegram's answerCallbackQuery). */
      acknowledge(text?: string): Promise<void>;
    }
  | {
      type: 'file';
      target: ChatTarget;
      from: ChatUser;
      fileName: string;
      size: number;
      caption?: string;
      download(maxBytes: number): Promise<Buffer>;
    };

export type { PromptOutcome, PromptView } from './view-types.js';

export interface Channel {
  readonly name: string;
  start(onInbound: (event: InboundEvent) => void): Promise<void>;
  stop(): Promise<void>;
  sendText(target: ChatTarget, text: string): Promise<MessageRef>;
  sendFile(target: ChatTarget, fileName: string, data: Buffer, caption?: string): Promise<MessageRef>;
  sendPrompt(target: ChatTarget, prompt: PromptView): Promise<MessageRef>;
  /** Edits a prompt's message to show what happened (chosen, by whom, or expired) and removes its buttons. */
  showOutcome(ref: MessageRef, prompt: PromptView, outcome: PromptOutcome): Promise<void>;
  /** Sends more of the output behind a low-confidence prompt. */
  editText(ref: MessageRef, text: string): Promise<void>;
}
