import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { agents } from '../../src/agents/registry.js';
import type { DetectedPrompt } from '../../src/core/prompt.js';
import { parseReply } from '../../src/core/prompt.js';
import { PromptDetector } from '../../src/drivers/terminal/detector/prompt-detector.js';
import { replyKeys } from '../../src/drivers/terminal/reply-keys.js';
import { ScreenModel, SCREEN_SETTLE_MS } from '../../src/drivers/terminal/screen.js';
import { FakeClock } from '../support/fake-clock.js';

const here = path.dirname(fileURLToPath(import.meta.url));

interface Replay {
  prompts: DetectedPrompt[];
  idleChanges: boolean[];
}

/**
 * Plays an asciicast recorded by `agent-bridge run` through the real screen model and detector, with time as
 * recorded: the detector looks whenever output paused, as it does live.
 */
async function replay(file: string, agent: keyof typeof agents): Promise<Replay> {
  const [headerLine, ...lines] = readFileSync(file, 'utf8').trimEnd().split('\n');
  const header = JSON.parse(headerLine!) as { width: number; height: number };
  const clock = new FakeClock(0);
  const screen = new ScreenModel({ cols: header.width, rows: header.height, clock });
  const result: Replay = { prompts: [], idleChanges: [] };
  const detector = new PromptDetector({ vocabulary: agents[agent].screens, clock }, (signal) => {
    if (signal.type === 'prompt') result.prompts.push(signal.prompt);
    if (signal.type === 'idle') result.idleChanges.push(signal.idle);
  });
  screen.onOutput((outputAt) => detector.onOutput(outputAt));
  const look = async () => {
    await screen.catchUp();
    const { lines: rows, cursor, title, outputAt } = screen.snapshot();
    detector.onSettled({ lines: rows, cursor, title }, outputAt);
  };
  for (const line of lines) {
    const [seconds, code, data] = JSON.parse(line) as [number, string, string];
    const at = Math.round(seconds * 1000);
    if (at - clock.now() > SCREEN_SETTLE_MS) await look();
    clock.advance(Math.max(0, at - clock.now()));
    if (code === 'o') {
      screen.feed(Buffer.from(data));
    } else if (code === 'r') {
      const [cols, rows] = data.split('x').map(Number);
      screen.resize(cols!, rows!);
    }
  }
  await look();
  detector.dispose();
  screen.dispose();
  return result;
}

describe('recorded sessions of the real agents, replayed through the detector', () => {
  it('has recordings to replay', () => {
    expect(readdirSync(path.join(here, 'casts')).filter((f) => f.endsWith('.cast')).length).toBeGreaterThan(
      0,
    );
  });

  it('Claude Code: idle, a Bash permission prompt, an AskUserQuestion menu, each raised once', async () => {
    const { prompts, idleChanges } = await replay(
      path.join(here, 'casts', 'claude-permission-and-question.cast'),
      'claude',
    );
    expect(idleChanges).toContain(true);
    expect(prompts.map((p) => p.kind)).toEqual(['permission', 'question']);
    const [permission, question] = prompts as [DetectedPrompt, DetectedPrompt];
    expect(permission.excerpt).toMatch(/Do you want to proceed\? — Bash command · touch .*golden\.txt/);
    expect(permission.choices.map((c) => c.number)).toEqual([1, 2, 3]);
    expect(permission.safeDefault).toEqual({ type: 'choice', number: 3 });
    const keys = (p: DetectedPrompt, reply: string) =>
      replyKeys(parseReply(reply, p), p, agents.claude.screens.menuKeys, true)?.join('');
    expect([keys(permission, 'yes'), keys(permission, 'session'), keys(permission, 'no')]).toEqual([
      '1',
      '2',
      '3',
    ]);
    expect(question.excerpt).toContain('Which color do you prefer?');
    expect(question.choices.slice(0, 2)).toEqual([
      { number: 1, label: 'Red', description: 'The color red' },
      { number: 2, label: 'Blue', description: 'The color blue' },
    ]);
    expect(keys(question, '2')).toBe('2');
  });
});
