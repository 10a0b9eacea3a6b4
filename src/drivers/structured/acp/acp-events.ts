import type {
  PermissionOption,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
  ToolCallContent,
} from '@agentclientprotocol/sdk';
import type { AgentUsage, PromptChoice } from '../../../core/events.js';
import type { DetectedPrompt, ReplyAction } from '../../../core/prompt.js';
import type { ProtocolEffect } from '../effects.js';
import { editMessage, planChanged, planText, unifiedDiff, type PlanEntry } from '../edit-text.js';
import { exactPrompt } from '../pending-prompts.js';

/** What the converter remembers between updates of one ACP session. */
export interface AcpState {
  /** Tool calls by id: their title and input, for the line that says they ended. */
  tools: Map<string, { title: string; input: string }>;
  /** Tool calls whose change a person saw in a permission prompt already. */
  shown: Set<string>;
  usage: AgentUsage;
  plan: PlanEntry[] | null;
}

export function newAcpState(usage: AgentUsage = {}): AcpState {
  return { tools: new Map(), shown: new Set(), usage, plan: null };
}

/**
 * One `session/update` as events (pure): the agent's words, its tool calls starting and ending (and the
 * diffs they made), its plan as a list, its context use and cost. Thoughts, commands, modes are not for chat.
 */
export function effectsOfUpdate(update: SessionUpdate, state: AcpState): ProtocolEffect[] {
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
      return update.content.type === 'text' ? [{ type: 'say', text: update.content.text }] : [];
    case 'tool_call': {
      const input = inputLine(update.rawInput);
      state.tools.set(update.toolCallId, { title: update.title, input });
      const text = [update.title, input].filter(Boolean).join(': ');
      return [{ type: 'activity', phase: 'start', tool: update.kind ?? 'other', text }];
    }
    case 'tool_call_update':
      return toolCallUpdate(update, state);
    case 'plan': {
      const entries = update.entries.map((e) => ({ content: e.content, status: e.status }));
      const changed = entries.length > 0 && planChanged(state.plan, entries);
      state.plan = entries;
      return changed ? [{ type: 'message', text: planText(entries), source: 'protocol' }] : [];
    }
    case 'usage_update': {
      const usage: AgentUsage = { ...state.usage, contextWindow: update.size };
      if (update.size > 0)
        usage.contextPercent = Math.min(100, Math.round((update.used / update.size) * 100));
      if (update.cost && update.cost.currency.toUpperCase() === 'USD') usage.costUsd = update.cost.amount;
      state.usage = usage;
      return [{ type: 'status', usage }];
    }
    default:
      return [];
  }
}

function toolCallUpdate(
  update: Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>,
  state: AcpState,
): ProtocolEffect[] {
  const known = state.tools.get(update.toolCallId);
  if (update.title) state.tools.set(update.toolCallId, { title: update.title, input: known?.input ?? '' });
  if (update.status !== 'completed' && update.status !== 'failed') return [];
  const tool = state.tools.get(update.toolCallId) ?? { title: update.toolCallId, input: '' };
  state.tools.delete(update.toolCallId);
  const failed = update.status === 'failed';
  const effects: ProtocolEffect[] = [
    {
      type: 'activity',
      phase: 'end',
      tool: update.kind ?? 'other',
      text: `${[tool.title, tool.input].filter(Boolean).join(': ')}${failed ? ' (failed)' : ''}`,
    },
  ];
  const shown = state.shown.delete(update.toolCallId);
  if (!failed && !shown)
    for (const diff of diffsOf(update.content ?? []))
      effects.push({ type: 'message', text: editMessage(diff.file, diff.diff), source: 'protocol' });
  return effects;
}

/** At the end of a turn: why it ended, when that is worth saying. */
export function effectsOfPromptResponse(response: PromptResponse): ProtocolEffect[] {
  if (response.stopReason === 'refusal')
    return [{ type: 'message', text: '⚠️ The agent refused to answer.', source: 'protocol' }];
  if (response.stopReason === 'max_tokens' || response.stopReason === 'max_turn_requests')
    return [{ type: 'message', text: `⚠️ The agent stopped: ${response.stopReason}.`, source: 'protocol' }];
  return [];
}

