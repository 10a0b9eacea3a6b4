// The golden screens' keys, checked against the real CLIs (offline, against the fake model APIs): each dialog
// is brought up, detected by agent-bridge's own terminal driver, compared with its golden expected.json, and
// answered by the driver, which must type the golden keys; then the CLI must do what the answer says. A CLI update that changes a dialog
// or the keys it takes fails here. `GOLDEN_RECORD=1` rewrites the golden screens and keys from what it sees
// (review the diff). See test/golden/README.md.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getAgent } from '../../src/agents/registry.js';
import { parseReply, type DetectedPrompt } from '../../src/core/prompt.js';
import { replyKeys } from '../../src/drivers/terminal/reply-keys.js';
import { prepareLiveAgent, type LiveAgent, type LiveAgentId } from './live/agents.js';
import { sendMessage, type RunContext } from './live/checks.js';
import { LiveCli } from './live/live-cli.js';
import { SCENARIOS, type Run, type Step } from './live/scenarios.js';

const RECORD = process.env.GOLDEN_RECORD === '1';
const ONLY = process.env.GOLDEN_AGENTS?.split(',');
const here = path.dirname(fileURLToPath(import.meta.url));

interface Expected {
  prompt: {
    kind: string;
    choices: string[];
    safeDefault: unknown;
    allowForSessionChoice?: number;
    [more: string]: unknown;
  } | null;
  idle: boolean;
  replies?: Record<string, string[]>;
}

/** A world for one CLI process: its folder (`<root>/proj`), its fake model API and home. */
interface World {
  root: string;
  cwd: string;
  agent: LiveAgent;
  cli: LiveCli;
  /** A run has been played on it (it is past its start). */
  played: boolean;
}

async function startWorld(id: LiveAgentId, trusted: boolean): Promise<World> {
  // /tmp/ab-XXXXXX has the length of /home/dev/work, which stands for it in the saved screens.
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'ab-')));
  const cwd = path.join(root, 'proj');
  mkdirSync(cwd);
  const agent = await prepareLiveAgent(id, cwd, trusted);
  const cli = await LiveCli.start(agent.options);
  return { root, cwd, agent, cli, played: false };
}

