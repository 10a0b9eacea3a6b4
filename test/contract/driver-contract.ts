// The driver contract: what every driver (the terminal driver and each structured driver) gives a session, so
// the coordinator, the store, the audit log and every channel work the same for every agent. Each driver's
// own *.contract.test.ts runs these cases against a real agent (or the fake ACP agent), skips with a reason.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentSpec } from '../../src/agents/types.js';
import { systemClock } from '../../src/core/clock.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { StructuredLaunch } from '../../src/drivers/structured/structured-driver.js';
import { AgentSession } from '../../src/sessions/agent-session.js';
import { answerPrompt } from '../../src/sessions/answer-prompt.js';
import { sendTextToSession } from '../../src/sessions/typed-text.js';
import type { PromptRecord } from '../../src/store/prompt-store.js';
import { openStore, type Store } from '../../src/store/store.js';
import { waitFor } from '../support/wait.js';

export const CASES = ['start', 'message', 'permission', 'deny', 'cancel', 'exit', 'resume'] as const;
export type ContractCase = (typeof CASES)[number];

/** How to run one agent under the driver being tested, in a folder of its own. */
export interface PreparedAgent {
  spec: AgentSpec;
  command: string;
  /** Its arguments; `resume` is the agent's own id of the conversation to resume. */
  args(resume?: string): string[];
  env: Record<string, string>;
  /** Set for a structured driver: the launch options its protocol carries. */
  structured?: (resume?: string) => Pick<StructuredLaunch, 'resume'>;
  /** Claude Code's hooks: the agent runs in a session host of its own, as serve runs it, and they post there. */
  hooks?: true;
  /** Everything the agent's model was sent so far, as one string (what reached the agent). */
  modelSaw(): string;
  close(): Promise<void>;
}

export interface ContractSubject {
  name: string;
  prepare(cwd: string): Promise<PreparedAgent>;
  /** Cases this driver cannot pass, each with why. */
  skip?: Partial<Record<ContractCase, string>>;
  /** Starting takes a while for real CLIs. */
  timeoutMs?: number;
}

interface Running {
  session: AgentSession;
  events: AgentEvent[];
}

