import { hostname } from 'node:os';
import type { Clock } from '../core/clock.js';
import type { AgentUsage } from '../core/events.js';
import type { IsAlive, ProcessRef } from '../core/process-ref.js';
import type { Database } from './database.js';

export type SessionStatus = 'active' | 'completed' | 'crashed' | 'terminated';

export interface SessionRecord {
  id: string;
  agent: string;
  cwd: string;
  host: string;
  pid: number | null;
  ownerPid: number;
  /** The agent-bridge process that runs the session: pid and start time. */
  owner: ProcessRef;
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  status: SessionStatus;
  agentSessionId: string | null;
  recording: string | null;
  /** Channels (besides the local ones) that may answer this session's prompts. */
  approveFrom: string[];
  /** A name for people: the repository name, else the folder's name. */
  label: string;
  /** What the agent last reported of its model, context use and rate limits; null until it does. */
  usage: AgentUsage | null;
  /** The public key answers to its secret prompts are sealed to (base64 DER, X25519); null if none. */
  answerKey: string | null;
  /** The name a person gave it (the web UI); null until they do. */
  name: string | null;
  /** The first line a person typed into it (echoed on screen, so never a password). */
  firstPrompt: string | null;
  /** `agent-bridge run`: the unix socket its screen is shared on with the web UI, and whether the web may type. */
  viewSocket: string | null;
  webInput: boolean;
  /** A hub's mirror of a session on another machine: that node's name (its own store is the truth); else null. */
  node: string | null;
}

interface Row {
  id: string;
  agent: string;
  cwd: string;
  host: string;
  pid: number | null;
  owner_pid: number;
  owner_start: number | null;
  started_at: number;
  ended_at: number | null;
  exit_code: number | null;
  status: SessionStatus;
  agent_session_id: string | null;
  recording: string | null;
  approve_from: string;
  label: string | null;
  usage: string | null;
  answer_key: string | null;
  name: string | null;
  first_prompt: string | null;
  view_socket: string | null;
  web_input: number;
  node: string | null;
}

const fromRow = (r: Row): SessionRecord => ({
  id: r.id,
  agent: r.agent,
  cwd: r.cwd,
  host: r.host,
  pid: r.pid,
  ownerPid: r.owner_pid,
  owner: { pid: r.owner_pid, startTime: r.owner_start },
  startedAt: r.started_at,
  endedAt: r.ended_at,
  exitCode: r.exit_code,
  status: r.status,
  agentSessionId: r.agent_session_id,
  recording: r.recording,
  approveFrom: JSON.parse(r.approve_from) as string[],
  label: r.label ?? r.cwd.split('/').filter(Boolean).at(-1) ?? r.cwd,
  usage: parseUsage(r.usage),
  answerKey: r.answer_key,
  name: r.name,
  firstPrompt: r.first_prompt,
  viewSocket: r.view_socket,
  webInput: r.web_input === 1,
  node: r.node ?? null,
});

function parseUsage(json: string | null): AgentUsage | null {
  if (!json) return null;
  try {
    return JSON.parse(json) as AgentUsage;
  } catch {
    return null;
  }
}

/**
 * The ids that start with `prefix`, as a range of the primary key (`LIKE 'abc%'` cannot use it): ids are
 * lowercase hex and dashes, all sorting before `~`.
 */
export function prefixRange(prefix: string): [string, string] {
  return [prefix, `${prefix}~`];
}

