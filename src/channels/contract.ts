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
      /**
       * Words from a form (Discord's modal, Slack's; these reply to a prompt's message) or a command (Slack's
       * `/agent-bridge`): the reply is shown to the sender only. Absent for messages.
       */
      acknowledge?(text: string): Promise<void>;
    }
  | {
      type: 'button';
      target: ChatTarget;
      from: ChatUser;
      data: string;
      message: MessageRef;
      /** Shows a short notice to the person who pressed (Telegram's answerCallbackQuery). */
      acknowledge(text?: string): Promise<void>;
      /**
       * Where the platform has forms (Discord's modals): asks the person to type an answer; it arrives as a
       * text event replying to `message`. Absent elsewhere: people reply to the message instead.
       */
      askForText?(title: string): Promise<void>;
    }
  | {
      type: 'files';
      target: ChatTarget;
      from: ChatUser;
      files: InboundFile[];
      /** The words sent with the files. */
      caption?: string;
    }
  | {
      /** A thread was archived or deleted: its session (and worktree) may end. */
      type: 'thread_closed';
      target: ChatTarget & { threadId: string };
      reason: 'archived' | 'deleted';
    };

export interface InboundFile {
  fileName: string;
  size: number;
  /** Refuses more than `maxBytes`; gives up after the platform's download timeout. */
  download(maxBytes: number): Promise<Buffer>;
}

/** A button on a message the host keeps up to date (the control panel). */
export interface PanelButton {
  label: string;
  /** What comes back in the button event's `data`. */
  data: string;
  style?: 'primary' | 'secondary' | 'success' | 'danger';
}

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
  /** Posts a message with buttons, or edits it in place when `ref` is given (the control panel). */
  sendPanel?(
    target: ChatTarget,
    text: string,
    buttons: PanelButton[][],
    ref?: MessageRef,
  ): Promise<MessageRef>;
  /** The largest text message the platform takes, in characters (longer text is split). */
  readonly textLimit?: number;
}
