import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import xterm from '@xterm/headless';
import * as pty from 'node-pty';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../../support/claude-env.js';
import { parseSse, startFakeAnthropic, type FakeAnthropic, type SseEvent } from './server.js';

const MAIN_MODEL = 'claude-opus-4-8';
const TOOLS = [{ name: 'Bash', input_schema: { type: 'object' } }];

function userTurn(text: string, model = MAIN_MODEL, tools: unknown[] = TOOLS): Record<string, unknown> {
  return { model, max_tokens: 1024, stream: true, tools, messages: [{ role: 'user', content: text }] };
}

async function postMessages(fake: FakeAnthropic, body: Record<string, unknown>) {
  return fetch(`${fake.url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-secret' },
    body: JSON.stringify(body),
  });
}

async function streamEvents(fake: FakeAnthropic, body: Record<string, unknown>): Promise<SseEvent[]> {
  const response = await postMessages(fake, body);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return parseSse(await response.text());
}

function deltasOf(events: SseEvent[], deltaType: string, field: string): string {
  return events
    .map((event) => event.data.delta as Record<string, unknown> | undefined)
    .filter((delta) => delta?.type === deltaType)
    .map((delta) => String(delta?.[field]))
    .join('');
}

function stopReasonOf(events: SseEvent[]): unknown {
  const delta = events.find((event) => event.type === 'message_delta')?.data.delta as {
    stop_reason?: unknown;
  };
  return delta.stop_reason;
}

function textOfStream(events: SseEvent[]): string {
  return deltasOf(events, 'text_delta', 'text');
}

describe('fake Anthropic server', () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
  });
  afterEach(() => fake.setScript(undefined));
  afterAll(async () => {
    await fake.close();
  });

  it('streams a text reply with the real event order', async () => {
    const events = await streamEvents(fake, userTurn('hello there'));
    expect(events.map((event) => event.type)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      ...events.filter((event) => event.type === 'content_block_delta').map(() => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]?.data.message).toMatchObject({ role: 'assistant', model: MAIN_MODEL, content: [] });
    expect(textOfStream(events)).toBe('Hello from the fake model! You said: hello there');
    expect(stopReasonOf(events)).toBe('end_turn');
    const messageDelta = events.find((event) => event.type === 'message_delta');
    expect(messageDelta?.data.usage).toMatchObject({ output_tokens: expect.any(Number) });
  });

  it('ignores system reminders when reading the user text', async () => {
    const content = [
      { type: 'text', text: '<system-reminder>\nToday is a day.\n</system-reminder>\n\n' },
      { type: 'text', text: 'hi' },
    ];
    const body = { ...userTurn(''), messages: [{ role: 'user', content }] };
    expect(textOfStream(await streamEvents(fake, body))).toBe('Hello from the fake model! You said: hi');
  });

  it('answers TOOL:<file> with text and a Bash tool_use built from input_json_delta', async () => {
    const body = { ...userTurn('please run TOOL:a.txt'), system: ' - Primary working directory: /w/proj\n' };
    const events = await streamEvents(fake, body);
    const starts = events.filter((event) => event.type === 'content_block_start');
    expect(starts.map((event) => (event.data.content_block as { type: string }).type)).toEqual([
      'text',
      'tool_use',
    ]);
    expect(starts[1]?.data.content_block).toMatchObject({
      name: 'Bash',
      input: {},
      id: expect.stringMatching(/^toolu_/),
    });
    expect(JSON.parse(deltasOf(events, 'input_json_delta', 'partial_json'))).toEqual({
      command: 'touch /w/proj/a.txt',
      description: 'Create a.txt',
    });
    expect(stopReasonOf(events)).toBe('tool_use');
  });

  it('echoes a tool_result and answers ASKQ with AskUserQuestion', async () => {
    const toolResult = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'boom', is_error: true };
    const resultBody = { ...userTurn(''), messages: [{ role: 'user', content: [toolResult] }] };
    expect(textOfStream(await streamEvents(fake, resultBody))).toBe(
      'Tool finished. Result: boom (is_error=true)',
    );

    const askEvents = await streamEvents(fake, userTurn('ASKQ'));
    const input = JSON.parse(deltasOf(askEvents, 'input_json_delta', 'partial_json')) as {
      questions: unknown[];
    };
    expect(input.questions[0]).toMatchObject({ question: 'Which color do you prefer?', multiSelect: false });
  });

  it('answers with a JSON message when stream is false', async () => {
    const response = await postMessages(fake, { ...userTurn('hello'), stream: false });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello from the fake model! You said: hello' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
  });

  it('plays scripted turns in order, skipping title calls, then falls back to defaults', async () => {
    fake.setScript(['first', [{ type: 'tool_use', name: 'Read', input: { file_path: '/x' } }]]);
    expect(textOfStream(await streamEvents(fake, userTurn('a')))).toBe('first');
    const title = await streamEvents(fake, { ...userTurn('<session>a</session>', 'claude-haiku-4-5', []) });
    expect(textOfStream(title)).toBe('Fake session');
    expect(stopReasonOf(await streamEvents(fake, userTurn('b')))).toBe('tool_use');
    expect(textOfStream(await streamEvents(fake, userTurn('c')))).toBe(
      'Hello from the fake model! You said: c',
    );
  });

  it('lets a script function decide from the parsed request', async () => {
    fake.setScript((request) =>
      request.lastUserText.includes('magic') ? `seen ${request.toolNames.join()}` : undefined,
    );
    expect(textOfStream(await streamEvents(fake, userTurn('magic word')))).toBe('seen Bash');
    expect(textOfStream(await streamEvents(fake, userTurn('plain')))).toBe(
      'Hello from the fake model! You said: plain',
    );
  });

  it('produces faults on request', async () => {
    fake.setScript([{ content: [], fault: { status: 400, message: 'nope' } }]);
    const response = await postMessages(fake, userTurn('x'));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'nope' },
    });
  });

  it('can cut a stream short', async () => {
    fake.setScript([{ content: [{ type: 'text', text: 'never finished' }], dropAfterEvents: 3 }]);
    const response = await postMessages(fake, userTurn('x'));
    await expect(response.text()).rejects.toThrow();
  });

  it('answers HEAD, GET and count_tokens, and records requests without secrets', async () => {
    expect((await fetch(`${fake.url}/`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${fake.url}/anything`)).status).toBe(200);
    const count = await fetch(`${fake.url}/v1/messages/count_tokens?beta=true`, {
      method: 'POST',
      body: JSON.stringify({ model: MAIN_MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(await count.json()).toEqual({ input_tokens: expect.any(Number) });

    await postMessages(fake, userTurn('record me'));
    const recorded = fake.requests.at(-1);
    expect(recorded).toMatchObject({ method: 'POST', path: '/v1/messages?beta=true' });
    expect(recorded?.headers['x-api-key']).toBe('<redacted>');
    expect(JSON.stringify(fake.requests)).not.toContain('sk-ant-secret');
    expect(fake.messageRequests().at(-1)?.lastUserText).toBe('record me');
  });
});

