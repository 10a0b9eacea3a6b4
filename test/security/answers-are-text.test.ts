import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parseReply, ReplyError } from '../../src/core/prompt.js';
import { encodeTextInput } from '../../src/drivers/terminal/input.js';
import { cli } from '../support/cli-under-pty.js';
import { ScriptWorld } from '../support/script-session.js';

// Issue 12, item 7: an answer is text. Control bytes are refused, paste markers cannot be smuggled, and
// multi-line words go in only as one paste, to programs that take one.

let world: ScriptWorld;
afterEach(async () => world?.close());

const PASTE_END = '\x1b[201~';
/** C0 but tab, LF and CR (CR is a line end), DEL, C1, and the bidi overrides: what an answer may not hold. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('answers carry no control bytes', () => {
  it.each([
    ['Ctrl-C', '\x03'],
    ['Ctrl-D', 'Ada\x04'],
    ['Ctrl-Z', '\x1a'],
    ['an escape sequence', 'Ada\x1b[2J'],
    ['an OSC string', '\x1b]52;c;cm0gLXJmIH4=\x07'],
    ['a C1 control', 'Ada\u009b2J'],
  ])(
    'refuses %s with a clear message; the agent keeps waiting and takes a plain answer after',
    async (_name, answer) => {
      world = new ScriptWorld();
      const run = world.run('read -r -p "Your name: " n; echo "hello [$n]"; sleep 30');
      const prompt = await world.nextPrompt();
      const refused = await cli(['approvals', 'answer', prompt.id, answer], world.env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/an answer is text: remove the control character/);
      expect(refused.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect((await cli(['approvals', 'answer', prompt.id, 'Ada'], world.env)).code).toBe(0);
      await run.waitForText('hello [Ada]');
      expect(run.exit).toBeNull();
    },
  );

  it('never builds a paste end marker out of the text, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('\x1b', '[', '2', '0', '1', '~', 'a', '\n', '\r', '\x1b[201~', '\x1b[200~')),
        (pieces) => {
          const body = encodeTextInput(pieces.join(''), {
            bracketedPaste: true,
            submit: false,
            lineByLine: true,
          }).body;
          const inner = body.startsWith('\x1b[200~') ? body.slice(6, -PASTE_END.length) : body;
          expect(inner).not.toContain('\x1b');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('parses every answer with a control character as a refusal, and nothing else as one', () => {
    const prompt = { kind: 'free_text' as const, choices: [], allowForSessionChoice: undefined };
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (raw) => {
        const hasControl = NOT_TEXT.test(raw);
        if (hasControl) expect(() => parseReply(raw, prompt)).toThrow(ReplyError);
        else expect(parseReply(raw, prompt)).toMatchObject({ type: 'text' });
      }),
      { numRuns: 3000 },
    );
  });
});

describe('multi-line answers', () => {
  it('are refused for a program that reads one line at a time, instead of answering three questions', async () => {
    world = new ScriptWorld();
    const run = world.run(
      'read -r -p "First: " a; read -r -p "Second: " b; read -r -p "Third: " c; echo "got [$a|$b|$c]"; sleep 30',
    );
    const prompt = await world.nextPrompt();
    const refused = await cli(['approvals', 'answer', prompt.id, 'x\ny\nz'], world.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/one line at a time/);
    expect((await cli(['approvals', 'answer', prompt.id, 'one'], world.env)).code).toBe(0);
    await run.waitForText('Second:');
    expect(await run.screen()).not.toMatch(/got \[x\|y\|z\]/);
  });
});
