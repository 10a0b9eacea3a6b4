import type { AgentUsage, PromptChoice, RateLimitWindow } from '../../../core/events.js';
import type { DetectedPrompt, ReplyAction } from '../../../core/prompt.js';
import type { ProtocolEffect } from '../effects.js';
import { editMessage, planChanged, planText, type PlanEntry } from '../edit-text.js';
import { exactPrompt } from '../pending-prompts.js';
import type { ServerNotification, v2 } from './protocol/index.js';

/** What the converter remembers between notifications of one Codex thread. */
export interface CodexState {
  /** File changes by item id: their diffs, for the approval that asks about them and the message after. */
  files: Map<string, v2.FileUpdateChange[]>;
  /** Items whose change a person saw in an approval prompt already. */
  shown: Set<string>;
  usage: AgentUsage;
  plan: PlanEntry[] | null;
}

export function newCodexState(usage: AgentUsage = {}): CodexState {
  return { files: new Map(), shown: new Set(), usage, plan: null };
}

/**
 * One app-server notification as events (pure): the agent's messages, commands and file changes starting and
 * ending (with their diffs), its plan, token use against the context window, and the account's rate limits.
 */
export function effectsOfNotification(note: ServerNotification, state: CodexState): ProtocolEffect[] {
  switch (note.method) {
    case 'item/started':
      return itemStarted(note.params.item, state);
    case 'item/completed':
      return itemCompleted(note.params.item, state);
    case 'turn/plan/updated': {
      const entries = note.params.plan.map((step) => ({ content: step.step, status: step.status }));
      const changed = entries.length > 0 && planChanged(state.plan, entries);
      state.plan = entries;
      return changed ? [{ type: 'message', text: planText(entries), source: 'protocol' }] : [];
    }
    case 'thread/tokenUsage/updated': {
      const { last, modelContextWindow: window } = note.params.tokenUsage;
      const usage: AgentUsage = { ...state.usage };
      if (window && window > 0) {
        usage.contextWindow = window;
        usage.contextPercent = Math.min(100, Math.round((last.totalTokens / window) * 100));
      }
      state.usage = usage;
      return [{ type: 'status', usage }];
    }
    case 'account/rateLimits/updated': {
      const { primary, secondary } = note.params.rateLimits;
      const usage: AgentUsage = { ...state.usage };
      const session = windowOf(primary);
      const weekly = windowOf(secondary);
      if (session) usage.session = session;
      if (weekly) usage.weekly = weekly;
      state.usage = usage;
      return session || weekly ? [{ type: 'status', usage }] : [];
    }
    case 'error':
      return note.params.willRetry
        ? []
        : [{ type: 'message', text: `⚠️ Codex: ${note.params.error.message}`, source: 'protocol' }];
    default:
      return [];
  }
}

function itemStarted(item: v2.ThreadItem, state: CodexState): ProtocolEffect[] {
  if (item.type === 'commandExecution')
    return [{ type: 'activity', phase: 'start', tool: 'command', text: item.command }];
  if (item.type === 'fileChange') {
    state.files.set(item.id, item.changes);
    return [
      { type: 'activity', phase: 'start', tool: 'edit', text: item.changes.map((c) => c.path).join(', ') },
    ];
  }
  if (item.type === 'mcpToolCall')
    return [{ type: 'activity', phase: 'start', tool: item.tool, text: `${item.server}: ${item.tool}` }];
  return [];
}

function itemCompleted(item: v2.ThreadItem, state: CodexState): ProtocolEffect[] {
  switch (item.type) {
    case 'agentMessage':
      return item.text
        ? [
            { type: 'say', text: item.text },
            { type: 'say', text: '\n\n' },
          ]
        : [];
    case 'commandExecution': {
      const failed = item.status === 'failed' || item.status === 'declined';
      return [
        {
          type: 'activity',
          phase: 'end',
          tool: 'command',
          text: `${item.command}${failed ? ` (${item.status})` : ''}`,
        },
      ];
    }
    case 'fileChange': {
      state.files.delete(item.id);
      const shown = state.shown.delete(item.id);
      const effects: ProtocolEffect[] = [
        { type: 'activity', phase: 'end', tool: 'edit', text: item.changes.map((c) => c.path).join(', ') },
      ];
      if (item.status === 'completed' && !shown)
        for (const change of item.changes)
          effects.push({
            type: 'message',
            text: editMessage(change.path, change.diff.trimEnd()),
            source: 'protocol',
          });
      return effects;
    }
    default:
      return [];
  }
}

/** Codex's `resetsAt` is in Unix seconds. */
function windowOf(window: v2.RateLimitWindow | null): RateLimitWindow | null {
  if (!window) return null;
  return window.resetsAt
    ? { usedPercent: window.usedPercent, resetsAt: window.resetsAt * 1000 }
    : { usedPercent: window.usedPercent };
}

type Decision = v2.CommandExecutionApprovalDecision;

