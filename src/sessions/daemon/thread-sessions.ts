import { existsSync } from 'node:fs';
import type { ChatTarget } from '../../channels/contract.js';
import { expandDir } from '../../config/repos.js';
import { findThreadEntry, launchSettings, threadSettings } from '../../config/thread-settings.js';
import type { ThreadEntry } from '../../config/schema.js';
import type { Store } from '../../store/store.js';
import type { ThreadRecord } from '../../store/thread-store.js';
import { GitWorktrees } from '../worktrees/git-worktrees.js';
import { ParentFolderWatch } from '../worktrees/parent-folder-watch.js';
import type { AgentSession } from '../agent-session.js';
import type { DaemonRepo } from './daemon-types.js';
import type { RepoDefinition, RepoSession } from './repo-session.js';

export interface ThreadSessionsOptions {
  store: Store;
  log: (line: string) => void;
  makeSession: (definition: RepoDefinition) => RepoSession;
  /** Says something in a chat (a thread, or its parent when the thread is closed). */
  notify: (channel: string, target: ChatTarget, text: string) => Promise<void>;
  /** Writes a thread created in chat into the config file (keeping its comments). */
  saveThread?: (repo: string, entry: ThreadEntry) => void;
}

export interface ThreadView {
  record: ThreadRecord;
  state: string;
  worktree: { exists: boolean; dirty: boolean; changes: number; branch: string | null } | null;
}

/**
 * Seed 001's threads: each chat thread under a mapped channel runs its own session of the same repository,
 * with settings merged from the thread's entry, the project's thread defaults and the project, and
 * optionally in a git worktree of its own. Thread ↔ session ↔ worktree is kept in the store, so a restart
 * finds them again; closing the thread stops its session and removes a clean worktree.
 */
export class ThreadSessions {
  private readonly sessions = new Map<string, RepoSession>();
  /** Active worktrees' folders, watched: one removed from outside is noticed at once, with no polling. */
  private readonly watch = new ParentFolderWatch(() => void this.checkWorktrees());
  /** Worktrees agent-bridge is removing itself (a thread closed): not "removed outside". */
  private readonly removing = new Set<string>();
  /** Checks run one at a time: two events must not report one worktree twice. */
  private checking: Promise<ThreadRecord[]> = Promise.resolve([]);

  constructor(private readonly options: ThreadSessionsOptions) {}

  /** The thread's session: the one running, else a new one (in a new worktree when isolated). */
  async sessionFor(
    channel: string,
    target: ChatTarget & { threadId: string },
    repo: DaemonRepo,
  ): Promise<RepoSession> {
    const key = keyOf(channel, target);
    const running = this.sessions.get(key);
    if (running) return running;
    const { store } = this.options;
    let record = store.threads.get(channel, target.chatId, target.threadId);
    // A worktree removed from outside: said once in the thread; the thread then talks to the parent's session.
    if (record?.worktreePath && !existsSync(record.worktreePath)) {
      if (record.state === 'active') await this.worktreeGone(record);
      throw new Error(`its worktree ${record.worktreePath} was removed outside agent-bridge`);
    }
    const entry = repo.config ? findThreadEntry(repo.config, channel, target.threadId) : undefined;
    const settings = repo.config ? threadSettings(repo.config, entry) : null;
    const label = `${repo.name}#${target.threadId}`;
    let dir = settings ? expandDir(settings.dir, repo.baseDir ?? repo.dir) : repo.dir;
    let worktree: { path: string; branch: string | null } | null = record?.worktreePath
      ? { path: record.worktreePath, branch: record.branch }
      : null; // active, or kept
    if (!worktree && settings?.isolation === 'worktree') {
      const info = await new GitWorktrees(dir).add(`thread-${target.threadId}`);
      worktree = { path: info.path, branch: info.branch };
      store.audit.record('WORKTREE', {
        action: 'added',
        repo: repo.name,
        thread: target.threadId,
        path: info.path,
      });
    }
    if (worktree) dir = worktree.path;
    record = store.threads.upsert({
      channel,
      chatId: target.chatId,
      threadId: target.threadId,
      repo: repo.name,
      label,
      worktreePath: worktree?.path ?? null,
      branch: worktree?.branch ?? null,
      state: 'active',
    });
    this.watchWorktrees();
    if (!entry && repo.config && this.options.saveThread) {
      try {
        this.options.saveThread(repo.name, {
          id: target.threadId,
          channel: channel as NonNullable<ThreadEntry['channel']>,
          chat: target.chatId,
        });
      } catch (error) {
        this.options.log(
          `could not save thread ${target.threadId} to the config: ${(error as Error).message}`,
        );
      }
    }
    const session = this.options.makeSession({
      ...repo,
      name: label,
      dir,
      launch: settings ? launchSettings(settings) : {},
      channels: [channel],
    });
    this.sessions.set(key, session);
    this.options.store.audit.record('THREAD_SESSION', {
      action: 'created',
      repo: repo.name,
      thread: target.threadId,
      dir,
    });
    return session;
  }

