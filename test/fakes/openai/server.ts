// A fake OpenAI API on 127.0.0.1: Chat Completions (Copilot CLI's OpenAI provider) and Responses (Codex),
// streamed the way the real API streams them. See README.md in this folder.
import { createServer, type ServerResponse } from 'node:http';
import { listenOnLoopback, readJsonBody } from '../json-http.js';

/** What the fake model answers in one turn: words, and at most one tool call. */
export interface OpenAiTurn {
  text?: string;
  call?: { name: string; arguments: Record<string, unknown> };
}

export interface OpenAiRequest {
  api: 'chat' | 'responses';
  model: string;
  /** Text of the last user message (or input item). */
  lastUserText: string;
  /** The tool output that ends the conversation, when the last item is one. */
  toolOutput?: string;
  toolNames: string[];
  body: Record<string, unknown>;
}

export type OpenAiScript = (request: OpenAiRequest) => OpenAiTurn | undefined;

export interface FakeOpenAi {
  url: string;
  requests: OpenAiRequest[];
  setScript(script: OpenAiScript | undefined): void;
  close(): Promise<void>;
}

/**
 * Built-in behaviours, like the fake Anthropic API's:
 * - a tool output last → `Tool finished. Result: <output>`
 * - `TOOL:<file>` → "I will create the file now." + a shell tool call `touch <file>` (whichever shell tool
 *   the agent offers: Copilot's `bash`, Codex's `shell` or `exec_command`)
 * - anything else → `Hello from the fake model! You said: <text>`
 */
export function defaultTurn(request: OpenAiRequest): OpenAiTurn {
  if (request.toolOutput !== undefined)
    return { text: `Tool finished. Result: ${request.toolOutput.slice(0, 100)}` };
  const file = /TOOL:(\S+)/.exec(request.lastUserText)?.[1];
  if (file)
    return { text: 'I will create the file now.', call: shellCall(request.toolNames, `touch ${file}`) };
  return { text: `Hello from the fake model! You said: ${request.lastUserText}` };
}

function shellCall(tools: string[], command: string): OpenAiTurn['call'] {
  if (tools.includes('bash'))
    return { name: 'bash', arguments: { command, description: 'Run it', mode: 'sync' } };
  // Codex runs commands in its sandbox without asking; one that asks to leave it is what needs approval.
  if (tools.includes('exec_command'))
    return {
      name: 'exec_command',
      arguments: { cmd: command, sandbox_permissions: 'require_escalated', justification: 'Create the file' },
    };
  return { name: 'shell', arguments: { command: ['bash', '-lc', command] } };
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('')
      : '';

/** The last user words: after the agent's own context blocks (`<environment_context>`, dates...). */
function userWords(text: string): string {
  return text.replace(/<([a-z_]+)>[\s\S]*?<\/\1>/g, '').trim();
}

function parseChat(body: Record<string, unknown>): OpenAiRequest {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [];
  const last = messages.at(-1);
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ function?: { name?: string } }>) : [];
  return {
    api: 'chat',
    model: String(body.model ?? ''),
    lastUserText: userWords(textOf(lastUser?.content)),
    ...(last?.role === 'tool' ? { toolOutput: textOf(last.content) } : {}),
    toolNames: tools.map((t) => t.function?.name ?? '').filter(Boolean),
    body,
  };
}

function parseResponses(body: Record<string, unknown>): OpenAiRequest {
  const input = Array.isArray(body.input) ? (body.input as Array<Record<string, unknown>>) : [];
  const last = input.at(-1);
  const users = input.filter((item) => item.role === 'user');
  const words = users.map((u) => userWords(textOf(u.content))).filter(Boolean);
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ name?: string }>) : [];
  const output = last?.type === 'function_call_output' || last?.type === 'custom_tool_call_output';
  return {
    api: 'responses',
    model: String(body.model ?? ''),
    lastUserText: words.at(-1) ?? '',
    ...(output
      ? { toolOutput: typeof last.output === 'string' ? last.output : JSON.stringify(last.output) }
      : {}),
    toolNames: tools.map((t) => t.name ?? '').filter(Boolean),
    body,
  };
}

const USAGE = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };

function sse(res: ServerResponse, events: unknown[], named: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) {
    const type = (event as { type?: string }).type;
    res.write(`${named && type ? `event: ${type}\n` : ''}data: ${JSON.stringify(event)}\n\n`);
  }
  res.end(named ? '' : 'data: [DONE]\n\n');
}

function chatAnswer(res: ServerResponse, body: Record<string, unknown>, turn: OpenAiTurn): void {
  const toolCalls = turn.call
    ? [
        {
          index: 0,
          id: `call_${Date.now()}`,
          type: 'function',
          function: { name: turn.call.name, arguments: JSON.stringify(turn.call.arguments) },
        },
      ]
    : undefined;
  const finish = toolCalls ? 'tool_calls' : 'stop';
  const base = { id: `chatcmpl-${Date.now()}`, created: Math.floor(Date.now() / 1000), model: body.model };
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const message = {
      role: 'assistant',
      content: turn.text ?? null,
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    };
    return void res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: USAGE,
      }),
    );
  }
  const chunk = (delta: object, finishReason: string | null, extra: object = {}) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  });
  sse(
    res,
    [
      chunk(
        {
          role: 'assistant',
          ...(turn.text ? { content: turn.text } : {}),
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
        },
        null,
      ),
      chunk({}, finish, { usage: USAGE }),
    ],
    false,
  );
}

function responsesAnswer(res: ServerResponse, body: Record<string, unknown>, turn: OpenAiTurn): void {
  const id = `resp_${Date.now()}`;
  const items: Array<Record<string, unknown>> = [];
  if (turn.text)
    items.push({
      type: 'message',
      id: `msg_${id}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    });
  if (turn.call)
    items.push({
      type: 'function_call',
      id: `fc_${id}`,
      call_id: `call_${id}`,
      name: turn.call.name,
      arguments: JSON.stringify(turn.call.arguments),
      status: 'completed',
    });
  const response = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: body.model,
    status: 'completed',
    output: items,
  };
  const usage = {
    input_tokens: 20,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 30,
  };
  sse(
    res,
    [
      { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } },
      ...items.flatMap((item, index) => [
        { type: 'response.output_item.added', output_index: index, item },
        ...(item.type === 'message'
          ? [
              {
                type: 'response.output_text.delta',
                output_index: index,
                content_index: 0,
                item_id: item.id,
                delta: turn.text,
              },
            ]
          : []),
        { type: 'response.output_item.done', output_index: index, item },
      ]),
      { type: 'response.completed', response: { ...response, usage } },
    ],
    true,
  );
}

export async function startFakeOpenAi(script?: OpenAiScript): Promise<FakeOpenAi> {
  let current = script;
  const requests: OpenAiRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            object: 'list',
            data: [
              { id: 'gpt-4.1', object: 'model' },
              { id: 'fake-model', object: 'model' },
            ],
          }),
        );
      }
      const body = await readJsonBody(req);
      const api = path.endsWith('/chat/completions')
        ? 'chat'
        : path.endsWith('/responses')
          ? 'responses'
          : null;
      if (req.method !== 'POST' || !api) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: `no route for ${req.method} ${path}` } }));
      }
      const request = api === 'chat' ? parseChat(body) : parseResponses(body);
      requests.push(request);
      const turn = current?.(request) ?? defaultTurn(request);
      if (api === 'chat') chatAnswer(res, body, turn);
      else responsesAnswer(res, body, turn);
    })().catch(() => res.destroy());
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    requests,
    setScript: (next) => (current = next),
    close,
  };
}