/** A decision in Codex's own words (its TUI's), or null for one agent-bridge does not offer. */
function labelOf(decision: Decision): string | null {
  if (decision === 'accept') return 'Yes, proceed';
  if (decision === 'acceptForSession') return "Yes, and don't ask again this session";
  if (decision === 'decline') return 'No, continue without it';
  if (decision === 'cancel') return 'No, and tell Codex what to do differently';
  if ('acceptWithExecpolicyAmendment' in decision)
    return `Yes, and don't ask again for commands that start with \`${decision.acceptWithExecpolicyAmendment.execpolicy_amendment.join(' ')}\``;
  return null;
}

const DEFAULT_DECISIONS: Decision[] = ['accept', 'acceptForSession', 'decline', 'cancel'];

export type ApprovalRequest =
  | { method: 'item/commandExecution/requestApproval'; params: v2.CommandExecutionRequestApprovalParams }
  | { method: 'item/fileChange/requestApproval'; params: v2.FileChangeRequestApprovalParams };

/** The decisions offered for an approval, in Codex's order: those it lists, else accept/session/decline/cancel. */
export function approvalDecisions(request: ApprovalRequest): Decision[] {
  const listed =
    request.method === 'item/commandExecution/requestApproval' ? request.params.availableDecisions : null;
  return (listed?.length ? listed : DEFAULT_DECISIONS).filter((d) => labelOf(d) !== null);
}

/** An approval request as a prompt: the command (or the diffs of the change) and Codex's own options. */
export function approvalPrompt(request: ApprovalRequest, state: CodexState, key: string): DetectedPrompt {
  const decisions = approvalDecisions(request);
  const choices: PromptChoice[] = decisions.map((d, i) => ({ number: i + 1, label: labelOf(d)! }));
  const session = decisions.indexOf('acceptForSession');
  const safe = Math.max(decisions.indexOf('decline'), decisions.indexOf('cancel'));
  const reason = request.params.reason ? [`Why: ${request.params.reason}`] : [];
  const { summary, body } =
    request.method === 'item/commandExecution/requestApproval'
      ? {
          summary: request.params.command ?? 'a command',
          body: [request.params.command ?? '', `in ${request.params.cwd ?? '?'}`, ...reason],
        }
      : fileChangeText(request.params, state, reason);
  return exactPrompt({
    kind: 'permission',
    summary,
    detail: body.join('\n\n'),
    choices,
    safeDefault: safe >= 0 ? { type: 'choice', number: safe + 1 } : null,
    ...(session >= 0 ? { allowForSessionChoice: session + 1 } : {}),
    key,
  });
}

function fileChangeText(params: v2.FileChangeRequestApprovalParams, state: CodexState, reason: string[]) {
  const changes = state.files.get(params.itemId) ?? [];
  const paths = changes.map((c) => c.path).join(', ') || 'files';
  return {
    summary: `Edit ${paths}`,
    body: [`Edit ${paths}`, ...changes.map((c) => c.diff.trimEnd()), ...reason],
  };
}

/** A person's decision as Codex's: a chosen option; yes/no as its first accept and its decline (or cancel). */
export function approvalDecision(decisions: readonly Decision[], action: ReplyAction): Decision {
  if (action.type === 'choice') {
    const decision = decisions[action.number - 1];
    if (decision !== undefined) return decision;
  }
  if (action.type === 'yes') return 'accept';
  if (action.type === 'no') return decisions.includes('decline') ? 'decline' : 'cancel';
  if (action.type === 'cancel' || action.type === 'escape') return 'cancel';
  throw new Error(`"${action.type}" does not answer this approval: choose 1 to ${decisions.length}`);
}

/** Whether the decision says no (then words that came with it are for Codex's next turn). */
export function isRefusal(decision: Decision): boolean {
  return decision === 'decline' || decision === 'cancel';
}

/** One of `request_user_input`'s questions as a prompt: its options, and its own words where it takes them. */
export function userInputPrompt(question: v2.ToolRequestUserInputQuestion, key: string): DetectedPrompt {
  const options = question.options ?? [];
  const choices: PromptChoice[] = options.map((o, i) => ({
    number: i + 1,
    label: o.label,
    description: o.description,
  }));
  if (question.isOther || options.length === 0)
    choices.push({ number: choices.length + 1, label: 'Type something.' });
  const prompt = exactPrompt({
    kind: options.length ? 'question' : 'free_text',
    summary: question.question,
    detail: [
      question.header ? `${question.header}: ${question.question}` : question.question,
      ...options.map((o, i) => `${i + 1}. ${o.label} — ${o.description}`),
    ].join('\n'),
    choices: options.length ? choices : [],
    // Unanswered when it expires: the agent is told so (it waits on an answer), nothing is chosen for it.
    safeDefault: { type: 'cancel' },
    key,
  });
  return question.isSecret ? { ...prompt, secret: true } : prompt;
}

/** The answer to one question: an option's label, or the person's words. Null when they declined to answer. */
export function userInputAnswer(
  question: v2.ToolRequestUserInputQuestion,
  action: ReplyAction,
): string | null {
  if (action.type === 'text') return action.text;
  if (action.type !== 'choice') return null;
  const option = question.options?.[action.number - 1];
  return option ? option.label : (action.text ?? null);
}
