import { createInterface, type Interface } from 'node:readline';
import type {
  Channel,
  ChatTarget,
  InboundEvent,
  MessageRef,
  PromptOutcome,
  PromptView,
} from '../contract.js';
import { spokenDuration } from '../../core/spoken-duration.js';

const ANSWER_WORD = /^(?:\d{1,2}|y|yes|n|no|allow|approve|deny|reject|session|enter|default|cancel|esc)$/i;

/** The one chat of a terminal. */
export const LOCAL_CHAT = 'local';

export interface TerminalChannelOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Who is at this terminal (the local user is always allowed). */
  user: string;
  clock?: { now(): number };
}

/**
 * A plain terminal as a channel (seed 000's terminal provider): prompts print as blocks with their numbered
 * options; a line `<id> <answer>` answers that prompt, a bare answer word (1, y, no, enter...) the latest one, `/commands` work as in chat,
 * anything else goes to the session. No escape codes: it works in a pipe, over ssh, in a log.
 */
export class TerminalChannel implements Channel {
  readonly name = 'terminal';
  private readline: Interface | null = null;
  private nextId = 1;
  /** Prompts printed and still open: id -> message, newest last. */
  private readonly open = new Map<string, MessageRef>();

  constructor(private readonly options: TerminalChannelOptions) {}

  async start(onInbound: (event: InboundEvent) => void): Promise<void> {
    this.readline = createInterface({ input: this.options.input, terminal: false });
    this.readline.on('line', (line) => {
      const event = this.toEvent(line.trim());
      if (event) onInbound(event);
    });
  }

  async stop(): Promise<void> {
    this.readline?.close();
    this.readline = null;
  }

  async sendText(target: ChatTarget, text: string): Promise<MessageRef> {
    this.write(text.endsWith('\n') ? text : text + '\n');
    return this.ref(target);
  }

  async sendFile(target: ChatTarget, fileName: string, data: Buffer, caption?: string): Promise<MessageRef> {
    this.write(
      `--- ${fileName}${caption ? ` (${caption})` : ''} ---\n${data.toString('utf8')}\n--- end ---\n`,
    );
    return this.ref(target);
  }

  async sendPrompt(target: ChatTarget, prompt: PromptView): Promise<MessageRef> {
    const ref = this.ref(target);
    this.open.set(prompt.promptId, ref);
    const { origin } = prompt;
    const left = spokenDuration(prompt.expiresAt - (this.options.clock?.now() ?? Date.now()));
    const lines = [
      `┌ ${prompt.kind} · ${origin.agent} · ${origin.label} · ${origin.host} · ${prompt.promptId.slice(0, 8)} (expires in ${left})`,
      ...prompt.detail.split('\n').map((line) => `│ ${line}`),
      ...(prompt.choices.length
        ? [`│ ${prompt.choices.map((c) => `${c.number}. ${c.label}`).join('   ')}`]
        : []),
      `└ answer: ${prompt.promptId.slice(0, 4)} ${answerHint(prompt)}${prompt.safeDefault ? ` · default: ${prompt.safeDefault}` : ''}`,
    ];
    this.write(lines.join('\n') + '\n');
    return ref;
  }

  async showOutcome(_ref: MessageRef, prompt: PromptView, outcome: PromptOutcome): Promise<void> {
    this.open.delete(prompt.promptId);
    const id = prompt.promptId.slice(0, 8);
    const what =
      outcome.status === 'resolved'
        ? outcome.decidedBy === 'terminal:local'
          ? 'answered at the agent terminal'
          : `${outcome.answer ?? 'answered'} — by ${outcome.decidedBy ?? 'someone'}`
        : outcome.status === 'expired'
          ? `expired${outcome.answer ? `, default applied: ${outcome.answer}` : ''}`
          : `${outcome.status}${outcome.note ? `: ${outcome.note}` : ''}`;
    this.write(`✔ ${id}: ${what}\n`);
  }

  async editText(ref: MessageRef, text: string): Promise<void> {
    await this.sendText(ref, text);
  }

  /** `3f2a 1` answers prompt 3f2a…; `1` answers the newest open prompt; `/x` and other text pass as text. */
  private toEvent(line: string): InboundEvent | null {
    if (!line) return null;
    const from = { id: this.options.user, name: this.options.user };
    const base = {
      type: 'text' as const,
      target: { chatId: LOCAL_CHAT },
      from,
      messageId: String(this.nextId++),
    };
    if (line.startsWith('/')) return { ...base, text: line };
    const addressed = /^([0-9a-f]{4,36})\s+(.+)$/.exec(line);
    const match = addressed
      ? [...this.open.entries()].find(([id]) => id.startsWith(addressed[1]!))
      : undefined;
    if (match) return { ...base, text: addressed![2]!, replyTo: match[1] };
    // A bare answer word goes to the newest prompt; any other line is for the agent.
    const newest = [...this.open.values()].at(-1);
    return newest && ANSWER_WORD.test(line)
      ? { ...base, text: line, replyTo: newest }
      : { ...base, text: line };
  }

  private ref(target: ChatTarget): MessageRef {
    return { ...target, messageId: String(this.nextId++) };
  }

  private write(text: string): void {
    this.options.output.write(text);
  }
}

function answerHint(prompt: PromptView): string {
  if (prompt.choices.length)
    return `<1-${prompt.choices.length}${prompt.allowForSessionChoice ? ' | session' : ''}>`;
  if (prompt.kind === 'yes_no') return '<y|n>';
  if (prompt.kind === 'confirm_enter') return 'enter';
  if (prompt.kind === 'unknown') return '<enter|cancel>';
  return '<your answer>';
}
