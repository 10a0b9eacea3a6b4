import { describe, expect, it } from 'vitest';
import { genericScreens } from '../../src/agents/generic-screens.js';
import { shellScreens } from '../../src/agents/shell/screens.js';
import type { DetectedPrompt } from '../../src/core/prompt.js';
import { parseReply } from '../../src/core/prompt.js';
import { redactSecrets } from '../../src/core/redact.js';
import type { ScreenVocabulary } from '../../src/core/screen-vocabulary.js';
import {
  ECHO_SUPPRESSION_MS,
  GONE_GRACE_MS,
  PromptDetector,
  STALL_MS,
  TTY_PROBE_MS,
  type DetectorSignal,
} from '../../src/drivers/terminal/detector/prompt-detector.js';
import { replyKeys } from '../../src/drivers/terminal/reply-keys.js';
import type { TtyWaitState } from '../../src/drivers/terminal/detector/tty-blocked.js';
import { FakeClock } from '../support/fake-clock.js';

/** A screen whose cursor sits at the end of its last line, as when a program waits for input. */
function screen(text: string) {
  const lines = text.split('\n');
  while (lines.length < 24) lines.push('');
  const y = text.split('\n').length - 1;
  return { lines, cursor: { x: text.split('\n')[y]!.length, y }, title: '' };
}

function run(text: string, options: { vocabulary?: ScreenVocabulary; tty?: TtyWaitState } = {}) {
  const clock = new FakeClock();
  const signals: DetectorSignal[] = [];
  const detector = new PromptDetector(
    {
      vocabulary: options.vocabulary ?? genericScreens,
      clock,
      ttyState: () => options.tty ?? 'unknown',
    },
    (s) => signals.push(s),
  );
  detector.onSettled(screen(text));
  const prompts = () => signals.flatMap((s) => (s.type === 'prompt' ? [s.prompt] : []));
  return { clock, detector, signals, prompts };
}

function only(text: string, options?: Parameters<typeof run>[1]): DetectedPrompt {
  const found = run(text, options).prompts();
  expect(found).toHaveLength(1);
  return found[0]!;
}

const keys = (prompt: DetectedPrompt, reply: string, menuKeys: 'digit' | 'digit-enter' = 'digit-enter') =>
  replyKeys(parseReply(reply, prompt), prompt, menuKeys, false)?.join('');

describe('generic prompt patterns (rendered screen)', () => {
  it.each([
    'Overwrite config.json? (y/n) ',
    'Proceed with installation? [Y/n] ',
    'Delete branch? [y/N]: ',
    'Are you sure you want to continue connecting (yes/no)? ',
    "Press 'y' to continue",
  ])('yes/no: %s', (text) => {
    const prompt = only(`some output\n${text}`);
    expect(prompt).toMatchObject({ kind: 'yes_no', confidence: 'high', safeDefault: { type: 'no' } });
    expect(keys(prompt, 'yes')).toBe('y\r');
    expect(keys(prompt, 'n')).toBe('n\r');
    expect(keys(prompt, 'default')).toBe('n\r');
    // A number is no answer to a yes/no question: refused, never typed.
    expect(() => parseReply('7', prompt)).toThrow(/answer yes or no/);
  });

  it.each(['Press Enter to continue...', '[Press Enter]', '-- More --', 'Hit enter to start'])(
    'press enter: %s',
    (text) => {
      const prompt = only(`Installed 3 packages.\n${text}`);
      expect(prompt.kind).toBe('confirm_enter');
      expect(keys(prompt, 'enter')).toBe('\r');
      expect(keys(prompt, 'default')).toBe('\r');
      expect(() => parseReply('1', prompt)).toThrow(/answer enter/);
    },
  );

  it('numbered menu with a selection question (bash select)', () => {
    const prompt = only('1) apple\n2) banana\n3) cherry\n#? ');
    expect(prompt.kind).toBe('multiple_choice');
    expect(prompt.choices).toEqual([
      { number: 1, label: 'apple' },
      { number: 2, label: 'banana' },
      { number: 3, label: 'cherry' },
    ]);
    expect(keys(prompt, '2')).toBe('2\r');
    expect(() => parseReply('7', prompt)).toThrow(/choose 1, 2, 3/);
  });

  it('menu with a cursor and descriptions; the agent numbering is kept', () => {
    const prompt = only(
      'Pick a template:\n\n❯ 1. Minimal\n     Just the basics\n  2. Full\n     Everything included\n\nEnter to select',
    );
    expect(prompt.choices).toEqual([
      { number: 1, label: 'Minimal', description: 'Just the basics' },
      { number: 2, label: 'Full', description: 'Everything included' },
    ]);
    expect(keys(prompt, '1', 'digit')).toBe('1');
  });

  it('the excerpt is what is asked now: not an earlier question and its answer, and with the line that asks', () => {
    const prompt = only(
      'Pick a fruit:\n1) apple\n2) pear\nEnter choice [1-2]: 1\nYou chose apple.\n\n' +
        'Which size?\n1) small\n2) medium\n3) large\nEnter choice [1-3]: ',
    );
    expect(prompt.kind).toBe('multiple_choice');
    expect(prompt.excerpt).toBe('Which size?\nEnter choice [1-3]:');
    expect(prompt.detail).toContain('Enter choice [1-3]:');

    const yesNo = only('Deleted 3 files.\nAll done here.\n\nRemove the cache too?\nContinue? (y/n) ');
    expect(yesNo.kind).toBe('yes_no');
    expect(yesNo.excerpt).toBe('Remove the cache too?\nContinue? (y/n)');
  });

  it.each(['Password: ', 'Enter commit message: ', 'API key: ', "What's your name? "])(
    'free text: %s',
    (text) => {
      const prompt = only(`Setting up\n${text}`);
      expect(prompt.kind).toBe('free_text');
      expect(prompt.safeDefault).toBeNull();
      expect(keys(prompt, 'hello world')).toBe('hello world\r');
      expect(keys(prompt, 'default')).toBeUndefined();
    },
  );

  it('redacts secrets and keeps excerpts to 200 characters', () => {
    const secret = 'sk-ant-api03-' + 'x'.repeat(40);
    const prompt = only(`${'word '.repeat(80)}\nexport ANTHROPIC_API_KEY=${secret}\nContinue? (y/n) `);
    expect(prompt.excerpt.length).toBeLessThanOrEqual(200);
    expect(prompt.detail).not.toContain(secret);
    expect(prompt.detail).toContain('[redacted]');
  });
});

