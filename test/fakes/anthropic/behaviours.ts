// Turns a raw request body into a ParsedRequest and holds the built-in replies.
import { isAbsolute } from 'node:path';
import type { ParsedRequest, Reply, RequestBlock, RequestMessage, ToolResult, Turn } from './types.js';

const SYSTEM_REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
/** Cap on echoed tool output, so a long result stays on a couple of screen lines. */
const ECHO_LIMIT = 100;

function asBlocks(content: RequestMessage['content'] | undefined): RequestBlock[] {
  if (content === undefined) return [];
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** Flattens a string, a list of blocks or anything else into plain text. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value))
    return value
      .map(textOf)
      .filter((part) => part !== '')
      .join('\n');
  if (value && typeof value === 'object' && 'text' in value && typeof value.text === 'string')
    return value.text;
  return '';
}

function lastUserMessage(messages: RequestMessage[]): RequestMessage | undefined {
  return [...messages].reverse().find((message) => message.role === 'user');
}

function toolResultOf(blocks: RequestBlock[]): ToolResult | undefined {
  const block = blocks.find((candidate) => candidate.type === 'tool_result');
  if (!block) return undefined;
  return {
    toolUseId: block.tool_use_id ?? '',
    content: textOf(block.content),
    isError: block.is_error === true,
  };
}

/**
 * The CLI sends the typed text in its own block, next to blocks that are entirely system
 * reminders (and sometimes with reminders inlined), so reminders are cut out before matching.
 */
function typedTextOf(blocks: RequestBlock[]): string {
  return blocks
    .filter((block) => block.type === 'text')
    .map((block) => (block.text ?? '').replace(SYSTEM_REMINDER, '').trim())
    .filter((text) => text !== '')
    .join('\n');
}

function workingDirectoryOf(systemText: string): string | undefined {
  const match = /(?:Primary )?[Ww]orking directory:\s*(\S+)/.exec(systemText);
  return match?.[1];
}

function hasOutputFormat(body: Record<string, unknown>): boolean {
  const config = body.output_config;
  return typeof config === 'object' && config !== null && 'format' in config;
}

/** The CLI's housekeeping calls (session title) offer no tools and use haiku or structured output. */
function isSideCall(body: Record<string, unknown>, toolCount: number): boolean {
  const smallModel = typeof body.model === 'string' && body.model.includes('haiku');
  return toolCount === 0 && (smallModel || hasOutputFormat(body));
}

export function parseRequest(body: Record<string, unknown>): ParsedRequest {
  const messages = Array.isArray(body.messages) ? (body.messages as RequestMessage[]) : [];
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ name?: unknown }>) : [];
  const lastBlocks = asBlocks(lastUserMessage(messages)?.content);
  const systemText = textOf(body.system);
  return {
    model: typeof body.model === 'string' ? body.model : 'claude-fake',
    stream: body.stream === true,
    messages,
    toolNames: tools.map((tool) => (typeof tool.name === 'string' ? tool.name : '')).filter(Boolean),
    systemText,
    lastUserText: typedTextOf(lastBlocks),
    lastUserRawText: textOf(lastBlocks),
    toolResult: toolResultOf(lastBlocks),
    workingDirectory: workingDirectoryOf(systemText),
    isSideCall: isSideCall(body, tools.length),
    body,
  };
}

export function normalizeTurn(turn: Turn): Reply {
  if (typeof turn === 'string') return { content: [{ type: 'text', text: turn }] };
  if (Array.isArray(turn)) return { content: turn };
  return turn;
}

/** Side calls (session title, summaries) get a short plain answer. */
export function sideCallReply(request: ParsedRequest): Reply {
  // The CLI's title call (haiku, no tools) asks for {"title": ...} through output_config.format.
  const wantsJson = hasOutputFormat(request.body) || /json/i.test(request.systemText);
  const title = 'Fake session';
  return { content: [{ type: 'text', text: wantsJson ? JSON.stringify({ title }) : title }] };
}

/** Path for `touch`: absolute inside the CLI's cwd when known, so the Bash sandbox allows it. */
function touchTarget(fileName: string, workingDirectory: string | undefined): string {
  if (isAbsolute(fileName) || workingDirectory === undefined) return fileName;
  return `${workingDirectory.replace(/\/$/, '')}/${fileName}`;
}

export const ASK_QUESTION_INPUT = {
  questions: [
    {
      question: 'Which color do you prefer?',
      header: 'Color',
      options: [
        { label: 'Red', description: 'The color red' },
        { label: 'Blue', description: 'The color blue' },
      ],
      multiSelect: false,
    },
  ],
};

/**
 * Built-in behaviours, checked in this order:
 * - a tool_result in the last user message -> "Tool finished. Result: <content> (is_error=<bool>)"
 * - `TOOL:<file>` -> text + Bash tool_use touching <file>
 * - `ASKQ` -> AskUserQuestion tool_use (Red / Blue)
 * - anything else -> "Hello from the fake model! You said: <text>"
 */
export function defaultReply(request: ParsedRequest): Reply {
  const { toolResult, lastUserText } = request;
  if (toolResult) {
    const content = toolResult.content.slice(0, ECHO_LIMIT);
    return {
      content: [{ type: 'text', text: `Tool finished. Result: ${content} (is_error=${toolResult.isError})` }],
    };
  }
  const toolFile = /TOOL:(\S+)/.exec(lastUserText)?.[1];
  if (toolFile !== undefined) {
    const command = `touch ${touchTarget(toolFile, request.workingDirectory)}`;
    return {
      content: [
        { type: 'text', text: 'I will create the file now.' },
        { type: 'tool_use', name: 'Bash', input: { command, description: `Create ${toolFile}` } },
      ],
    };
  }
  if (lastUserText.includes('ASKQ')) {
    return { content: [{ type: 'tool_use', name: 'AskUserQuestion', input: ASK_QUESTION_INPUT }] };
  }
  return { content: [{ type: 'text', text: `Hello from the fake model! You said: ${lastUserText}` }] };
}