export function driverContract(subject: ContractSubject): void {
  describe(`driver contract: ${subject.name}`, () => {
    let cwd: string;
    let store: Store;
    let agent: PreparedAgent;
    const running: AgentSession[] = [];
    const timeout = subject.timeoutMs ?? 60_000;

    beforeEach(async () => {
      cwd = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-contract-')));
      store = openStore({ dir: path.join(cwd, '.agent-bridge'), clock: systemClock });
      agent = await subject.prepare(cwd);
    });

    afterEach(async () => {
      for (const session of running.splice(0)) {
        const exit = await session.driver.stop();
        await session.finish(exit, 'terminated').catch(() => undefined);
      }
      await agent.close();
      store.close();
      rmSync(cwd, { recursive: true, force: true });
    });

    async function start(resume?: string): Promise<Running> {
      const events: AgentEvent[] = [];
      const session = await AgentSession.start({
        spec: agent.spec,
        command: agent.command,
        args: agent.args(resume),
        cwd,
        env: agent.env,
        cols: 120,
        rows: 40,
        autoTrust: true,
        record: false,
        store,
        clock: systemClock,
        ...(agent.hooks
          ? { hooks: true as const, hosted: { client: 'serve' as const, webInput: false, webView: false } }
          : {}),
        ...(agent.structured ? { structured: agent.structured(resume) } : {}),
      });
      running.push(session);
      session.on((event) => events.push(event));
      await session.whenReady();
      return { session, events };
    }

    function say(session: AgentSession, text: string): void {
      sendTextToSession(store, session.id, text, 'contract:1');
      session.poke();
    }

    const messageWith = (run: Running, text: string) =>
      waitFor(
        `a message with "${text}"`,
        () => run.events.find((e) => e.type === 'message' && e.text.includes(text)),
        { timeoutMs: timeout },
      );

    const openPrompt = (run: Running): Promise<PromptRecord> =>
      waitFor('a prompt', () => store.prompts.open(run.session.id)[0], { timeoutMs: timeout });

    function answer(run: Running, prompt: PromptRecord, raw: string): void {
      const outcome = answerPrompt(store, { promptRef: prompt.id, raw, decidedBy: 'contract:1' });
      expect(outcome.ok, outcome.ok ? '' : outcome.reason).toBe(true);
      run.session.poke();
    }

    const test = (name: ContractCase, title: string, body: () => Promise<void>) => {
      const why = subject.skip?.[name];
      if (why) it.skip(`${title} (skipped: ${why})`, body);
      else it(title, body, timeout * 2);
    };

    test('start', 'starts: a running driver of its kind, an active session in the store', async () => {
      const { session } = await start();
      expect(session.driver.running).toBe(true);
      expect(store.sessions.get(session.id)?.status).toBe('active');
    });

    test('message', 'a message reaches the agent; its answer comes back as clean text', async () => {
      const run = await start();
      say(run.session, 'hello contract');
      const message = await messageWith(run, 'You said: hello contract');
      // eslint-disable-next-line no-control-regex -- no terminal escape codes in a message
      expect((message as { text: string }).text).not.toMatch(/\x1b/);
    });

    test(
      'permission',
      'a permission is an exact prompt with the agent’s options; "1" runs the tool once',
      async () => {
        const run = await start();
        say(run.session, 'please run TOOL:contract-yes.txt');
        const prompt = await openPrompt(run);
        expect(prompt).toMatchObject({ kind: 'permission', confidence: 'exact' });
        // Raised by Claude's hook through the session host, not read off its screen.
        if (agent.hooks) expect(prompt.source).toBe('hook');
        expect(prompt.choices.length).toBeGreaterThanOrEqual(2);
        expect(prompt.detail).toContain('contract-yes.txt');
        answer(run, prompt, '1');
        await waitFor('the file', () => existsSync(path.join(cwd, 'contract-yes.txt')), {
          timeoutMs: timeout,
        });
        await waitFor('the prompt resolved', () => store.prompts.get(prompt.id)?.status === 'resolved', {
          timeoutMs: timeout,
        });
        const injected = readFileSync(store.audit.file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { event: string; prompt_id?: string })
          .filter((e) => e.event === 'REPLY_INJECTED' && e.prompt_id === prompt.id);
        expect(injected).toHaveLength(1);
      },
    );

    test('deny', 'a No with words: the tool does not run, the words reach the agent', async () => {
      const run = await start();
      say(run.session, 'please run TOOL:contract-no.txt');
      const prompt = await openPrompt(run);
      answer(run, prompt, 'use contract-other.txt instead');
      await waitFor(
        'the words at the agent',
        () => agent.modelSaw().includes('use contract-other.txt instead'),
        {
          timeoutMs: timeout,
        },
      );
      expect(existsSync(path.join(cwd, 'contract-no.txt'))).toBe(false);
    });

    test(
      'cancel',
      'cancel: a waiting prompt is withdrawn, nothing runs, the next message is answered',
      async () => {
        const run = await start();
        say(run.session, 'please run TOOL:contract-cancel.txt');
        const prompt = await openPrompt(run);
        run.session.driver.interrupt();
        await waitFor('the prompt closed', () => store.prompts.open(run.session.id).length === 0, {
          timeoutMs: timeout,
        });
        expect(store.prompts.get(prompt.id)?.status).not.toBe('injected');
        const before = run.events.length;
        say(run.session, 'hello after cancel');
        await waitFor(
          'the next message at the agent',
          () => agent.modelSaw().includes('hello after cancel'),
          {
            timeoutMs: timeout,
          },
        );
        await waitFor('its answer', () => run.events.slice(before).some((e) => e.type === 'message'), {
          timeoutMs: timeout,
        });
        expect(existsSync(path.join(cwd, 'contract-cancel.txt'))).toBe(false);
      },
    );

    test('exit', 'stop: the agent exits, an exit event, the session ends in the store', async () => {
      const run = await start();
      const exit = await run.session.driver.stop();
      await run.session.finish(exit, 'terminated');
      running.splice(running.indexOf(run.session), 1);
      expect(run.events.some((e) => e.type === 'exit')).toBe(true);
      expect(store.sessions.get(run.session.id)?.status).toBe('terminated');
    });

    test('resume', 'resume: a new session continues the conversation by the agent’s own id', async () => {
      const first = await start();
      say(first.session, 'remember ZEBRA-42');
      await messageWith(first, 'ZEBRA-42');
      const id = await waitFor(
        'the agent’s session id',
        () => store.sessions.get(first.session.id)?.agentSessionId,
      );
      const exit = await first.session.driver.stop();
      await first.session.finish(exit, 'terminated');
      running.splice(running.indexOf(first.session), 1);
      const seen = agent.modelSaw().length;
      const second = await start(id);
      say(second.session, 'hello again');
      await messageWith(second, 'You said: hello again');
      expect(agent.modelSaw().slice(seen)).toContain('ZEBRA-42');
    });
  });
}
