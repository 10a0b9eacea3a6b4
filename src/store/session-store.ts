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
  /** Whether the web may type into it (serve's own sessions; `run --web-input`). */
  webInput: boolean;
  /** A hub's mirror of a session on another machine: that node's name (its own store is the truth); else null. */
  node: string | null;
  /** Whether the web may see it (all but `run --no-web-view`). */
  webView: boolean;
  /**
   * The session host holding its terminal (terminal-driver sessions): while it lives, the session does,
   * whatever becomes of its controller (`owner`). Null for a session run inside its controller (structured).
   */
  sessionHost: { process: ProcessRef; socket: string } | null;
  /** How many finished lines of its output its chats were given (the host numbers them). */
  linesRead: number;
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
  web_input: number;
  node: string | null;
  host_pid: number | null;
  host_start: number | null;
  host_socket: string | null;
  web_view: number;
  lines_read: number;
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
  webInput: r.web_input === 1,
  node: r.node ?? null,
  webView: r.web_view === 1,
  sessionHost:
    r.host_pid !== null && r.host_socket !== null
      ? { process: { pid: r.host_pid, startTime: r.host_start }, socket: r.host_socket }
      : null,
  linesRead: r.lines_read,
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

  /** The session host that holds the session's terminal, and what the web may do with it. */
  setHost(
    id: string,
    host: { process: ProcessRef; socket: string },
    web: { input: boolean; view: boolean },
  ): void {
    this.db
      .prepare(
        'UPDATE sessions SET host_pid = ?, host_start = ?, host_socket = ?, web_input = ?, web_view = ? WHERE id = ?',
      )
      .run(host.process.pid, host.process.startTime, host.socket, web.input ? 1 : 0, web.view ? 1 : 0, id);
  }

  /**
   * Another process controls the session now (it took it over from one that died or let go): it applies the
   * answers, and its chats speak for it. Only a running session changes hands.
   */
  setController(id: string, owner: ProcessRef, answerKey: string): boolean {
    return (
      this.db
        .prepare(
          "UPDATE sessions SET owner_pid = ?, owner_start = ?, answer_key = ? WHERE id = ? AND status = 'active'",
        )
        .run(owner.pid, owner.startTime, answerKey, id).changes === 1
    );
  }

  /** The chats were given the session's finished lines up to number `line`. */
  setLinesRead(id: string, line: number): void {
    this.db.prepare('UPDATE sessions SET lines_read = MAX(lines_read, ?) WHERE id = ?').run(line, id);
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

  /**
   * Active sessions on this machine that are gone: their session host (or, for a session without one, their
   * agent-bridge process) died (killed -9, power loss; a reused pid does not count).
   */
  deadOwners(isAlive: IsAlive): SessionRecord[] {
    return this.list().filter((s) => !this.ownerAlive(s, isAlive));
  }

  /**
   * Does the session still run? While its session host lives, it does (a controller that died is replaced);
   * without a host, while its agent-bridge process lives. Sessions of other machines are taken on trust (a
   * hub's mirror of a node's session: the node says when it ends).
   */
  ownerAlive(session: SessionRecord, isAlive: IsAlive): boolean {
    if (session.node !== null || session.host !== hostname()) return true;
    return isAlive(session.sessionHost?.process ?? session.owner);
  }

  /** Is the process that applies the session's answers (its controller) there? */
  controllerAlive(session: SessionRecord, isAlive: IsAlive): boolean {
    return session.node !== null || session.host !== hostname() || isAlive(session.owner);
  }
}
