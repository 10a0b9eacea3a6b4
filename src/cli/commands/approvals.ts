import { promptHeadline } from '../../core/prompt-headline.js';
import { isProcessAlive } from '../../drivers/terminal/process-tree.js';
import { systemClock } from '../../core/clock.js';
import type { UnattendedOutcome } from '../../sessions/host/answer-unattended.js';
import { reapDeadSessions } from '../../sessions/session-liveness.js';
import type { PromptRecord } from '../../store/prompt-store.js';
import { openStore } from '../../store/store.js';
import { UsageError } from '../errors.js';
import { paint, printJson, printTable, stdoutTarget, type OutputTarget } from '../output.js';
import { userName } from '../user.js';

export function approvalsCommand(options: { json?: boolean }, target: OutputTarget = stdoutTarget): void {
  const store = openStore();
  try {
    // Prompts of a session whose agent-bridge is gone can never be answered: closed, not listed.
    reapDeadSessions(store);
    const open = store.prompts.open();
    const sessions = new Map(store.sessions.list({ all: true }).map((s) => [s.id, s]));
    // A session no agent-bridge controls (run --detach, its run killed, no serve) has nobody to apply a prompt's
    // expiry (`approvals answer` takes it over to type an answer). Each session's controller is looked up once.
    const detached = new Set(
      [...new Set(open.map((p) => p.sessionId))].filter((id) => {
        const session = sessions.get(id);
        return session !== undefined && !store.sessions.controllerAlive(session, isProcessAlive);
      }),
    );
    const attended = (p: PromptRecord) => !detached.has(p.sessionId);
    if (options.json) {
      printJson(
        target,
        open.map((p) => ({
          ...publicPrompt(p),
          agent: sessions.get(p.sessionId)?.agent ?? null,
          cwd: sessions.get(p.sessionId)?.cwd ?? null,
          machine: sessions.get(p.sessionId)?.host ?? null,
          attended: attended(p),
        })),
      );
      return;
    }
    if (open.length === 0) {
      target.write('no prompts are waiting\n');
      return;
    }
    const now = Date.now();
    // Many machines: which one asks (a hub lists its nodes' prompts too).
    const machines = open.some((p) => sessions.get(p.sessionId)?.node);
    printTable(
      target,
      ['ID', ...(machines ? ['MACHINE'] : []), 'AGENT', 'KIND', 'EXPIRES', 'QUESTION', 'CHOICES'],
      open.map((p) => {
        const session = sessions.get(p.sessionId);
        const agent = session
          ? `${session.agent}${session.status !== 'active' ? paint(target, 'red', ' (gone)') : attended(p) ? '' : paint(target, 'yellow', ' (detached)')}`
          : '?';
        return [
          p.id.slice(0, 8),
          ...(machines ? [session?.host ?? '?'] : []),
          agent,
          p.kind,
          formatIn(p.expiresAt - now),
          promptHeadline(p.excerpt, 60),
          choicesText(p),
        ];
      }),
    );
    const waiting = [...detached].map((id) => id.slice(0, 8));
    if (waiting.length > 0)
      process.stderr.write(
        `agent-bridge: detached: no agent-bridge controls session ${waiting.join(', ')}: an answer here takes it over to type it, and a prompt past its time gets its default then (agent-bridge attach ${waiting[0]}, or agent-bridge serve, keeps it watched)\n`,
      );
  } finally {
    store.close();
  }
}

