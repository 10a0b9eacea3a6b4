import path from 'node:path';
import { getAgent, isAgentId } from '../agents/registry.js';
import type { SessionState, WebSession } from '../channels/web/backend.js';
import type { ConversationState } from '../channels/web/conversation-types.js';
import type { SessionRecord } from '../store/session-store.js';
import type { AgentSession } from './agent-session.js';

/** Names longer than this are cut for lists (the whole first prompt is kept in the store). */
const NAME_CHARS = 80;

/** How a session can be reached from this server, besides what the store says of it. */
export interface Reach {
  /** It runs in this process. */
  live: AgentSession | undefined;
  /** This server started it (from the page): it can restart it with the same arguments. */
  startedHere: boolean;
  /** Another process controls it (`agent-bridge run`, `attach`), and its session host lets the web see it. */
  shared: boolean;
  /** This server keeps its conversation (a structured session it runs, or ran lately), and its state. */
  conversation: ConversationState | null;
  /** It runs on a node of this hub's cluster, which stops it when asked. */
  remote?: boolean;
}

/** What people call a session: the name they gave it, else what they first asked of it, else agent and folder. */
export function sessionName(record: SessionRecord): string {
  const name = record.name ?? record.firstPrompt ?? `${record.agent} in ${folderName(record)}`;
  const chars = [...name];
  return chars.length > NAME_CHARS ? `${chars.slice(0, NAME_CHARS - 1).join('')}…` : name;
}

/** A stored session as the web UI shows it: its state as it truly is, and what can be done with it from here. */
export function webSessionView(record: SessionRecord, pendingPrompts: number, reach: Reach): WebSession {
  const running = record.status === 'active';
  const runsIn = reach.live ? 'serve' : running && reach.shared ? 'terminal' : 'elsewhere';
  const spec = isAgentId(record.agent) ? getAgent(record.agent) : null;
  // A structured session has no terminal to attach: it is listed, its prompts are in the inbox.
  const hasScreen = reach.live ? reach.live.terminal !== null : true;
  return {
    id: record.id,
    agent: record.agent,
    name: sessionName(record),
    customName: record.name,
    firstPrompt: record.firstPrompt,
    label: record.label,
    cwd: record.cwd,
    host: record.host,
    state: stateOf(record, pendingPrompts, reach, Boolean(spec?.screens.isIdle)),
    startedAt: new Date(record.startedAt).toISOString(),
    ended: running
      ? null
      : {
          status: record.status as 'completed' | 'crashed' | 'terminated',
          at: record.endedAt === null ? null : new Date(record.endedAt).toISOString(),
          exitCode: record.exitCode,
        },
    pendingPrompts,
    runsIn,
    live: running && runsIn !== 'elsewhere' && hasScreen,
    conversation: reach.conversation !== null,
    // What a person running it in a terminal allowed the web (`run --web-input`) holds after serve took it over.
    canType: running && hasScreen && record.webView && runsIn !== 'elsewhere' && record.webInput,
    canStop:
      running &&
      ((runsIn === 'serve' && (record.webInput || record.sessionHost === null)) ||
        (runsIn === 'terminal' && record.webInput) ||
        Boolean(reach.remote)),
    // A custom command's arguments are known only to the server that started it.
    canRestart: running
      ? reach.startedHere
      : spec !== null && (record.agent !== 'custom' || reach.startedHere),
    canResume: !running && Boolean(spec?.resumeArgs),
    recording: record.recording ? path.basename(record.recording, '.cast') : null,
  };
}

/**
 * Busy or idle only where it is known: from the agent's screen, or its protocol (a structured session's turns);
 * a program whose screens agent-bridge cannot read is just running.
 */
function stateOf(
  record: SessionRecord,
  pendingPrompts: number,
  reach: Reach,
  knowsIdle: boolean,
): SessionState {
  if (record.status !== 'active') return 'exited';
  if (pendingPrompts > 0) return 'waiting';
  if (reach.live && reach.conversation && reach.conversation !== 'exited')
    return reach.conversation === 'idle' ? 'idle' : 'busy';
  if (!reach.live || !knowsIdle) return 'running';
  return reach.live.isIdle ? 'idle' : 'busy';
}

function folderName(record: SessionRecord): string {
  return path.basename(record.cwd) || record.cwd;
}
