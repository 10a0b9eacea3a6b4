// What a live run checks after typing an answer: what the CLI did (a file made or not, what its model was
// told, whether it went on, stopped or exited).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LiveAgent } from './agents.js';
import type { LiveCli } from './live-cli.js';

export interface RunContext {
  cli: LiveCli;
  agent: LiveAgent;
  cwd: string;
  /** How many tool results and user messages the model had before this run. */
  before: { results: number; messages: number };
  /** Types a message and makes sure the CLI took it (see `sendMessage`). */
  send(text: string): Promise<void>;
}

/**
 * Types a message at the input box and waits until the model gets it (or a dialog comes up). A CLI that has
 * just started, on a busy machine, may drop the keys or the Enter: then the Enter, or the message, is typed
 * again, once.
 */
export async function sendMessage(cli: LiveCli, agent: LiveAgent, text: string): Promise<void> {
  const requests = () => agent.toolResults().length + agent.userMessages().length;
  const before = requests();
  const taken = () => requests() > before || cli.prompt !== null || cli.exited;
  await cli.send(text);
  try {
    await cli.until(`the model to get "${text}"`, taken, 5_000);
  } catch {
    const bottom = (await cli.screen()).trimEnd().split('\n').slice(-6).join('\n');
    if (bottom.includes(text)) await cli.type(['\r']);
    else await cli.send(text);
    await cli.until(`the model to get "${text}" (typed again)`, taken);
  }
}

export type Check = (ctx: RunContext) => Promise<void>;

const path = (ctx: RunContext, file: string) => join(ctx.cwd, file);

/** The tool ran: `file` exists. */
export const created =
  (file: string): Check =>
  async (ctx) => {
    await ctx.cli.until(`${file} to be created`, () => existsSync(path(ctx, file)));
  };

/** The tool did not run: the turn is over and `file` does not exist. */
export const notCreated =
  (file: string): Check =>
  async (ctx) => {
    await ctx.cli.waitForIdle();
    if (existsSync(path(ctx, file))) throw new Error(`${file} was created: the answer let the tool run`);
  };

/** The edit was made (`edited`) or not (the file still says EDIT-ME) once the turn is over. */
export const edited =
  (file: string, made: boolean): Check =>
  async (ctx) => {
    const done = () => readFileSync(path(ctx, file), 'utf8').includes('edited');
    if (made) await ctx.cli.until(`${file} to be edited`, done);
    else {
      await ctx.cli.waitForIdle();
      if (done()) throw new Error(`${file} was edited: the answer let the edit through`);
    }
  };

/** Something new the model got since the run began (`what` of the agent's record) says `text`. */
const heard =
  (what: 'results' | 'messages', saying: string) =>
  (text: string): Check =>
  async (ctx) => {
    const seen = () => (what === 'results' ? ctx.agent.toolResults() : ctx.agent.userMessages());
    await ctx.cli.until(`the model to get ${saying} "${text}"`, () =>
      seen()
        .slice(ctx.before[what])
        .some((entry) => entry.includes(text)),
    );
  };

/** The model got a tool result (the dialog's answer) that says `text`. */
export const answered = heard('results', 'a tool result saying');

/** The model got a new user message that says `text` (words typed after a "No" that ended the turn). */
export const said = heard('messages', 'a message saying');

/** The CLI is back at its input box, with the screen's bottom rows matching `footer` (its mode). */
export const idleShowing =
  (footer: RegExp): Check =>
  async (ctx) => {
    await ctx.cli.waitForIdle();
    await ctx.cli.until(`the footer to match ${String(footer)}`, async () => {
      const rows = (await ctx.cli.screen()).trimEnd().split('\n');
      return footer.test(rows.slice(-8).join('\n'));
    });
  };

export const idle: Check = (ctx) => ctx.cli.waitForIdle();

/** Still running (a /cancel stopped the turn, not the CLI). */
export const alive: Check = async (ctx) => {
  if (ctx.cli.exited) throw new Error(`${ctx.cli.agent} exited`);
};

export const exits: Check = async (ctx) => {
  await ctx.cli.until('the CLI to exit', () => ctx.cli.exited);
};

export const shows =
  (pattern: RegExp): Check =>
  async (ctx) => {
    await ctx.cli.waitForText(pattern);
  };

export const all =
  (...checks: Check[]): Check =>
  async (ctx) => {
    for (const check of checks) await check(ctx);
  };