describe('silence and tty reads', () => {
  it('a long build quiet for 3 s is a low-confidence prompt, never auto-answered', () => {
    const { clock, prompts } = run('Compiling agent-bridge v0.1.0\n   Compiling serde v1.0.200');
    expect(prompts()).toHaveLength(0);
    clock.advance(STALL_MS + 1000);
    expect(prompts()).toHaveLength(1);
    expect(prompts()[0]).toMatchObject({
      kind: 'unknown',
      confidence: 'low',
      safeDefault: null,
      choices: [],
    });
    expect(keys(prompts()[0]!, 'default')).toBeUndefined();
  });

  it('on Linux, a quiet program that is sleeping, waiting for a child or running is not asking at all', () => {
    const { clock, prompts } = run('Compiling agent-bridge v0.1.0', { tty: 'not-reading' });
    clock.advance(STALL_MS * 3);
    expect(prompts()).toHaveLength(0);
  });

  it('new output cancels the silence check and ends a guessed prompt', () => {
    const { clock, detector, signals } = run('Downloading...');
    clock.advance(STALL_MS - 1);
    detector.onOutput(10);
    clock.advance(STALL_MS);
    expect(signals.filter((s) => s.type === 'prompt')).toHaveLength(0);
    detector.onSettled(screen('Downloading... done\nthinking'));
    clock.advance(STALL_MS);
    expect(signals.filter((s) => s.type === 'prompt')).toHaveLength(1);
    detector.onOutput(20);
    expect(signals.at(-1)?.type).toBe('prompt_gone');
  });

  it('a child blocked reading the terminal is a medium-confidence prompt', () => {
    const { clock, prompts } = run('>>> ', { tty: 'reading' });
    clock.advance(TTY_PROBE_MS);
    expect(prompts()).toMatchObject([{ kind: 'unknown', confidence: 'medium' }]);
  });

  it('a line-oriented agent reading its next line after an answer is idle, not asking', () => {
    const { clock, prompts, signals } = run('agent ready\nagent got: hello\n', { tty: 'reading' });
    clock.advance(STALL_MS * 2);
    expect(prompts()).toHaveLength(0);
    expect(signals).toContainEqual({ type: 'idle', idle: true });
  });

  it.each([
    'got: [hello]',
    'status [ok]',
    'Downloading [1/3]',
    '[INFO] done',
    'You said: [y]',
    'Done (3 files)',
  ])('a line-oriented agent whose answer ends in brackets is idle after it, not asking: %j', (line) => {
    const { clock, prompts, signals } = run(`agent ready\n${line}\n`, { tty: 'reading' });
    clock.advance(STALL_MS * 2);
    expect(prompts()).toHaveLength(0);
    expect(signals).toContainEqual({ type: 'idle', idle: true });
  });

  it.each([
    'Enter your name:\n',
    'Overwrite the file?\n',
    'Pick one [1-3]\n',
    'Proceed (yes/no)\n',
    'Continue [y/N]\n',
    'Install it [Y/n]\n',
    'Overwrite (y/n)\n',
    'Branch [default: main]\n',
    'Stage this hunk [y,n,q,a,d,e,?]\n',
  ])('a question on the line above the cursor is still a prompt: %j', (text) => {
    const { clock, prompts } = run(text, { tty: 'reading' });
    clock.advance(TTY_PROBE_MS);
    expect(prompts()).toHaveLength(1); // by its pattern, or as "possibly waiting" from the read
  });

  it('a shell at its prompt is idle: no prompt, even when silent', () => {
    const { clock, prompts, signals } = run('$ ls\nREADME.md  src\nuser@host:~/proj$ ', {
      vocabulary: shellScreens,
      tty: 'reading',
    });
    clock.advance(STALL_MS * 2);
    expect(prompts()).toHaveLength(0);
    expect(signals).toContainEqual({ type: 'idle', idle: true });
  });

  it('a numbered list in ordinary output is not a menu', () => {
    const { prompts } = run('Steps:\n1. Build\n2. Test\n3. Ship\nAll done, building now', {
      vocabulary: genericScreens,
    });
    expect(prompts()).toHaveLength(0);
  });
});

