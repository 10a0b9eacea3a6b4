import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { agents } from '../../src/agents/registry.js';
import { parseReply, type DetectedPrompt, type ReplyAction } from '../../src/core/prompt.js';
import { lastContentRow } from '../../src/core/screen-text.js';
import { PromptDetector, type DetectorSignal } from '../../src/drivers/terminal/detector/prompt-detector.js';
import { replyKeys } from '../../src/drivers/terminal/reply-keys.js';
import { FakeClock } from '../support/fake-clock.js';

interface Expected {
  prompt: null | {
    kind: string;
    choices: string[];
    descriptions?: Record<string, string>;
    safeDefault: ReplyAction | null;
    allowForSessionChoice?: number;
    excerptIncludes?: string[];
    detailIncludes?: string[];
  };
  idle: boolean;
  cursor?: { x: number; y: number };
  /** The keys each reply types, one entry per write (checked on the real CLIs by live.test.ts). */
  replies?: Record<string, string[]>;
  /** A message the input box still holds, unsent (the vocabulary's `holdsUnsent`); unset: it holds none. */
  unsent?: string;
}

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), 'prompts');

function cases(agent: string): string[] {
  const dir = path.join(root, agent);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function viewOf(lines: string[], cursor?: { x: number; y: number }) {
  const row = lastContentRow(lines);
  return { lines, cursor: cursor ?? { x: (lines[row] ?? '').trimEnd().length, y: row }, title: '' };
}

/** Runs the real detector once on a settled screen and returns what it raised. */
function detect(agent: keyof typeof agents, lines: string[], cursor?: { x: number; y: number }) {
  const signals: DetectorSignal[] = [];
  const detector = new PromptDetector({ vocabulary: agents[agent].screens, clock: new FakeClock() }, (s) =>
    signals.push(s),
  );
  detector.onSettled(viewOf(lines, cursor));
  detector.dispose();
  const prompt = signals.find((s) => s.type === 'prompt');
  const idle = signals.find((s) => s.type === 'idle');
  return {
    prompt: prompt?.type === 'prompt' ? prompt.prompt : null,
    idle: idle?.type === 'idle' ? idle.idle : false,
  };
}

describe('golden screens', () => {
  it('has cases for every agent that reads its own prompts from the screen', () => {
    const withVocabulary = Object.values(agents).filter((spec) => spec.screens.detect);
    for (const spec of withVocabulary)
      expect(cases(spec.id), `no golden screens for ${spec.id}`).not.toHaveLength(0);
  });

  it('a multi-select question with a box ticked is the same prompt, the box read as ticked', () => {
    // As the real CLIs draw a tick (Claude Code also marks its tab ☒): answers go a box at a time on this.
    const ticks: Array<[keyof typeof agents, string, RegExp, string]> = [
      ['claude', 'question-multi-select', /\[ \] Cheese/, '[✔] Cheese'],
      ['gemini', 'question-multi-select', /\[ \] Cheese/, '[✓] Cheese'],
      ['copilot', 'question-multi-select', /• Cheese/, '✓ Cheese'],
    ];
    for (const [id, name, box, tickedBox] of ticks) {
      const lines = readFileSync(path.join(root, id, name, 'screen.txt'), 'utf8').split('\n');
      const before = detect(id, lines).prompt!;
      const after = detect(
        id,
        lines.map((line) => line.replace(box, tickedBox).replace('☐ Toppings', '☒ Toppings')),
      ).prompt!;
      expect(before.dialog?.ticked, id).toEqual([]);
      expect(after.dialog?.ticked, id).toEqual([1]);
      expect(after.key, id).toBe(before.key);
    }
  });

  it('answers each agent’s folder-trust prompt at start-up with choice 1: its golden keys, or Enter on it', () => {
    for (const spec of Object.values(agents).filter((s) => cases(s.id).includes('folder-trust'))) {
      const dir = path.join(root, spec.id, 'folder-trust');
      const screen = readFileSync(path.join(dir, 'screen.txt'), 'utf8');
      const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Expected;
      const rule = spec.startupPrompts.find((r) => r.pattern.test(screen));
      expect(rule, `${spec.id}: no start-up rule for its trust prompt`).toBeDefined();
      const shown = detect(spec.id, screen.split('\n')).prompt;
      const enterOnIt = shown?.dialog?.highlighted === 1 ? ['\r'] : [];
      expect([expected.replies?.['1']?.join(''), ...enterOnIt], spec.id).toContain(rule!.answer);
    }
  });

  for (const agent of readdirSync(root).sort()) {
    describe(agent, () => {
      for (const name of cases(agent)) {
        it(name, () => {
          const dir = path.join(root, agent, name);
          const lines = readFileSync(path.join(dir, 'screen.txt'), 'utf8').split('\n');
          const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Expected;
          const id = agent as keyof typeof agents;
          const result = detect(id, lines, expected.cursor);
          expect(result.idle).toBe(expected.idle);
          const holdsUnsent = agents[id].screens.holdsUnsent;
          const view = viewOf(lines);
          if (holdsUnsent && expected.unsent !== undefined)
            expect(holdsUnsent(view, expected.unsent), 'holds the unsent message').toBe(true);
          // A box that holds nothing (or a dialog in its place) never holds a message, whatever was sent: not
          // even one the conversation above shows (an Enter typed again would answer the dialog).
          if (holdsUnsent && expected.unsent === undefined)
            for (const shown of lines.map((line) => line.replace(/^\W+/, '').trim()).filter(Boolean))
              expect(holdsUnsent(view, shown), `holds "${shown}"`).toBe(false);
          if (expected.prompt === null) {
            expect(result.prompt, JSON.stringify(result.prompt)).toBeNull();
            return;
          }
          const prompt = result.prompt as DetectedPrompt;
          expect(prompt).not.toBeNull();
          expect(prompt.kind).toBe(expected.prompt.kind);
          expect(prompt.confidence).toBe('high');
          expect(prompt.choices.map((c) => c.label)).toEqual(expected.prompt.choices);
          expect(prompt.choices.map((c) => c.number)).toEqual(expected.prompt.choices.map((_, i) => i + 1));
          for (const [n, description] of Object.entries(expected.prompt.descriptions ?? {})) {
            expect(prompt.choices[Number(n) - 1]?.description).toBe(description);
          }
          expect(prompt.safeDefault).toEqual(expected.prompt.safeDefault);
          expect(prompt.allowForSessionChoice).toBe(expected.prompt.allowForSessionChoice);
          expect(prompt.excerpt.length).toBeLessThanOrEqual(200);
          for (const text of expected.prompt.excerptIncludes ?? []) expect(prompt.excerpt).toContain(text);
          for (const text of expected.prompt.detailIncludes ?? []) expect(prompt.detail).toContain(text);
          // An agent's own dialog: the keys of every choice are in the golden (checked live where played).
          if (prompt.dialog)
            for (const choice of prompt.choices)
              expect(
                expected.replies?.[String(choice.number)],
                `keys of choice ${choice.number}`,
              ).toBeDefined();
          for (const [reply, keys] of Object.entries(expected.replies ?? {})) {
            const typed = replyKeys(parseReply(reply, prompt), prompt, agents[id].screens.menuKeys, true);
            expect(typed, `reply "${reply}"`).toEqual(keys);
          }
        });
      }
    });
  }
});
