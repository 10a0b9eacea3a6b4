// Every dialog of each real CLI, reached through the fake model's scripted answers (models.ts), answered with
// the keys its golden case gives (prompts/<agent>/<case>/expected.json), and what the CLI must then do.
// Runs share one CLI process per agent, in this order (answers that change what is asked later come last);
// `fresh` runs get their own process (an answer that exits the CLI).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LiveAgentId } from './agents.js';
import {
  alive,
  all,
  answered,
  created,
  edited,
  exits,
  idle,
  idleShowing,
  notCreated,
  said,
  shows,
  type Check,
  type RunContext,
} from './checks.js';

export interface Step {
  /** The golden case: prompts/<agent>/<golden>/. */
  golden: string;
  /** What a person answers, as any channel takes it (`yes`, `2`, `1,3`, words). */
  reply: string;
}

export interface Run {
  /** The message that makes the model ask (the dialog), or a function that brings it up; none at start-up. */
  reach?: string | ((ctx: RunContext) => Promise<void>);
  steps: Step[];
  expect: Check;
  /** A process of its own (the answer exits the CLI, or it needs the start-up dialog again). */
  fresh?: boolean;
}

/** An agent's runs: one process for all but the `fresh` ones. */
export interface Scenario {
  /** The shared process starts in a trusted folder, without the start-up dialog. */
  trusted?: boolean;
  runs: Run[];
}

const SHIFT_TAB = '\x1b[Z';