/** The diffs among a tool call's content, as unified diffs. */
export function diffsOf(content: readonly ToolCallContent[]): Array<{ file: string; diff: string }> {
  return content.flatMap((item) =>
    item.type === 'diff'
      ? [{ file: item.path, diff: unifiedDiff(item.path, item.oldText ?? '', item.newText) }]
      : [],
  );
}

/** The order a person reads options in: allow once, allow always, reject once, reject always. */
const KIND_ORDER: Record<string, number> = {
  allow_once: 0,
  allow_always: 1,
  reject_once: 2,
  reject_always: 3,
};

/** The agent's options, allow-once first so "yes" never grants more than once (Gemini lists "always" first). */
export function orderedOptions(options: readonly PermissionOption[]): PermissionOption[] {
  return [...options].sort((a, b) => (KIND_ORDER[a.kind] ?? 9) - (KIND_ORDER[b.kind] ?? 9));
}

/**
 * `session/request_permission` as a prompt: the agent's own options with their own names, the tool call in
 * full (its command, its diff). "Allow always" is the grant for the session where the agent offers it.
 */
export function permissionPrompt(request: RequestPermissionRequest, key: string): DetectedPrompt {
  const options = orderedOptions(request.options);
  const choices: PromptChoice[] = options.map((option, i) => ({ number: i + 1, label: option.name }));
  const always = options.findIndex((o) => o.kind === 'allow_always');
  const reject = options.findIndex((o) => o.kind === 'reject_once' || o.kind === 'reject_always');
  const call = request.toolCall;
  const input = inputLine(call.rawInput);
  const title = call.title ?? call.toolCallId;
  const body = [
    ...(input && input !== title ? [input] : []),
    ...diffsOf(call.content ?? []).map((d) => d.diff),
    ...(call.content ?? []).flatMap((c) =>
      c.type === 'content' && c.content.type === 'text' ? [c.content.text] : [],
    ),
    ...(call.locations ?? []).map((l) => l.path),
  ];
  return exactPrompt({
    kind: 'permission',
    summary: [title, input].filter(Boolean).join(': '),
    detail: [title, ...body].join('\n\n'),
    choices,
    safeDefault: reject >= 0 ? { type: 'choice', number: reject + 1 } : { type: 'cancel' },
    ...(always >= 0 ? { allowForSessionChoice: always + 1 } : {}),
    key,
  });
}

/** A person's decision as the agent's option; `cancel`/`escape` cancel the request (and the turn's tool). */
export function permissionOutcome(
  request: RequestPermissionRequest,
  action: ReplyAction,
): RequestPermissionResponse {
  const options = orderedOptions(request.options);
  const byKind = (...kinds: string[]) => options.find((o) => kinds.includes(o.kind));
  let option: PermissionOption | undefined;
  if (action.type === 'choice') option = options[action.number - 1];
  else if (action.type === 'yes') option = byKind('allow_once', 'allow_always');
  else if (action.type === 'no') option = byKind('reject_once', 'reject_always');
  else if (action.type === 'cancel' || action.type === 'escape') return { outcome: { outcome: 'cancelled' } };
  if (!option)
    throw new Error(`"${action.type}" does not answer this permission: choose 1 to ${options.length}`);
  return { outcome: { outcome: 'selected', optionId: option.optionId } };
}

/** Whether the chosen option says no (then words that came with it are for the agent's next turn). */
export function isRejection(request: RequestPermissionRequest, response: RequestPermissionResponse): boolean {
  if (response.outcome.outcome !== 'selected') return true;
  const id = response.outcome.optionId;
  return request.options.some((o) => o.optionId === id && o.kind.startsWith('reject'));
}

/** A tool call's raw input in one line: its command where it has one, else its JSON. */
function inputLine(raw: unknown): string {
  if (raw === undefined || raw === null) return '';
  if (typeof raw === 'object' && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    for (const key of ['command', 'cmd', 'path', 'file_path', 'url', 'query'])
      if (typeof record[key] === 'string') return record[key] as string;
    if (Array.isArray(record.command)) return record.command.map(String).join(' ');
  }
  const json = JSON.stringify(raw);
  return json.length > 200 ? json.slice(0, 199) + '…' : json;
}