  /** The thread's session if this process made one (it may be stopped), without starting anything. */
  running(channel: string, target: ChatTarget): RepoSession | undefined {
    return this.sessions.get(keyOf(channel, target));
  }

  /** The chat of a thread session, by its label; null for sessions that are not a thread's. */
  targetOf(label: string): { channel: string; target: ChatTarget } | null {
    const record = this.options.store.threads.activeByLabel(label);
    return record
      ? { channel: record.channel, target: { chatId: record.chatId, threadId: record.threadId } }
      : null;
  }

  /**
   * The thread was archived or deleted: its session stops, and its worktree goes unless it holds uncommitted
   * changes (then it is kept, and the parent channel is told where). A thread that talks again later starts
   * afresh, or in its kept worktree.
   */
  async close(channel: string, target: ChatTarget & { threadId: string }, reason: string): Promise<boolean> {
    const { store } = this.options;
    const key = keyOf(channel, target);
    const record = store.threads.get(channel, target.chatId, target.threadId);
    const session = this.sessions.get(key);
    this.sessions.delete(key);
    await session?.stop(`thread ${reason}`, false);
    if (!record || record.state !== 'active') return session !== undefined;
    const kept =
      record.worktreePath && existsSync(record.worktreePath) ? await this.removeWorktree(record) : null;
    const state = kept ? 'kept' : 'closed';
    store.threads.upsert({
      ...record,
      state,
      ...(kept ? {} : { worktreePath: null, branch: null }),
    });
    this.watchWorktrees();
    store.audit.record('THREAD_SESSION', {
      action: reason,
      repo: record.repo,
      thread: record.threadId,
      worktree: state,
    });
    if (kept)
      await this.options.notify(
        channel,
        { chatId: target.chatId },
        `⚠️ Thread ${target.threadId} was ${reason}; its worktree ${record.worktreePath} (branch ${record.branch ?? '?'}) has uncommitted changes, so it was kept. Remove it yourself with: git worktree remove --force ${record.worktreePath}`,
      );
    return true;
  }

  /** Removes a closed thread's worktree; the reason it was kept instead (uncommitted changes), or null. */
  private async removeWorktree(record: ThreadRecord): Promise<string | null> {
    const path = record.worktreePath!;
    this.removing.add(path);
    // GitWorktrees finds the main checkout from any of its worktrees.
    const removed = await new GitWorktrees(path).remove(path).finally(() => this.removing.delete(path));
    this.options.store.audit.record('WORKTREE', {
      action: removed.removed ? 'removed' : 'kept',
      repo: record.repo,
      thread: record.threadId,
      path,
      ...(removed.reason ? { reason: removed.reason } : {}),
    });
    return removed.removed ? null : (removed.reason ?? 'uncommitted changes');
  }

  /**
   * At start: threads whose session was running when agent-bridge died (`crashed` labels) get it back now;
   * other threads get theirs at their next message (resuming the agent's own conversation there); worktrees
   * removed meanwhile are reported to their threads; worktrees of ours that no thread knows are reported;
   * `startup: true` threads start now. Returns lines for the log.
   */
  async recover(repos: DaemonRepo[], crashed: Set<string> = new Set()): Promise<string[]> {
    const lines: string[] = [];
    const { store } = this.options;
    for (const gone of await this.checkWorktrees())
      lines.push(`thread ${gone.threadId}: its worktree ${gone.worktreePath} was removed`);
    for (const record of store.threads.list().filter((r) => r.state === 'active')) {
      const repo = repos.find((r) => r.name === record.repo);
      // Its session was running when agent-bridge died: bring it back now, resuming the agent's conversation
      // (unless its session host kept it running: then it was taken over already).
      const running = this.running(record.channel, { chatId: record.chatId, threadId: record.threadId });
      if (repo && crashed.has(record.label) && running?.state !== 'running')
        lines.push(await this.restart(record, repo));
    }
    for (const repo of repos) {
      if (!(await GitWorktrees.isRepository(repo.dir).catch(() => false))) continue;
      const known = store.threads.list(repo.name).flatMap((r) => (r.worktreePath ? [r.worktreePath] : []));
      for (const orphan of await new GitWorktrees(repo.dir).orphans(known).catch(() => [])) {
        lines.push(
          `${repo.name}: worktree ${orphan.path} (branch ${orphan.branch ?? '?'}) belongs to no thread`,
        );
      }
      for (const entry of repo.config?.threads ?? []) {
        if (!entry.startup || !entry.chat) continue;
        const channel = entry.channel ?? 'discord';
        const target = { chatId: String(entry.chat), threadId: String(entry.id) };
        try {
          await (await this.sessionFor(channel, target, repo)).start();
          lines.push(`${repo.name}: started thread ${entry.id} (startup)`);
        } catch (error) {
          lines.push(`${repo.name}: thread ${entry.id} could not start: ${(error as Error).message}`);
        }
      }
    }
    this.watchWorktrees();
    return lines;
  }