/** Shift+Tab until the footer says `mode` (each CLI cycles its modes so). */
const cycleTo =
  (mode: RegExp, then: string) =>
  async (ctx: RunContext): Promise<void> => {
    for (let i = 0; i < 6; i++) {
      const rows = (await ctx.cli.screen()).trimEnd().split('\n').slice(-4).join('\n');
      if (mode.test(rows)) return ctx.send(then);
      await ctx.cli.type([SHIFT_TAB]);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    throw new Error(`${ctx.cli.agent} never showed ${String(mode)} after Shift+Tab`);
  };

/** A file the model will edit (it holds the EDIT-ME its edit replaces). */
const editable =
  (file: string) =>
  async (ctx: RunContext): Promise<void> => {
    writeFileSync(join(ctx.cwd, file), 'line EDIT-ME here\n');
    await ctx.send(`EDIT:${file}`);
  };

const one = (golden: string, reply: string): Step[] => [{ golden, reply }];

/**
 * /cancel while a command runs (a minute's sleep, allowed if the CLI asks): the driver's interrupt keys stop
 * the turn and the CLI stays up, back at its input box well before the minute is over.
 */
const interrupted: Run = {
  reach: async (ctx) => {
    await ctx.send('SLEEP');
    // Running: two seconds of work with no dialog. A dialog first (may it run?) is answered yes.
    for (;;) {
      const seen = await ctx.cli.until(
        'a dialog or work',
        () => ctx.cli.prompt ?? (ctx.cli.idle ? null : 'busy'),
      );
      if (seen !== 'busy') {
        await ctx.cli.answer(await ctx.cli.waitForDialog(seen.kind), 'yes');
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      if (!ctx.cli.prompt && !ctx.cli.idle) break;
    }
    ctx.cli.session.interrupt();
  },
  steps: [],
  expect: all(idle, alive),
};

const claude: Run[] = [
  {
    steps: [
      { golden: 'folder-trust', reply: '1' },
      { golden: 'api-key', reply: 'yes' },
    ],
    expect: idle,
  },
  { reach: 'TOOL:bash-no.txt', steps: one('permission-bash', 'no'), expect: notCreated('bash-no.txt') },
  {
    reach: 'TOOL:bash-why.txt',
    steps: one('permission-bash', 'use mkdir instead'),
    expect: all(answered('use mkdir instead'), notCreated('bash-why.txt')),
  },
  {
    reach: 'TOOL:bash-default.txt',
    steps: one('permission-bash', 'default'),
    expect: notCreated('bash-default.txt'),
  },
  { reach: 'TOOL:bash-yes.txt', steps: one('permission-bash', 'yes'), expect: created('bash-yes.txt') },
  { reach: 'WRITE:write-no.txt', steps: one('permission-write', 'no'), expect: notCreated('write-no.txt') },
  { reach: 'WRITE:write-yes.txt', steps: one('permission-write', 'yes'), expect: created('write-yes.txt') },
  {
    reach: editable('edit-no.txt'),
    steps: one('permission-edit', 'no'),
    expect: edited('edit-no.txt', false),
  },
  {
    reach: editable('edit-why.txt'),
    steps: one('permission-edit', 'keep it as it is'),
    expect: all(answered('keep it as it is'), edited('edit-why.txt', false)),
  },
  {
    reach: editable('edit-yes.txt'),
    steps: one('permission-edit', '1'),
    expect: edited('edit-yes.txt', true),
  },
  { reach: 'ASKQ', steps: one('question', '2'), expect: answered('"Blue"') },
  { reach: 'ASKQ', steps: one('question', 'Green please'), expect: answered('Green please') },
  { reach: 'MULTI', steps: one('question-multi-select', '1,3'), expect: answered('Cheese, Olives') },
  { reach: 'MULTI', steps: one('question-multi-select', '2'), expect: answered('"Ham"') },
  {
    reach: 'TWOQ',
    steps: [
      { golden: 'questions-1-of-2', reply: '2' },
      { golden: 'questions-2-of-2', reply: 'Medium please' },
      { golden: 'questions-review', reply: '1' },
    ],
    expect: all(answered('"Blue"'), answered('Medium please')),
  },
  {
    reach: 'WRITE:write-session.txt',
    steps: one('permission-write', 'session'),
    expect: all(created('write-session.txt'), idleShowing(/accept edits on/)),
  },
  // Plan mode is one Shift+Tab past accept-edits; an approved plan goes back to the mode before it.
  {
    reach: cycleTo(/plan mode on/, 'PLAN one'),
    steps: one('plan', 'add a step 3'),
    expect: answered('add a step 3'),
  },
  { reach: 'PLAN two', steps: one('plan', 'no'), expect: idleShowing(/plan mode on/) },
  { reach: 'PLAN three', steps: one('plan', '2'), expect: answered('approved your plan') },
  {
    reach: 'TOOL:bash-session.txt',
    steps: one('permission-bash', 'session'),
    expect: created('bash-session.txt'),
  },
  interrupted,
  { fresh: true, steps: one('folder-trust', '2'), expect: exits },
];

const codex: Run[] = [
  { steps: one('folder-trust', '1'), expect: idle },
  { reach: 'TOOL:bash-no.txt', steps: one('approval-command', 'no'), expect: notCreated('bash-no.txt') },
  {
    reach: 'TOOL:bash-why.txt',
    steps: one('approval-command', 'use mkdir instead'),
    expect: all(said('use mkdir instead'), notCreated('bash-why.txt')),
  },
  {
    reach: 'TOOL:bash-default.txt',
    steps: one('approval-command', 'default'),
    expect: notCreated('bash-default.txt'),
  },
  { reach: 'TOOL:bash-yes.txt', steps: one('approval-command', 'yes'), expect: created('bash-yes.txt') },
  { reach: 'WRITE:patch-no.txt', steps: one('approval-edits', 'no'), expect: notCreated('patch-no.txt') },
  { reach: 'WRITE:patch-yes.txt', steps: one('approval-edits', 'yes'), expect: created('patch-yes.txt') },
  { reach: cycleTo(/Plan mode/, 'ASKQ'), steps: one('question', '2'), expect: answered('Blue') },
  { reach: 'ASKQ', steps: one('question', 'Green please'), expect: answered('Green please') },
  {
    reach: 'TWOQ',
    steps: [
      { golden: 'questions-1-of-2', reply: '2' },
      { golden: 'questions-2-of-2', reply: '1' },
    ],
    expect: answered('Small'),
  },
  { reach: 'PLAN one', steps: one('plan', 'no'), expect: idleShowing(/Plan mode/) },
  { reach: 'PLAN two', steps: one('plan', '1'), expect: said('Implement') },
  {
    reach: 'TOOL:bash-session.txt',
    steps: one('approval-command', 'session'),
    expect: created('bash-session.txt'),
  },
  {
    reach: 'WRITE:patch-session.txt',
    steps: one('approval-edits', 'session'),
    expect: created('patch-session.txt'),
  },
  interrupted,
  { fresh: true, steps: one('folder-trust', '2'), expect: shows(/Agent command center/i) },
];

// Trusting a folder restarts Gemini CLI, which now and then comes back untrusted (no "Allow for this session"):
// its trust prompt gets processes of its own.
const gemini: Run[] = [
  { fresh: true, steps: one('folder-trust', '1'), expect: idle },
  { reach: 'TOOL:bash-no.txt', steps: one('shell-confirmation', 'no'), expect: notCreated('bash-no.txt') },
  {
    reach: 'TOOL:bash-why.txt',
    steps: one('shell-confirmation', 'use mkdir instead'),
    expect: all(said('use mkdir instead'), notCreated('bash-why.txt')),
  },
  { reach: 'TOOL:bash-yes.txt', steps: one('shell-confirmation', 'yes'), expect: created('bash-yes.txt') },
  {
    reach: editable('edit-no.txt'),
    steps: one('edit-confirmation', 'no'),
    expect: edited('edit-no.txt', false),
  },
  {
    reach: editable('edit-yes.txt'),
    steps: one('edit-confirmation', 'yes'),
    expect: edited('edit-yes.txt', true),
  },
  { reach: 'WRITE:write-yes.txt', steps: one('write-confirmation', 'yes'), expect: created('write-yes.txt') },
  { reach: 'ASKQ', steps: one('question', '2'), expect: answered('Blue') },
  { reach: 'ASKQ', steps: one('question', 'Green please'), expect: answered('Green please') },
  { reach: 'MULTI', steps: one('question-multi-select', '1,3'), expect: answered('Cheese, Olives') },
  { reach: 'TEXTQ', steps: one('question-text', 'Bob'), expect: answered('Bob') },
  { reach: 'YESNO', steps: one('question-yes-no', '2'), expect: answered('No') },
  {
    reach: 'TWOQ',
    steps: [
      { golden: 'questions-1-of-2', reply: '2' },
      { golden: 'questions-2-of-2', reply: 'Medium please' },
      { golden: 'questions-review', reply: 'enter' },
    ],
    expect: answered('Medium please'),
  },
  { reach: 'ENTERPLAN', steps: one('enter-plan-mode', 'yes'), expect: answered('Plan mode') },
  { reach: 'PLAN one', steps: one('plan', 'add a step 3'), expect: answered('add a step 3') },
  { reach: 'PLAN two', steps: one('plan', 'default'), expect: idleShowing(/^ plan /m) },
  { reach: 'PLAN three', steps: one('plan', '2'), expect: answered('approved') },
  {
    reach: 'TOOL:bash-session.txt',
    steps: one('shell-confirmation', 'session'),
    expect: created('bash-session.txt'),
  },
  interrupted,
  { fresh: true, steps: one('folder-trust', '3'), expect: idle },
];

const copilot: Run[] = [
  { steps: one('folder-trust', '1'), expect: idle },
  {
    reach: 'TOOL:bash-no.txt',
    steps: one('run-command', 'no'),
    expect: all(answered('Denied through agent-bridge'), notCreated('bash-no.txt')),
  },
  {
    reach: 'TOOL:bash-why.txt',
    steps: one('run-command', 'use mkdir instead'),
    expect: all(answered('use mkdir instead'), notCreated('bash-why.txt')),
  },
  { reach: 'TOOL:bash-yes.txt', steps: one('run-command', 'yes'), expect: created('bash-yes.txt') },
  { reach: 'WRITE:write-no.txt', steps: one('create-file', 'no'), expect: notCreated('write-no.txt') },
  { reach: 'WRITE:write-yes.txt', steps: one('create-file', 'yes'), expect: created('write-yes.txt') },
  { reach: editable('edit-yes.txt'), steps: one('edit-file', 'yes'), expect: edited('edit-yes.txt', true) },
  {
    // A system file (temporary folders are allowed without asking); the answer is no, so it is not read.
    reach: (ctx) => ctx.send(`OUTSIDE:${existsSync('/etc/hostname') ? '/etc/hostname' : '/etc/passwd'}`),
    steps: one('path-access', 'no'),
    expect: idle,
  },
  { reach: 'ASKQ', steps: one('question', '2'), expect: answered('Blue') },
  { reach: 'ASKQ', steps: one('question', 'Green please'), expect: answered('Green please') },
  { reach: 'MULTI', steps: one('question-multi-select', '1,3'), expect: answered('Cheese, Olives') },
  {
    reach: 'TWOQ',
    steps: [
      { golden: 'questions-1-of-2', reply: '1' },
      { golden: 'questions-2-of-2', reply: '2' },
    ],
    expect: answered('size=Large'),
  },
  {
    reach: cycleTo(/Plan ·/, 'PLAN one'),
    steps: one('plan', 'add a step 3'),
    expect: answered('add a step 3'),
  },
  { reach: 'PLAN two', steps: one('plan', 'default'), expect: idleShowing(/Interactive ·/) },
  {
    reach: 'TOOL:bash-session.txt',
    steps: one('run-command', 'session'),
    expect: created('bash-session.txt'),
  },
  interrupted,
  { fresh: true, steps: one('folder-trust', '3'), expect: exits },
];

export const SCENARIOS: Record<LiveAgentId, Scenario> = {
  claude: { runs: claude },
  codex: { runs: codex },
  gemini: { trusted: true, runs: gemini },
  copilot: { runs: copilot },
};
