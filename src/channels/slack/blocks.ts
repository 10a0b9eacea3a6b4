import { promptHeadline } from '../../core/prompt-headline.js';
import { encodeButton } from '../callback-data.js';
import type { PanelButton, PromptOutcome, PromptView } from '../contract.js';
import { choicesCut, describeDecider, planButtons, shorten, type ButtonStyle } from '../prompt-buttons.js';
import { answerIcon, KIND_TITLES, promptSubject } from '../view-types.js';
import { escapeMrkdwn, toMrkdwn } from './mrkdwn.js';

/**
 * How prompts, the App Home and the answer form look in Block Kit, within Slack's limits: 3,000 characters a
 * section, 75 a button, 25 buttons an actions block, and `msg_too_long` near 4,000 characters in all. The
 * detail (the command, the diff) gives way to everything else; the buttons never do.
 */

export type Block = Record<string, unknown>;

/** The characters a message may hold in all, with room to spare under Slack's `msg_too_long`. */
export const MESSAGE_BUDGET = 3_800;
const SECTION_MAX = 3_000;
const BUTTON_LABEL_MAX = 75;
const PER_ACTIONS_BLOCK = 5;
/** The fallback text (notifications, screen readers). */
const FALLBACK_MAX = 300;

/** The answer form's callback id, and its one input. */
export const FORM_CALLBACK = 'agent-bridge:answer';
export const FORM_BLOCK = 'answer';
export const FORM_INPUT = 'text';

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text });
const plain = (text: string, max: number) => ({ type: 'plain_text', text: shorten(text, max), emoji: true });
const section = (text: string): Block => ({ type: 'section', text: mrkdwn(shorten(text, SECTION_MAX)) });
const context = (text: string): Block => ({ type: 'context', elements: [mrkdwn(text)] });

export function buttonElement(label: string, actionId: string, style: ButtonStyle): Block {
  return {
    type: 'button',
    text: plain(label, BUTTON_LABEL_MAX),
    action_id: actionId,
    value: actionId,
    ...(style === 'success' || style === 'primary' ? { style: 'primary' } : {}),
    ...(style === 'danger' ? { style: 'danger' } : {}),
  };
}

export interface PromptMessage {
  text: string;
  blocks: Block[];
}

/** The prompt as a message: what asks (machine, folder, session), the detail, notes, expiry, and buttons. */
export function promptMessage(prompt: PromptView): PromptMessage {
  const actions = promptActions(prompt);
  const parts = promptParts(prompt, buttonsLength(actions));
  return {
    text: fallbackText(prompt),
    blocks: [
      section(parts.head),
      section(parts.detail),
      ...parts.notes.map(section),
      context(parts.footer),
      ...actions,
    ],
  };
}

/** After an answer (or expiry): the same message without its buttons and expiry, and what happened, by whom. */
export function outcomeMessage(prompt: PromptView, outcome: PromptOutcome): PromptMessage {
  const parts = promptParts(prompt, 0);
  const line = outcomeLine(outcome);
  return {
    text: shorten(`${fallbackText(prompt)} · ${line}`, FALLBACK_MAX),
    blocks: [section(parts.head), section(parts.detail), ...parts.notes.map(section), section(line)],
  };
}

function fallbackText(prompt: PromptView): string {
  const { origin } = prompt;
  const excerpt = promptHeadline(prompt.excerpt, FALLBACK_MAX);
  return shorten(
    escapeMrkdwn(`🔔 ${KIND_TITLES[prompt.kind]} · ${origin.agent} · ${origin.label}: ${excerpt}`),
    FALLBACK_MAX,
  );
}

interface PromptParts {
  head: string;
  detail: string;
  notes: string[];
  footer: string;
}