describe('raising each prompt once', () => {
  it('does not raise the same prompt twice, says when it leaves the screen, raises the next', () => {
    const { clock, detector, signals } = run('Continue? (y/n) ');
    detector.onSettled(screen('Continue? (y/n) '));
    expect(signals.filter((s) => s.type === 'prompt')).toHaveLength(1);
    detector.onSettled(screen('Continue? (y/n) y\nworking'));
    clock.advance(GONE_GRACE_MS);
    expect(signals.at(-1)).toMatchObject({ type: 'prompt_gone' });
    detector.onSettled(screen('Continue? (y/n) y\nworking\nAgain? (y/n) '));
    expect(signals.filter((s) => s.type === 'prompt')).toHaveLength(2);
  });

  it('a dialog missing from one settled screen (a frame drawn in parts) is neither gone nor raised again', () => {
    const { clock, detector, signals } = run('Continue? (y/n) ');
    // A busy TUI cleared its screen and draws the same dialog again more than a settle later.
    detector.onOutput(10);
    detector.onSettled(screen(''), 10);
    clock.advance(GONE_GRACE_MS - 1);
    detector.onOutput(40);
    detector.onSettled(screen('Continue? (y/n) '), 40);
    clock.advance(GONE_GRACE_MS * 4);
    expect(signals.filter((s) => s.type !== 'idle').map((s) => s.type)).toEqual(['prompt']);
  });

  it('a dialog missing from two settled screens in a row, or from the screen at rest, is gone', () => {
    const twice = run('Continue? (y/n) ');
    twice.detector.onOutput(10);
    twice.detector.onSettled(screen(''), 10);
    twice.detector.onOutput(20);
    twice.detector.onSettled(screen('working'), 20);
    expect(twice.signals.at(-1)).toMatchObject({ type: 'prompt_gone' });

    const atRest = run('Continue? (y/n) ');
    atRest.detector.onOutput(10);
    atRest.detector.onSettled(screen('working'), 10);
    atRest.clock.advance(GONE_GRACE_MS - 1);
    expect(atRest.signals.some((s) => s.type === 'prompt_gone')).toBe(false);
    atRest.clock.advance(1);
    expect(atRest.signals.at(-1)).toMatchObject({ type: 'prompt_gone' });
  });

  it('ignores its own echo after an answer and does not re-raise the answered prompt', () => {
    const { clock, detector, prompts } = run('Continue? (y/n) ');
    const first = prompts()[0]!;
    detector.answered(first.key);
    detector.onSettled(screen('Continue? (y/n) '));
    clock.advance(200);
    expect(prompts()).toHaveLength(1);
    detector.onSettled(screen('Continue? (y/n) y\nNext? [y/N] '));
    expect(prompts()).toHaveLength(2);
  });

  it('reads no question into a line a person is still typing, however slowly, until they pause or press Enter', () => {
    const { clock, detector, prompts } = run('$ ');
    // Keys arrive with gaps longer than an echo takes (a phone, a loaded machine): the line is theirs.
    for (const [keys, shown] of [
      ['read -p "Ship it? (y/n)', '$ read -p "Ship it? (y/n)'],
      [' "', '$ read -p "Ship it? (y/n) "'],
    ] as const) {
      detector.typed(keys);
      detector.onSettled(screen(shown));
      clock.advance(400);
    }
    expect(prompts()).toHaveLength(0);
    // Enter: the program runs the line and asks; the question is raised once the echo is over.
    detector.typed('\r');
    detector.onSettled(screen('$ read -p "Ship it? (y/n) " a\nShip it? (y/n) '));
    clock.advance(200);
    expect(prompts().map((p) => p.excerpt)).toEqual([expect.stringContaining('Ship it?')]);
  });

  it('raises a question the program asks right after an Enter at once, without waiting out the echo', () => {
    const { detector, prompts } = run('$ ');
    detector.typed('./deploy.sh\r');
    // Before the program wrote anything the screen is still the line as typed: held.
    detector.onSettled(screen('$ ./deploy.sh'));
    expect(prompts()).toHaveLength(0);
    // Its answer arrived: no hold left, the question is raised as the screen settles.
    detector.onOutput(30);
    detector.onSettled(screen('$ ./deploy.sh\nShip it? (y/n) '));
    expect(prompts().map((p) => p.excerpt)).toEqual([expect.stringContaining('Ship it?')]);
  });

  it('raises nothing while an answer is typed into its dialog, then reads the screen it left', () => {
    const { clock, detector, signals, prompts } = run('Pick one:\n❯ 1. Red\n  2. Other\nEnter choice: ');
    const first = prompts()[0]!;
    detector.answering();
    // The answer's keys open a text field in the dialog: a passing state, not a question.
    detector.onSettled(screen('Pick one:\n  1. Red\n❯ 2. Other: gre\nEnter choice: '));
    expect(prompts()).toHaveLength(1);
    detector.answered(first.key);
    // No more output after the answer: the last screen is read once the echo is over.
    clock.advance(200);
    expect(signals.at(-1)).toMatchObject({ type: 'prompt' });
    expect(
      prompts()
        .at(-1)!
        .choices.map((c) => c.label),
    ).toEqual(['Red', 'Other: gre']);
  });
});

