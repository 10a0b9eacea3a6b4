import type { AgentUsage } from '../../../core/events.js';
import { describeToolInput } from '../../hooks/claude-hook-events.js';
import type { ProtocolEffect } from '../effects.js';
import { editMessage, planChanged, planText, unifiedDiff, type PlanEntry } from '../edit-text.js';
import {
  assistantMessage,
  resultMessage,
  systemInit,
  todoInput,
  userMessage,
  type AssistantMessage,
  type ResultMessage,
  type UserMessage,
} from './stream-json-wire.js';

/** What the converter remembers between messages of one Claude session. */
export interface ClaudeStreamState {
  /** Tool calls of the main agent by id, for their results (a diff once an edit went through). */
  tools: Map<string, { name: string; input: Record<string, unknown> }>;
  /** Tool calls a person approved in a prompt that showed the change already. */
  shown: Set<string>;
  usage: AgentUsage;
  /** Tokens in the context at the latest answer. */
  contextTokens?: number;
  plan: PlanEntry[] | null;
  /** A person stopped the turn: its end is not an error. */
  cancelled: boolean;
}

export function newClaudeStreamState(): ClaudeStreamState {
  return { tools: new Map(), shown: new Set(), usage: {}, plan: null, cancelled: false };
}

/** The tools that edit files, and how each one's input becomes a diff. */
const EDITS: Record<string, (input: Record<string, unknown>) => { file: string; diff: string } | null> = {
  Edit: (input) => {
    const file = text(input.file_path);
    return file ? { file, diff: unifiedDiff(file, text(input.old_string), text(input.new_string)) } : null;
  },
  MultiEdit: (input) => {
    const file = text(input.file_path);
    const edits = Array.isArray(input.edits) ? (input.edits as Array<Record<string, unknown>>) : [];
    if (!file || edits.length === 0) return null;
    const diffs = edits.map((edit) => unifiedDiff(file, text(edit.old_string), text(edit.new_string)));
    return { file, diff: diffs.join('\n') };
  },
  Write: (input) => {
    const file = text(input.file_path);
    return file ? { file, diff: unifiedDiff(file, '', text(input.content)) } : null;
  },
};

/** The change a tool call makes, as a diff, when it is an edit. */
export function editOf(tool: string, input: Record<string, unknown>): { file: string; diff: string } | null {
  return EDITS[tool]?.(input) ?? null;
}

/**
 * One line of Claude's stream-json output as events: what it says, tools starting and ending (and the diffs
 * they made), its plan (TodoWrite) as a list, its model, context use and cost, its session id. Pure.
 */
export function effectsOfClaudeMessage(
  message: Record<string, unknown>,
  state: ClaudeStreamState,
): ProtocolEffect[] {
  switch (message.type) {
    case 'system': {
      const init = systemInit.safeParse(message);
      if (!init.success) return [];
      if (init.data.model) state.usage = { ...state.usage, model: init.data.model };
      return [{ type: 'agent_session', id: init.data.session_id }];
    }
    case 'assistant': {
      const parsed = assistantMessage.safeParse(message);
      return parsed.success ? fromAssistant(parsed.data, state) : [];
    }
    case 'user': {
      const parsed = userMessage.safeParse(message);
      return parsed.success ? fromToolResults(parsed.data, state) : [];
    }
    case 'result': {
      const parsed = resultMessage.safeParse(message);
      return parsed.success ? fromResult(parsed.data, state) : [];
    }
    default:
      return [];
  }
}

function fromAssistant(message: AssistantMessage, state: ClaudeStreamState): ProtocolEffect[] {
  // A subagent's (Task) own words and tools stay inside it: the chat hears the main agent.
  if (message.parent_tool_use_id) return [];
  const effects: ProtocolEffect[] = [];
  for (const block of message.message.content) {
    if (block.type === 'text' && typeof block.text === 'string')
      effects.push({ type: 'say', text: block.text });
    if (block.type === 'tool_use' && 'name' in block && 'id' in block) {
      const { id, name, input } = block as { id: string; name: string; input: Record<string, unknown> };
      state.tools.set(id, { name, input });
      effects.push({ type: 'activity', phase: 'start', tool: name, text: describeToolInput(name, input) });
      effects.push(...planOf(name, input, state));
    }
  }
  const usage = message.message.usage;
  if (usage) {
    state.contextTokens =
      (usage.input_tokens ?? 0) +
      (usage.cache_creation_input_tokens ?? 0) +
      (usage.cache_read_input_tokens ?? 0);
  }
  return effects;
}

function planOf(tool: string, input: Record<string, unknown>, state: ClaudeStreamState): ProtocolEffect[] {
  if (tool !== 'TodoWrite') return [];
  const todos = todoInput.safeParse(input);
  if (!todos.success || todos.data.todos.length === 0) return [];
  const entries = todos.data.todos;
  const changed = planChanged(state.plan, entries);
  state.plan = entries;
  return changed ? [{ type: 'message', text: planText(entries), source: 'protocol' }] : [];
}

function fromToolResults(message: UserMessage, state: ClaudeStreamState): ProtocolEffect[] {
  if (message.parent_tool_use_id || typeof message.message.content === 'string') return [];
  const effects: ProtocolEffect[] = [];
  for (const block of message.message.content) {
    if (block.type !== 'tool_result' || !('tool_use_id' in block)) continue;
    const id = String(block.tool_use_id);
    const tool = state.tools.get(id);
    if (!tool) continue;
    state.tools.delete(id);
    const failed = block.is_error === true;
    effects.push({
      type: 'activity',
      phase: 'end',
      tool: tool.name,
      text: `${describeToolInput(tool.name, tool.input)}${failed ? ' (failed)' : ''}`,
    });
    const edit = failed || state.shown.delete(id) ? null : editOf(tool.name, tool.input);
    if (edit) effects.push({ type: 'message', text: editMessage(edit.file, edit.diff), source: 'protocol' });
  }
  return effects;
}

function fromResult(result: ResultMessage, state: ClaudeStreamState): ProtocolEffect[] {
  const windows = Object.values(result.modelUsage ?? {})
    .map((usage) => usage.contextWindow ?? 0)
    .filter((size) => size > 0);
  const usage: AgentUsage = { ...state.usage };
  if (windows.length > 0) usage.contextWindow = Math.max(...windows);
  if (result.total_cost_usd !== undefined) usage.costUsd = result.total_cost_usd;
  if (usage.contextWindow && state.contextTokens !== undefined)
    usage.contextPercent = Math.min(100, Math.round((state.contextTokens / usage.contextWindow) * 100));
  state.usage = usage;
  const effects: ProtocolEffect[] = [{ type: 'status', usage }];
  if (state.cancelled) state.cancelled = false;
  else if (result.is_error || result.subtype !== 'success') {
    const why = result.errors?.join('; ') || result.result || result.subtype;
    effects.push({ type: 'message', text: `⚠️ Claude Code: ${why}`, source: 'protocol' });
  }
  return effects;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