function promptParts(prompt: PromptView, buttons: number): PromptParts {
  const { origin } = prompt;
  const e = escapeMrkdwn;
  const subject = promptSubject(prompt);
  const head =
    shorten(
      `🔔 *${KIND_TITLES[prompt.kind]}* · ${e(origin.agent)} · ${e(origin.label)} · ${e(origin.host)}`,
      300,
    ) + (subject ? `\n*${e(subject)}*` : '');
  const notes: string[] = [];
  const described = prompt.choices.filter((c) => c.description);
  if (prompt.kind === 'question' && described.length > 0)
    notes.push(shorten(described.map((c) => `• *${e(c.label)}*: ${e(c.description ?? '')}`).join('\n'), 600));
  if (prompt.kind === 'free_text') notes.push('Press *Answer…* to type your answer.');
  if (prompt.kind === 'unknown')
    notes.push(`Confidence: ${prompt.confidence}. It may be waiting for input, or just quiet.`);
  // A button shows at most 75 characters: the options are spelled out in full where one would be cut.
  if (choicesCut(prompt, BUTTON_LABEL_MAX))
    notes.push(shorten(prompt.choices.map((c) => `*${c.number}.* ${e(c.label)}`).join('\n'), 2_000));
  const fallback = prompt.safeDefault
    ? `then: ${e(shorten(prompt.safeDefault, 80))}`
    : 'then nothing is typed';
  const seconds = Math.floor(prompt.expiresAt / 1000);
  const when = new Date(prompt.expiresAt).toISOString().replace(/\.\d+Z$/, 'Z');
  const footer = shorten(
    `Session ${prompt.sessionId.slice(0, 8)} · ${e(origin.cwd)} · expires <!date^${seconds}^{date_short_pretty} at {time}|${when}>, ${fallback}`,
    600,
  );
  const used = head.length + notes.join('').length + footer.length + buttons + 40;
  const room = Math.max(0, Math.min(SECTION_MAX - 10, MESSAGE_BUDGET - used));
  const text = prompt.detail || prompt.excerpt;
  // The room is counted after escaping (`<` becomes `&lt;`): cut the escaped text, never inside an escape.
  const escaped = e(text.replace(/```/g, '`\u200b``'));
  const shown = escaped.length > room ? cutEscaped(escaped, Math.max(0, room - 2)) + '\n…' : escaped;
  return { head, detail: '```\n' + shown + '\n```', notes, footer };
}

function cutEscaped(text: string, max: number): string {
  return text.slice(0, max).replace(/&[a-z]{0,3}$/, '');
}

function promptActions(prompt: PromptView): Block[] {
  return planButtons(prompt, { labelMax: BUTTON_LABEL_MAX, perRow: PER_ACTIONS_BLOCK }).map((row, i) => ({
    type: 'actions',
    block_id: `prompt:${i}`,
    elements: row.map((b) =>
      buttonElement(b.label, encodeButton(prompt.promptId, prompt.sessionId, prompt.nonce, b.value), b.style),
    ),
  }));
}

function buttonsLength(actions: Block[]): number {
  return actions
    .flatMap((block) => block['elements'] as Block[])
    .reduce((sum, b) => sum + (b['text'] as { text: string }).text.length, 0);
}

export function outcomeLine(outcome: PromptOutcome): string {
  const who = outcome.decidedBy ? describeWho(outcome.decidedBy) : 'someone';
  const answer = escapeMrkdwn(outcome.answer ?? 'answered');
  switch (outcome.status) {
    case 'resolved':
      return outcome.decidedBy === 'terminal:local'
        ? '⌨️ Answered at the terminal'
        : `${answerIcon(outcome.answer)} *${answer}* by ${who}`;
    case 'expired':
      return `⌛ Expired${outcome.answer ? `: applied the default, *${answer}*` : ': nothing was typed'}`;
    case 'canceled':
      return `✖ Cancelled by ${who}`;
    case 'failed':
      return `⚠️ Not answered: ${escapeMrkdwn(outcome.note ?? 'the session ended')}`;
  }
}

/** `slack:U123` shows as a mention, so people see a name. */
function describeWho(decidedBy: string): string {
  const slack = /^slack:([UW][A-Z0-9]{2,31})$/.exec(decidedBy);
  return slack ? `<@${slack[1]}>` : escapeMrkdwn(describeDecider(decidedBy, () => null));
}

/** The answer form ("Other…"): one text box; where it was opened from rides along in private_metadata. */
export function answerForm(title: string, origin: string): Block {
  return {
    type: 'modal',
    callback_id: FORM_CALLBACK,
    title: plain(title, 24),
    submit: plain('Send', 24),
    close: plain('Cancel', 24),
    private_metadata: origin,
    blocks: [
      {
        type: 'input',
        block_id: FORM_BLOCK,
        label: plain(title, 2_000),
        element: { type: 'plain_text_input', action_id: FORM_INPUT, multiline: true, max_length: 3_000 },
      },
    ],
  };
}

/** One project's part of the App Home: its state (as the control panel says it) and its buttons. */
export interface HomeSection {
  text: string;
  buttons: PanelButton[][];
}

/** The App Home tab: every project with Start / Stop (Slack allows 100 blocks: 3 a project, so 30 projects). */
export function homeView(sections: HomeSection[], updatedAt: number): Block {
  const seconds = Math.floor(updatedAt / 1000);
  const stamp = new Date(updatedAt).toISOString();
  const blocks: Block[] = [
    { type: 'header', text: plain('agent-bridge', 150) },
    context(`Projects, their agents and waiting prompts · updated <!date^${seconds}^{time_secs}|${stamp}>`),
  ];
  for (const [i, home] of sections.slice(0, 30).entries()) {
    blocks.push({ type: 'divider' }, section(toMrkdwn(home.text)));
    const buttons = home.buttons.flat().slice(0, 5);
    if (buttons.length > 0)
      blocks.push({
        type: 'actions',
        block_id: `panel:${i}`,
        elements: buttons.map((b) => buttonElement(b.label, b.data.slice(0, 255), b.style ?? 'secondary')),
      });
  }
  if (sections.length === 0)
    blocks.push(section('No projects yet: `agent-bridge add-repo --channel slack:C…`, then `serve`.'));
  return { type: 'home', blocks };
}