export class SessionStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  create(session: {
    id: string;
    agent: string;
    cwd: string;
    pid: number | null;
    recording: string | null;
    approveFrom?: string[];
    label?: string;
    /** The process that runs it (default: this one, start time unknown). */
    owner?: ProcessRef;
    answerKey?: string;
  }): SessionRecord {
    const owner = session.owner ?? { pid: process.pid, startTime: null };
    this.db
      .prepare(
        `INSERT INTO sessions (id, agent, cwd, host, pid, owner_pid, owner_start, started_at, status, recording,
           approve_from, label, answer_key)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
      )
      .run(
        session.id,
        session.agent,
        session.cwd,
        hostname(),
        session.pid,
        owner.pid,
        owner.startTime,
        this.clock.now(),
        session.recording,
        JSON.stringify(session.approveFrom ?? []),
        session.label ?? null,
        session.answerKey ?? null,
      );
    return this.get(session.id)!;
  }

  get(id: string): SessionRecord | null {
    const row = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  findByPrefix(prefix: string): SessionRecord[] {
    const rows = this.db
      .prepare(`SELECT * FROM sessions WHERE id >= ? AND id < ? ORDER BY started_at DESC LIMIT 5`)
      .all(...prefixRange(prefix.toLowerCase())) as Row[];
    return rows.map(fromRow);
  }

  list(options: { all?: boolean } = {}): SessionRecord[] {
    const sql = options.all
      ? 'SELECT * FROM sessions ORDER BY started_at DESC LIMIT 200'
      : "SELECT * FROM sessions WHERE status = 'active' ORDER BY started_at DESC";
    return (this.db.prepare(sql).all() as Row[]).map(fromRow);
  }

  /** The agent's own conversation id from the latest session of this repository, for --resume. */
  lastAgentSessionId(label: string, agent: string): string | null {
    const row = this.db
      .prepare(
        `SELECT agent_session_id FROM sessions WHERE label = ? AND agent = ? AND agent_session_id IS NOT NULL
         ORDER BY started_at DESC LIMIT 1`,
      )
      .get(label, agent) as { agent_session_id: string } | undefined;
    return row?.agent_session_id ?? null;
  }

  setAgentSessionId(id: string, agentSessionId: string): void {
    this.db.prepare('UPDATE sessions SET agent_session_id = ? WHERE id = ?').run(agentSessionId, id);
  }

  /** The name a person gave the session; null takes it back. */
  setName(id: string, name: string | null): boolean {
    return this.db.prepare('UPDATE sessions SET name = ? WHERE id = ?').run(name, id).changes === 1;
  }

  /** The first prompt, once: later ones do not replace it. */
  setFirstPrompt(id: string, text: string): void {
    this.db
      .prepare('UPDATE sessions SET first_prompt = ? WHERE id = ? AND first_prompt IS NULL')
      .run(text, id);
  }

  /** Where a session run in a terminal shares its screen, and whether the web may type into it. */
  setViewSocket(id: string, socket: string | null, webInput: boolean): void {
    this.db
      .prepare('UPDATE sessions SET view_socket = ?, web_input = ? WHERE id = ?')
      .run(socket, webInput ? 1 : 0, id);
  }

  /** The sessions these recordings (file paths) were made of. */
  byRecordings(files: string[]): SessionRecord[] {
    if (files.length === 0) return [];
    const statement = this.db.prepare('SELECT * FROM sessions WHERE recording = ?');
    return files.flatMap((file) => {
      const row = statement.get(file) as Row | undefined;
      return row ? [fromRow(row)] : [];
    });
  }

  setUsage(id: string, usage: AgentUsage): void {
    this.db.prepare('UPDATE sessions SET usage = ? WHERE id = ?').run(JSON.stringify(usage), id);
  }

  /** Ends an active session; true when this call ended it (a second caller finds it ended already). */
  end(id: string, status: Exclude<SessionStatus, 'active'>, exitCode: number | null): boolean {
    return (
      this.db
        .prepare(
          "UPDATE sessions SET status = ?, exit_code = ?, ended_at = ? WHERE id = ? AND status = 'active'",
        )
        .run(status, exitCode, this.clock.now(), id).changes === 1
    );
  }

  /** Active sessions on this machine whose agent-bridge process is gone (killed -9, power loss, a reused pid). */
  deadOwners(isAlive: IsAlive): SessionRecord[] {
    return this.list().filter((s) => !this.ownerAlive(s, isAlive));
  }

  /**
   * Is the process that runs the session still there? Sessions of other machines are taken on trust (a hub's
   * mirror of a node's session: the node says when it ends).
   */
  ownerAlive(session: SessionRecord, isAlive: IsAlive): boolean {
    return session.node !== null || session.host !== hostname() || isAlive(session.owner);
  }
}