async function endWorld(world: World): Promise<void> {
  await world.cli.stop();
  await world.agent.close();
  await rm(world.root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** Text as saved: temporary paths replaced by the ones the golden screens use. */
function normalise(text: string, world: World): string {
  const homes = new RegExp(
    `${escapeRegExp(tmpdir())}/(?:agent-bridge-claude-home-|ab-\\w+-home-)\\w{6}`,
    'g',
  );
  return text
    .replaceAll(world.root, '/home/dev/work')
    .replace(homes, '/home/dev')
    .replaceAll(path.basename(world.root), 'work');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function caseDir(agent: LiveAgentId, golden: string): string {
  return path.join(here, 'prompts', agent, golden);
}

function readExpected(agent: LiveAgentId, golden: string): Expected | null {
  const file = path.join(caseDir(agent, golden), 'expected.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Expected) : null;
}

/**
 * What the live CLI showed, in the golden's terms (record mode writes it): the prompt as detected on the screen
 * saved (`fresh`), the keys of each reply. Hand-written excerpt and detail checks stay while they still hold.
 */
function recorded(
  prompt: DetectedPrompt,
  previous: Expected | null,
  fresh: boolean,
  replies: Record<string, string[]>,
): Expected {
  const allow = prompt.allowForSessionChoice;
  const still = (texts: unknown, whole: string) =>
    Array.isArray(texts) ? texts.filter((t: string) => whole.includes(t)) : [];
  const detected = {
    ...previous?.prompt,
    kind: prompt.kind,
    choices: prompt.choices.map((c) => c.label),
    safeDefault: prompt.safeDefault,
    allowForSessionChoice: allow,
    excerptIncludes: still(previous?.prompt?.excerptIncludes, prompt.excerpt),
    detailIncludes: still(previous?.prompt?.detailIncludes, prompt.detail),
  };
  return {
    prompt: fresh || !previous?.prompt ? detected : previous.prompt,
    idle: false,
    replies: { ...previous?.replies, ...replies },
  };
}

/** Labels name the run's own file (`touch bash-no.txt`): compared with the golden's without it. */
function comparable(labels: string[]): string[] {
  return labels.map((label) => label.replace(/[\w-]+\.txt\b/g, 'FILE.txt'));
}

/** One step: the dialog shown, checked against its golden, answered with the golden keys. */
/** `after`: the key of the dialog the run's step before answered. Returns the key of the one answered here. */
async function answerStep(
  id: LiveAgentId,
  world: World,
  step: Step,
  saved: Set<string>,
  after: string | undefined,
): Promise<string> {
  const expected = readExpected(id, step.golden);
  if (!expected && !RECORD) throw new Error(`no golden case prompts/${id}/${step.golden}: record it`);
  const prompt = await world.cli.waitForDialog(expected?.prompt?.kind, undefined, after);
  const screen = await world.cli.session.snapshot();
  const action = parseReply(step.reply, prompt);
  const menuKeys = getAgent(id).screens.menuKeys;
  const keys = replyKeys(action, prompt, menuKeys, screen.bracketedPaste);
  if (RECORD) {
    const dir = caseDir(id, step.golden);
    mkdirSync(dir, { recursive: true });
    const fresh = !saved.has(step.golden);
    if (fresh) writeFileSync(path.join(dir, 'screen.txt'), normalise(screen.text, world) + '\n');
    saved.add(step.golden);
    const shown = JSON.parse(normalise(JSON.stringify(prompt), world)) as DetectedPrompt;
    const typed = (reply: string) =>
      replyKeys(parseReply(reply, prompt), prompt, menuKeys, screen.bracketedPaste);
    // Every choice's keys too (and the safe default's), by the same rules as the replies played here.
    const others = [
      ...prompt.choices.map((c) => String(c.number)),
      ...(prompt.safeDefault ? ['default'] : []),
    ];
    const all = Object.fromEntries(others.map((reply) => [reply, typed(reply) ?? []]));
    const next = recorded(shown, readExpected(id, step.golden), fresh, { ...all, [step.reply]: keys ?? [] });
    writeFileSync(path.join(dir, 'expected.json'), JSON.stringify(next, null, 2) + '\n');
    await world.cli.answer(prompt, step.reply);
    return prompt.key;
  }
  const golden = expected!.prompt!;
  const where = `${id}/${step.golden} (reply "${step.reply}") on:\n${screen.text}`;
  expect(prompt.kind, where).toBe(golden.kind);
  const labels = prompt.choices.map((c) => normalise(c.label, world));
  expect(comparable(labels), where).toEqual(comparable(golden.choices));
  expect(prompt.safeDefault, where).toEqual(golden.safeDefault);
  expect(prompt.allowForSessionChoice, where).toBe(golden.allowForSessionChoice);
  const goldenKeys = expected!.replies?.[step.reply];
  if (!goldenKeys)
    throw new Error(`prompts/${id}/${step.golden}/expected.json has no keys for "${step.reply}"`);
  expect(keys, `the keys agent-bridge types for ${where}`).toEqual(goldenKeys);
  // Typed by the driver itself, as any answer is: from the dialog on screen now, one write per key.
  expect(await world.cli.answer(prompt, step.reply), where).toBe(goldenKeys.join(''));
  return prompt.key;
}

async function play(id: LiveAgentId, world: World, run: Run, saved: Set<string>): Promise<void> {
  const ctx: RunContext = {
    cli: world.cli,
    agent: world.agent,
    cwd: world.cwd,
    before: { results: world.agent.toolResults().length, messages: world.agent.userMessages().length },
    send: (text) => sendMessage(world.cli, world.agent, text),
  };
  if (typeof run.reach === 'string') await ctx.send(run.reach);
  else if (run.reach) await run.reach(ctx);
  let answered: string | undefined;
  for (const step of run.steps) answered = await answerStep(id, world, step, saved, answered);
  await run.expect(ctx);
  // A run of its own ends with its process; the others leave the CLI at its input box for the next.
  if (world.cli.exited || run.fresh) return;
  await world.cli.waitForIdle();
  // Just started: give it a moment more before the first message (keys typed earlier can be lost).
  if (!run.reach) await world.cli.waitForQuiet(1_500);
}

async function readyAtStart(cli: LiveCli): Promise<void> {
  await cli.waitForIdle(30_000);
  await cli.waitForQuiet(1_500);
}

function describeRun(run: Run): string {
  const reach = typeof run.reach === 'string' ? run.reach : run.reach ? '(set up)' : 'start-up';
  return `${reach}: ${run.steps.map((s) => `${s.golden} ← "${s.reply}"`).join(', ')}`;
}

describe('golden keys on the real CLIs (offline)', () => {
  for (const id of Object.keys(SCENARIOS) as LiveAgentId[]) {
    it.skipIf(ONLY !== undefined && !ONLY.includes(id)).concurrent(
      id,
      async () => {
        const saved = new Set<string>();
        let shared: World | null = null;
        try {
          const { runs, trusted = false } = SCENARIOS[id];
          for (const run of runs) {
            const world = run.fresh
              ? await startWorld(id, false)
              : (shared ??= await startWorld(id, trusted));
            // A process that starts without a dialog: let it settle before the first message.
            if (run.reach && !world.played) await readyAtStart(world.cli);
            world.played = true;
            try {
              await play(id, world, run, saved);
            } catch (error) {
              (error as Error).message = `${id}, ${describeRun(run)}: ${(error as Error).message}`;
              throw error;
            } finally {
              if (run.fresh) await endWorld(world);
            }
          }
        } finally {
          if (shared) await endWorld(shared);
        }
      },
      300_000,
    );
  }
});