export async function answerCommand(
  id: string,
  answer: string,
  options: { json?: boolean },
  target: OutputTarget = stdoutTarget,
): Promise<number> {
  if (!answer.trim() && answer !== '')
    throw new UsageError('give an answer: a choice number, yes, no, enter, default, cancel or text');
  const store = openStore();
  try {
    const request = { promptRef: id, raw: answer, decidedBy: `cli:${userName()}` };
    // No agent-bridge controls its session (run --detach, no serve): this command types the answer itself.
    // The session machinery that takes loads here: `approvals`, the listing, needs none of it.
    const { answerFromHere } = await import('../../sessions/host/answer-unattended.js');
    const outcome = await answerFromHere(systemClock, notice)(store, request);
    const notTyped = outcome.ok && outcome.typing?.typed === false ? outcome.typing : null;
    const failed = notTyped !== null;
    if (options.json) printJson(target, answerJson(outcome));
    else if (!outcome.ok) process.stderr.write(`agent-bridge: ${outcome.reason}\n`);
    else if (failed)
      process.stderr.write(
        `agent-bridge: ${outcome.record.id.slice(0, 8)}: ${outcome.summary} was recorded but not typed: ${notTyped.note ?? 'the prompt ended'}\n`,
      );
    else
      target.write(`answered ${outcome.record.id.slice(0, 8)}: ${outcome.summary}${typingNote(outcome)}\n`);
    if (outcome.ok) return failed ? 1 : 0;
    // An answer the prompt cannot take, or an id that names several, is bad usage; no such prompt is a failure
    // (as for `stop`: an id that was right may be gone).
    return outcome.code === 'bad_reply' || outcome.code === 'ambiguous' ? 2 : 1;
  } finally {
    store.close();
  }
}

function answerJson(outcome: UnattendedOutcome) {
  if (!outcome.ok) return { ok: false, code: outcome.code, reason: outcome.reason };
  const typing = outcome.typing;
  if (typing?.typed === false)
    return {
      ok: false,
      code: 'not_typed',
      reason: typing.note ?? 'the prompt ended',
      prompt: outcome.record.id,
    };
  return {
    ok: true,
    prompt: outcome.record.id,
    answer: outcome.summary,
    ...(typing ? { typedHere: typing.typed === true } : {}),
  };
}

function typingNote(outcome: UnattendedOutcome & { ok: true }): string {
  if (!outcome.typing) return '';
  const session = outcome.record.sessionId.slice(0, 8);
  return outcome.typing.typed === 'later'
    ? ` (recorded: it is typed once the prompts before it are answered, by agent-bridge attach ${session} or serve)`
    : ' (typed from here: no agent-bridge was watching the session)';
}

/** A line the takeover of an unattended session says (the agent's start-up questions answered, say). */
function notice(line: string): void {
  process.stderr.write(`agent-bridge: ${line}\n`);
}

export function publicPrompt(p: PromptRecord) {
  return {
    id: p.id,
    session: p.sessionId,
    kind: p.kind,
    confidence: p.confidence,
    source: p.source,
    status: p.status,
    excerpt: p.excerpt,
    detail: p.detail,
    choices: p.choices,
    allowForSessionChoice: p.allowForSessionChoice,
    createdAt: new Date(p.createdAt).toISOString(),
    expiresAt: new Date(p.expiresAt).toISOString(),
    decidedBy: p.decidedBy,
  };
}

function choicesText(p: PromptRecord): string {
  if (p.choices.length > 0) return p.choices.map((c) => `${c.number}. ${oneLine(c.label, 24)}`).join('  ');
  if (p.kind === 'yes_no') return 'yes / no';
  if (p.kind === 'confirm_enter') return 'enter';
  if (p.kind === 'unknown') return 'enter / cancel';
  return 'text';
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

function formatIn(ms: number): string {
  if (ms <= 0) return 'now';
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * `agent-bridge approvals --watch`: an inbox in this terminal. Prompts of every session print as they appear
 * and their outcomes when they end; type `<id> <answer>`, or just the answer for the newest prompt.
 */
export async function watchCommand(): Promise<number> {
  const { terminalRelay } = await import('../terminal-relay.js');
  const { answerFromHere } = await import('../../sessions/host/answer-unattended.js');
  const store = openStore();
  const relay = terminalRelay(store, {
    serves: (session) => session.status === 'active',
    answer: answerFromHere(systemClock, notice),
  });
  process.stdout.write(
    'Watching for prompts of every session. Answer with "<id> <answer>" (or just the answer for the newest); /help; Ctrl-C to stop.\n',
  );
  await relay.start();
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    process.stdin.once('end', resolve);
  });
  await relay.stop();
  store.close();
  return 0;
}
