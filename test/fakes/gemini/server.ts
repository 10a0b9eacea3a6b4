// A fake Gemini API (generativelanguage v1beta) on 127.0.0.1, good enough for the real Gemini CLI 0.61.
// See README.md in this folder.
import { createServer } from 'node:http';
import { listenOnLoopback, readJsonBody } from '../json-http.js';

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
}

export interface GeminiContent {
  role?: string;
  parts?: GeminiPart[];
}

export interface GeminiRequest {
  model: string;
  /** `streamGenerateContent` (the agent's turns) or `generateContent` (its side calls: routing, checks). */
  method: string;
  contents: GeminiContent[];
  /** Text of the last user content (what the person typed, after the CLI's own context block). */
  lastUserText: string;
  /** The tool result in the last content, when it is one. */
  toolResult?: { name: string; output: string };
  toolNames: string[];
  body: Record<string, unknown>;
}

/** Decides the model parts of a main turn; undefined = the built-in behaviours. */
export type GeminiScript = (request: GeminiRequest) => GeminiPart[] | undefined;

export interface FakeGemini {
  url: string;
  requests: GeminiRequest[];
  /** The agent's turns only (not its side calls). */
  turns(): GeminiRequest[];
  setScript(script: GeminiScript | undefined): void;
  close(): Promise<void>;
}

/**
 * Built-in behaviours of a main turn, like the fake Anthropic API's:
 * - a tool result last → `Tool finished. Result: <output>`
 * - `TOOL:<file>` → "I will create the file now." + a `run_shell_command` call `touch <file>`
 * - `WRITE:<file>` → a `write_file` call writing "hello\n" to <file> in the working folder
 * - anything else → `Hello from the fake model! You said: <text>`
 */
export function defaultParts(request: GeminiRequest): GeminiPart[] {
  if (request.toolResult)
    return [{ text: `Tool finished. Result: ${request.toolResult.output.slice(0, 100)}` }];
  const file = /TOOL:(\S+)/.exec(request.lastUserText)?.[1];
  if (file)
    return [
      { text: 'I will create the file now.' },
      {
        functionCall: {
          name: 'run_shell_command',
          args: { command: `touch ${file}`, description: `Create ${file}` },
        },
      },
    ];
  const written = /WRITE:(\S+)/.exec(request.lastUserText)?.[1];
  if (written)
    return [{ functionCall: { name: 'write_file', args: { file_path: written, content: 'hello\n' } } }];
  return [{ text: `Hello from the fake model! You said: ${request.lastUserText}` }];
}

/** A side call (the model router, checks) gets what its JSON schema asks for, or a short text. */
function sideCallParts(body: Record<string, unknown>): GeminiPart[] {
  const config = (body.generationConfig ?? {}) as Record<string, unknown>;
  const schema = (config.responseJsonSchema ?? config.responseSchema) as Record<string, unknown> | undefined;
  return [{ text: schema ? JSON.stringify(exampleOf(schema)) : 'ok' }];
}

function exampleOf(schema: Record<string, unknown>): unknown {
  const type = String(schema.type ?? '').toUpperCase();
  if (type === 'OBJECT') {
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, exampleOf(value)]));
  }
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (type === 'INTEGER' || type === 'NUMBER') return 10;
  if (type === 'BOOLEAN') return false;
  if (type === 'ARRAY') return [];
  return 'fake';
}

function parse(model: string, method: string, body: Record<string, unknown>): GeminiRequest {
  const contents = Array.isArray(body.contents) ? (body.contents as GeminiContent[]) : [];
  const last = contents.at(-1);
  const parts = last?.parts ?? [];
  const response = parts.find((p) => p.functionResponse)?.functionResponse;
  const text = parts
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text!.replace(/<session_context>[\s\S]*?<\/session_context>/g, '').trim())
    .filter(Boolean)
    .join('\n');
  const tools = Array.isArray(body.tools)
    ? (body.tools as Array<{ functionDeclarations?: Array<{ name: string }> }>)
    : [];
  return {
    model,
    method,
    contents,
    lastUserText: text,
    ...(response ? { toolResult: { name: response.name, output: JSON.stringify(response.response) } } : {}),
    toolNames: tools.flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name)),
    body,
  };
}

function candidate(parts: GeminiPart[]) {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 10, totalTokenCount: 30 },
    modelVersion: 'gemini-fake',
  };
}

export async function startFakeGemini(script?: GeminiScript): Promise<FakeGemini> {
  let current = script;
  const requests: GeminiRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const route = /^\/v1beta\/models\/([^:/]+):(\w+)/.exec(new URL(req.url ?? '/', 'http://x').pathname);
      if (req.method !== 'POST' || !route) {
        res.writeHead(req.method === 'GET' ? 200 : 404, { 'content-type': 'application/json' });
        return res.end('{}');
      }
      const [, model, method] = route as unknown as [string, string, string];
      const body = await readJsonBody(req);
      if (method === 'countTokens') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ totalTokens: 20 }));
      }
      const request = parse(model, method, body);
      requests.push(request);
      if (method === 'streamGenerateContent') {
        const parts = current?.(request) ?? defaultParts(request);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return res.end(`data: ${JSON.stringify(candidate(parts))}\r\n\r\n`);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(candidate(sideCallParts(body))));
    })().catch(() => res.destroy());
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    requests,
    turns: () => requests.filter((r) => r.method === 'streamGenerateContent'),
    setScript: (next) => (current = next),
    close,
  };
}