  private async restart(record: ThreadRecord, repo: DaemonRepo): Promise<string> {
    const target = { chatId: record.chatId, threadId: record.threadId };
    try {
      await (await this.sessionFor(record.channel, target, repo)).start();
      return `thread ${record.threadId}: its session is back after a crash${record.worktreePath ? ` (in ${record.worktreePath})` : ''}`;
    } catch (error) {
      return `thread ${record.threadId}: its session could not come back: ${(error as Error).message}`;
    }
  }

  /** Threads with sessions, newest first, with their worktrees' state (`/worktrees`, the control panel). */
  async list(repo?: string): Promise<ThreadView[]> {
    const views: ThreadView[] = [];
    for (const record of this.options.store.threads.list(repo)) {
      if (record.state === 'closed') continue;
      const session = this.sessions.get(
        keyOf(record.channel, { chatId: record.chatId, threadId: record.threadId }),
      );
      let worktree: ThreadView['worktree'] = null;
      if (record.worktreePath) {
        const exists = existsSync(record.worktreePath);
        const status = exists
          ? await new GitWorktrees(record.worktreePath).status(record.worktreePath).catch(() => null)
          : null;
        worktree = {
          exists,
          dirty: status?.dirty ?? false,
          changes: status?.changes ?? 0,
          branch: record.branch,
        };
      }
      views.push({
        record,
        state: record.state === 'kept' ? 'kept' : (session?.state ?? 'stopped'),
        worktree,
      });
    }
    return views;
  }

  /** agent-bridge stops: thread sessions in session hosts are let go (they go on), the others stop. */
  async releaseAll(reason: string): Promise<void> {
    this.watch.close();
    await Promise.all([...this.sessions.values()].map((s) => s.release(reason).catch(() => undefined)));
  }

  /**
   * A thread's session taken over from its session host (serve restarted while it ran): back with its thread,
   * in the same worktree, still running. Returns a line for the log.
   */
  async adopt(record: ThreadRecord, repo: DaemonRepo, session: AgentSession): Promise<string> {
    const target = { chatId: record.chatId, threadId: record.threadId };
    try {
      const thread = await this.sessionFor(record.channel, target, repo);
      if (!thread.adopt(session)) throw new Error('it already runs a session');
      return `thread ${record.threadId}: its session is taken back, still running${record.worktreePath ? ` (in ${record.worktreePath})` : ''}`;
    } catch (error) {
      session.detach('its thread could not take it back');
      return `thread ${record.threadId}: its session could not be taken back: ${(error as Error).message}`;
    }
  }

  private activeWorktrees(): ThreadRecord[] {
    return this.options.store.threads.list().filter((r) => r.state === 'active' && r.worktreePath !== null);
  }

  private watchWorktrees(): void {
    this.watch.set(this.activeWorktrees().map((r) => r.worktreePath!));
  }

  /** Active threads whose worktree was removed from outside: each is closed and told; returns them. */
  private checkWorktrees(): Promise<ThreadRecord[]> {
    const check = async () => {
      const gone = this.activeWorktrees().filter(
        (r) => !this.removing.has(r.worktreePath!) && !existsSync(r.worktreePath!),
      );
      for (const record of gone) await this.worktreeGone(record);
      return gone;
    };
    this.checking = this.checking.then(check, check);
    return this.checking;
  }

  /** A worktree removed from outside: the session stops and the thread is asked to be archived. */
  private async worktreeGone(record: ThreadRecord): Promise<void> {
    const target = { chatId: record.chatId, threadId: record.threadId };
    const session = this.sessions.get(keyOf(record.channel, target));
    this.sessions.delete(keyOf(record.channel, target));
    await session?.stop('worktree removed', false);
    this.options.store.threads.setState(record.channel, record.chatId, record.threadId, 'closed');
    this.watchWorktrees();
    this.options.store.audit.record('WORKTREE', {
      action: 'removed outside',
      repo: record.repo,
      thread: record.threadId,
      path: record.worktreePath,
    });
    await this.options
      .notify(
        record.channel,
        target,
        `⚠️ This thread's worktree ${record.worktreePath} was removed outside agent-bridge, so its session ended. Archive this thread; a new one gets a new worktree.`,
      )
      .catch(() => undefined);
  }
}

function keyOf(channel: string, target: ChatTarget): string {
  return `${channel}:${target.chatId}:${target.threadId ?? ''}`;
}