describe("the program's reply to an answer (a controller that types it and goes waits for it)", () => {
  /** Whether whenAnswerSeen resolved, read after the clock moved. */
  function seen(detector: PromptDetector, maxMs = 10_000): () => boolean {
    let resolved = false;
    void detector.whenAnswerSeen(maxMs).then(() => (resolved = true));
    return () => resolved;
  }
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  it('waits while the program works on the answer, and goes once its next question is raised', async () => {
    const options: { tty: TtyWaitState } = { tty: 'reading' };
    const { clock, detector, prompts } = run('Ship it? (y/n) ', options);
    detector.answered(prompts()[0]!.key);
    const done = seen(detector);
    // The echo shows and the program works a while before it replies (sleeping, not reading its terminal).
    options.tty = 'not-reading';
    detector.onOutput(20);
    detector.onSettled(screen('Ship it? (y/n) y\n'), 20);
    clock.advance(STALL_MS * 2);
    await flush();
    expect(done()).toBe(false);
    detector.onOutput(40);
    detector.onSettled(screen('Ship it? (y/n) y\ngot y\nAnd tag it? (y/n) '), 40);
    await flush();
    expect(prompts().map((p) => p.excerpt)).toEqual([
      expect.stringContaining('Ship it?'),
      expect.stringContaining('And tag it?'),
    ]);
    expect(done()).toBe(true);
  });

  it('goes once the program reads its terminal again after replying, asking nothing it knows', async () => {
    const options: { tty: TtyWaitState } = { tty: 'reading' };
    const { clock, detector, prompts } = run('Ship it? (y/n) ', options);
    detector.answered(prompts()[0]!.key);
    const done = seen(detector);
    detector.onOutput(30);
    detector.onSettled(screen('Ship it? (y/n) y\nname'), 30);
    clock.advance(ECHO_SUPPRESSION_MS + TTY_PROBE_MS - 1);
    await flush();
    expect(done()).toBe(false);
    clock.advance(1);
    await flush();
    expect(done()).toBe(true);
  });

  it('a program that never replies is waited for no longer than asked; with no answer typed, not at all', async () => {
    const { clock, detector, prompts } = run('Ship it? (y/n) ', { tty: 'not-reading' });
    const before = seen(detector);
    await flush();
    expect(before()).toBe(true);
    detector.answered(prompts()[0]!.key);
    const done = seen(detector, 5000);
    clock.advance(4999);
    await flush();
    expect(done()).toBe(false);
    clock.advance(1);
    await flush();
    expect(done()).toBe(true);
  });
});

describe('secret redaction', () => {
  it.each([
    ['sk-ant-api03-abcdefghijklmnopqrstuvwxyz', 'anthropic key'],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'github token'],
    ['xoxb-123456789012-abcdefghijkl', 'slack token'],
    ['123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1', 'telegram token'],
    ['AKIAIOSFODNN7EXAMPLE', 'aws key'],
  ])('hides %s (%s)', (secret) => {
    expect(redactSecrets(`value ${secret} end`)).toBe('value [redacted] end');
  });

  it('hides assignments and bearer tokens but keeps ordinary words', () => {
    expect(redactSecrets('password=hunter22 and Authorization: Bearer abc.def.ghi123')).toBe(
      'password=[redacted] and Authorization: Bearer [redacted]',
    );
    expect(redactSecrets('touch proof.txt')).toBe('touch proof.txt');
  });
});
