import { encodeButton } from '../callback-data.js';
import type { PromptOutcome, PromptView } from '../contract.js';
import { choicesCut, describeDecider, planButtons, shorten } from '../prompt-buttons.js';
import { answerIcon, KIND_TITLES, promptSubject } from '../view-types.js';

/**
 * How a prompt reads on Discord: markdown, a relative expiry time (`<t:…:R>`), and buttons in action rows
 * (Discord allows 5 rows of 5). Where the agent shows options (a permission, a plan, a question, a menu) there
 * is one button per option, in the agent's own words (a grant says exactly what it grants), and Other… where
 * words are an answer; yes/no, "press Enter" and "possibly waiting" prompts get buttons of their own.
 */

export const DISCORD_MESSAGE_LIMIT = 2_000;
const MAX_DETAIL = 1_400;
const MAX_ROWS = 5;
const PER_ROW = 5;
const BUTTON_LABEL_MAX = 80;

/** Discord's button styles (discord-api-types ButtonStyle), kept here so this module stays plain data. */
export const STYLE = { primary: 1, secondary: 2, success: 3, danger: 4 } as const;

export interface DiscordButton {
  type: 2;
  style: number;
  label: string;
  custom_id: string;
}

export interface DiscordActionRow {
  type: 1;
  components: DiscordButton[];
}

/** The prompt's message, always within Discord's 2,000 characters: the detail gives way to the rest. */
export function promptContent(prompt: PromptView): string {
  const { origin } = prompt;
  const head = `🔔 **${KIND_TITLES[prompt.kind]}** · ${origin.agent} · ${plainText(origin.label)} · ${plainText(origin.host)}`;
  const notes: string[] = [];
  const described = prompt.choices.filter((c) => c.description);
  if (prompt.kind === 'question' && described.length > 0)
    notes.push(
      shorten(
        described.map((c) => `• **${plainText(c.label)}**: ${plainText(c.description ?? '')}`).join('\n'),
        400,
      ),
    );
  if (prompt.kind === 'free_text') notes.push('Press **Answer…** or reply to this message with your answer.');
  if (prompt.kind === 'unknown')
    notes.push(`Confidence: ${prompt.confidence}. It may be waiting for input, or just quiet.`);
  // A button shows at most 80 characters: the options are spelled out in full where one would be cut.
  if (choicesCut(prompt, BUTTON_LABEL_MAX))
    notes.push(shorten(prompt.choices.map((c) => `**${c.number}.** ${plainText(c.label)}`).join('\n'), 600));
  const fallback = prompt.safeDefault
    ? `then: ${plainText(shorten(prompt.safeDefault, 80))}`
    : 'then nothing is typed';
  const expires = Math.floor(prompt.expiresAt / 1000);
  notes.push(`-# Session ${prompt.sessionId.slice(0, 8)} · expires <t:${expires}:R>, ${fallback}`);
  const subject = promptSubject(prompt);
  const top = [shorten(head, 200), ...(subject ? [`**${plainText(subject)}**`] : [])].join('\n');
  const room = DISCORD_MESSAGE_LIMIT - top.length - notes.join('\n').length - 20;
  const detail = prompt.detail || prompt.excerpt;
  const budget = Math.min(MAX_DETAIL, room);
  const shown = detail.length > budget ? detail.slice(0, budget - 2) + '\n…' : detail;
  return [top, codeBlock(shown), ...notes].join('\n');
}

export function promptComponents(prompt: PromptView): DiscordActionRow[] {
  return toRows(
    planButtons(prompt, { labelMax: BUTTON_LABEL_MAX, perRow: PER_ROW }).map((row) =>
      row.map((b) => ({
        type: 2 as const,
        style: STYLE[b.style],
        label: b.label,
        custom_id: encodeButton(prompt.promptId, prompt.sessionId, prompt.nonce, b.value),
      })),
    ),
  );
}

export function outcomeContent(prompt: PromptView, outcome: PromptOutcome): string {
  const who = outcome.decidedBy ? describeWho(outcome.decidedBy) : 'someone';
  const line = (() => {
    switch (outcome.status) {
      case 'resolved':
        return outcome.decidedBy === 'terminal:local'
          ? '⌨️ Answered at the terminal'
          : `${answerIcon(outcome.answer)} **${outcome.answer ?? 'answered'}** by ${who}`;
      case 'expired':
        return `⌛ Expired${outcome.answer ? `: applied the default, **${outcome.answer}**` : ': nothing was typed'}`;
      case 'canceled':
        return `✖ Cancelled by ${who}`;
      case 'failed':
        return `⚠️ Not answered: ${outcome.note ?? 'the session ended'}`;
    }
  })();
  return `${promptContent(prompt).split('\n').slice(0, -1).join('\n')}\n${line}`;
}

/** `discord:123` shows as a mention, so people see a name. */
function describeWho(decidedBy: string): string {
  return describeDecider(decidedBy, (platform, id) =>
    platform === 'discord' && /^\d+$/.test(id) ? `<@${id}>` : null,
  );
}

/**
 * Text shown as itself, not as markdown: the characters Discord reads as formatting, a masked link or a
 * mention, escaped. (discord.js's escapeMarkdown would load discord.js with every module that renders a
 * prompt: this one stays plain data.)
 */
export function plainText(text: string): string {
  return text.replace(/[\\*_`~|[\]<>]/g, '\\$&');
}

export function codeBlock(text: string): string {
  return '```\n' + text.replace(/```/g, '`\u200b``') + '\n```';
}

function toRows(rows: DiscordButton[][]): DiscordActionRow[] {
  return rows
    .filter((row) => row.length > 0)
    .slice(0, MAX_ROWS)
    .map((row) => ({ type: 1, components: row.slice(0, PER_ROW) }));
}