/** A claude process in a PTY whose output is rendered by a headless xterm. */
class ClaudeScreen {
  private readonly terminal = new xterm.Terminal({ cols: 120, rows: 40, allowProposedApi: true });
  readonly process: pty.IPty;
  exitCode: number | undefined;

  constructor(cwd: string, env: Record<string, string>) {
    this.process = pty.spawn(claudeBinary(), [], { name: 'xterm-256color', cols: 120, rows: 40, cwd, env });
    this.process.onData((data) => this.terminal.write(data));
    this.process.onExit(({ exitCode }) => (this.exitCode = exitCode));
  }

  text(): string {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < buffer.length; row++)
      lines.push(buffer.getLine(row)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  async waitFor(what: string | (() => boolean), timeoutMs = 20_000): Promise<void> {
    const done = typeof what === 'string' ? () => this.text().includes(what) : what;
    await poll(done, timeoutMs, () => `Timed out waiting for ${String(what)}. Screen:\n${this.text()}`);
  }

  /** Text and Enter go in separate writes: Enter in the same write as text can be taken as paste. */
  async submit(text: string): Promise<void> {
    this.process.write(text);
    await sleep(50);
    this.process.write('\r');
  }

  killGroup(): void {
    if (this.exitCode !== undefined) return;
    try {
      // node-pty starts the child as a session leader, so its pid is the process group id.
      process.kill(-this.process.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function poll(done: () => boolean, timeoutMs: number, describeFailure: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(describeFailure());
    await sleep(25);
  }
}

describe('real Claude Code CLI against the fake', () => {
  let fake: FakeAnthropic;
  let cwd: string;
  let claudeHome: ClaudeHome;
  let claude: ClaudeScreen | undefined;

  beforeAll(async () => {
    fake = await startFakeAnthropic();
    cwd = await mkdtemp(join(tmpdir(), 'agent-bridge-claude-cwd-'));
    claudeHome = await prepareClaudeHome({ baseUrl: fake.url, cwd });
  });

  afterAll(async () => {
    claude?.killGroup();
    await fake.close();
    await claudeHome.cleanup();
    await rm(cwd, { recursive: true, force: true });
  });

  it('chats, asks permission for Bash, runs it and exits', async () => {
    const screen = new ClaudeScreen(cwd, claudeHome.env);
    claude = screen;
    await screen.waitFor('? for shortcuts');

    await screen.submit('hello');
    await screen.waitFor('Hello from the fake model');

    await screen.submit('please run TOOL:proof.txt');
    await screen.waitFor('Do you want to proceed?');
    screen.process.write('1');
    await screen.waitFor(() => existsSync(join(cwd, 'proof.txt')));
    await screen.waitFor('Tool finished');

    await screen.submit('/exit');
    await screen.waitFor(() => screen.exitCode !== undefined);
    expect(screen.exitCode).toBe(0);

    const paths = fake.requests.map((request) => `${request.method} ${request.path}`);
    expect(paths).toContain('HEAD /');
    expect(paths).toContain('POST /v1/messages?beta=true');
    expect(fake.requests.find((request) => request.method === 'POST')?.headers['x-api-key']).toBe(
      '<redacted>',
    );
  });
});
