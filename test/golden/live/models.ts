// What the fake model APIs answer in the live golden run: a word in the message asks for one dialog of the CLI.
//   TOOL:<file>   a shell command `touch <file>`         WRITE:<file>  a new file     EDIT:<file>  an edit of it
//   ASKQ          one question (Red / Blue)              MULTI         a multi-select question
//   TWOQ          two questions (color, size)            TEXTQ, YESNO  Gemini's text and yes/no questions
//   PLAN          a plan for approval (written to the plan file each CLI names, then its exit-plan tool)
//   ENTERPLAN     Gemini's enter_plan_mode               OUTSIDE:<path> Copilot reads a file outside its folder
//   SLEEP         a shell command that runs for a minute (to interrupt)
import type { ParsedRequest, ReplyBlock, Turn } from '../../fakes/anthropic/types.js';
import type { GeminiPart, GeminiRequest } from '../../fakes/gemini/server.js';
import type { OpenAiRequest, OpenAiTurn } from '../../fakes/openai/server.js';

const arg = (text: string, word: string): string | undefined => new RegExp(`${word}:(\\S+)`).exec(text)?.[1];
const PLAN_TEXT = '# Plan\n\n1. Create plan-proof.txt\n2. Done\n';

const ASK = {
  color: { question: 'Which color do you prefer?', header: 'Color', options: ['Red', 'Blue'] },
  size: { question: 'Which size?', header: 'Size', options: ['Small', 'Large'] },
  toppings: { question: 'Which toppings?', header: 'Toppings', options: ['Cheese', 'Ham', 'Olives'] },
};
const described = (labels: string[]) => labels.map((label) => ({ label, description: `The ${label} one` }));

/** Claude Code (Anthropic Messages API). */
export function claudeModel(request: ParsedRequest): Turn | undefined {
  const text = request.lastUserText;
  const cwd = request.workingDirectory ?? '/tmp';
  const tool = (name: string, input: Record<string, unknown>): ReplyBlock[] => [
    { type: 'tool_use', name, input },
  ];
  if (!text && request.toolResult) {
    const last = [...request.messages].reverse().find((m) => m.role === 'assistant');
    const used = Array.isArray(last?.content) ? last.content.find((b) => b.type === 'tool_use') : undefined;
    const input = (used?.input ?? {}) as Record<string, string>;
    if (used?.name === 'Write' && /\/plans\//.test(input.file_path ?? '')) return tool('ExitPlanMode', {});
    if (used?.name === 'Read' && request.toolResult.content.includes('EDIT-ME'))
      return tool('Edit', { file_path: input.file_path, old_string: 'EDIT-ME', new_string: 'edited' });
    return undefined;
  }
  const question = (q: typeof ASK.color, multiSelect = false) => ({
    question: q.question,
    header: q.header,
    multiSelect,
    options: described(q.options),
  });
  if (text.includes('MULTI')) return tool('AskUserQuestion', { questions: [question(ASK.toppings, true)] });
  if (text.includes('TWOQ'))
    return tool('AskUserQuestion', { questions: [question(ASK.color), question(ASK.size)] });
  if (text.includes('ASKQ')) return tool('AskUserQuestion', { questions: [question(ASK.color)] });
  if (text.includes('PLAN')) {
    const planFile = /create your plan at (\/\S+?\.md)/.exec(JSON.stringify(request.body))?.[1];
    return planFile ? tool('Write', { file_path: planFile, content: PLAN_TEXT }) : 'no plan file named';
  }
  const write = arg(text, 'WRITE');
  if (write) return tool('Write', { file_path: `${cwd}/${write}`, content: 'hello\n' });
  const edit = arg(text, 'EDIT');
  if (edit) return tool('Read', { file_path: `${cwd}/${edit}` });
  // After a "No" the next message comes with the denied tool's result: the words decide, not the result.
  const touch = arg(text, 'TOOL');
  if (touch) return tool('Bash', { command: `touch ${cwd}/${touch}`, description: `Create ${touch}` });
  if (text.includes('SLEEP')) return tool('Bash', { command: 'sleep 60', description: 'Wait a minute' });
  return text ? `Hello from the fake model! You said: ${text}` : undefined;
}

/** Codex (OpenAI Responses API). `cwd` is its working folder. */
export function codexModel(cwd: string) {
  return (request: OpenAiRequest): OpenAiTurn | undefined => {
    if (request.api !== 'responses' || request.toolOutput !== undefined) return undefined;
    const text = request.lastUserText;
    const exec = (cmd: string, escalate = true): OpenAiTurn => ({
      call: {
        name: 'exec_command',
        arguments: escalate
          ? { cmd, sandbox_permissions: 'require_escalated', justification: 'Needed for the task' }
          : { cmd },
      },
    });
    const patch = (body: string) =>
      exec(`apply_patch <<'EOF'\n*** Begin Patch\n${body}\n*** End Patch\nEOF\n`, false);
    const write = arg(text, 'WRITE');
    if (write) return patch(`*** Add File: ${cwd}/${write}\n+hello`);
    const edit = arg(text, 'EDIT');
    if (edit) return patch(`*** Update File: ${cwd}/${edit}\n@@\n-line EDIT-ME here\n+line edited here`);
    const ask = (...qs: Array<typeof ASK.color>) => ({
      call: {
        name: 'request_user_input',
        arguments: {
          questions: qs.map((q) => ({
            id: q.header.toLowerCase(),
            header: q.header,
            question: q.question,
            options: described(q.options),
          })),
        },
      },
    });
    if (text.includes('TWOQ')) return ask(ASK.color, ASK.size);
    if (text.includes('ASKQ')) return ask(ASK.color);
    if (text.includes('PLAN')) return { text: `<proposed_plan>\n${PLAN_TEXT}</proposed_plan>` };
    if (text.includes('SLEEP'))
      return { call: { name: 'exec_command', arguments: { cmd: 'sleep 60', yield_time_ms: 30_000 } } };
    return undefined;
  };
}

/** Gemini CLI (Gemini API). */
export function geminiModel(cwd: string) {
  return (request: GeminiRequest): GeminiPart[] | undefined => {
    const call = (name: string, args: Record<string, unknown>): GeminiPart[] => [
      { functionCall: { name, args } },
    ];
    if (request.toolResult) {
      const previous = JSON.stringify(request.contents.at(-2) ?? {});
      if (request.toolResult.name === 'write_file' && /plans/.test(previous))
        return call('exit_plan_mode', { plan_filename: 'plan-proof.md' });
      return undefined;
    }
    // After a cancelled request the CLI sends the earlier words too: the last line is the new message.
    const text = request.lastUserText.split('\n').at(-1) ?? '';
    const question = (q: typeof ASK.color, multiSelect = false) => ({
      question: q.question,
      header: q.header,
      type: 'choice',
      multiSelect,
      options: described(q.options),
    });
    if (text.includes('MULTI')) return call('ask_user', { questions: [question(ASK.toppings, true)] });
    if (text.includes('TWOQ'))
      return call('ask_user', { questions: [question(ASK.color), question(ASK.size)] });
    if (text.includes('ASKQ')) return call('ask_user', { questions: [question(ASK.color)] });
    if (text.includes('TEXTQ'))
      return call('ask_user', {
        questions: [{ question: 'What name?', header: 'Name', type: 'text', placeholder: 'a name' }],
      });
    if (text.includes('YESNO'))
      return call('ask_user', {
        questions: [{ question: 'Shall I go on?', header: 'Go on', type: 'yesno' }],
      });
    if (text.includes('ENTERPLAN')) return call('enter_plan_mode', { reason: 'to plan' });
    if (text.includes('PLAN')) {
      const dir = /produce an implementation plan in `([^`]+\/plans\/)`/.exec(
        JSON.stringify(request.body),
      )?.[1];
      return dir
        ? call('write_file', { file_path: `${dir}plan-proof.md`, content: PLAN_TEXT })
        : [{ text: 'no plans folder' }];
    }
    const write = arg(text, 'WRITE');
    if (write) return call('write_file', { file_path: `${cwd}/${write}`, content: 'hello\n' });
    const edit = arg(text, 'EDIT');
    if (edit)
      return call('replace', {
        file_path: `${cwd}/${edit}`,
        instruction: 'Edit it',
        old_string: 'EDIT-ME',
        new_string: 'edited',
      });
    const touch = arg(text, 'TOOL');
    if (touch)
      return call('run_shell_command', { command: `touch ${touch}`, description: `Create ${touch}` });
    if (text.includes('SLEEP'))
      return call('run_shell_command', { command: 'sleep 60', description: 'Wait a minute' });
    return [{ text: `Hello from the fake model! You said: ${text}` }];
  };
}

/** Copilot CLI (OpenAI Chat Completions). */
export function copilotModel(cwd: string) {
  return (request: OpenAiRequest): OpenAiTurn | undefined => {
    if (request.api !== 'chat') return undefined;
    const call = (name: string, args: Record<string, unknown>): OpenAiTurn => ({
      call: { name, arguments: args },
    });
    if (request.toolOutput !== undefined)
      return /plan\.md/.test(request.toolOutput)
        ? call('exit_plan_mode', { summary: '- Create plan-proof.txt\n- Done' })
        : undefined;
    const text = request.lastUserText;
    const field = (q: typeof ASK.color) => ({ type: 'string', title: q.header, enum: q.options });
    if (text.includes('TWOQ'))
      return call('ask_user', {
        message: 'Two things',
        requestedSchema: {
          properties: { color: field(ASK.color), size: field(ASK.size) },
          required: ['color', 'size'],
        },
      });
    if (text.includes('MULTI'))
      return call('ask_user', {
        message: ASK.toppings.question,
        requestedSchema: {
          properties: {
            toppings: {
              type: 'array',
              title: 'Toppings',
              items: { type: 'string', enum: ASK.toppings.options },
            },
          },
          required: ['toppings'],
        },
      });
    if (text.includes('ASKQ'))
      return call('ask_user', {
        message: ASK.color.question,
        requestedSchema: { properties: { color: field(ASK.color) }, required: ['color'] },
      });
    if (text.includes('PLAN')) {
      const planFile = /Save the plan to: (\S+plan\.md)/.exec(JSON.stringify(request.body))?.[1];
      return planFile
        ? call('create', { path: planFile, file_text: PLAN_TEXT })
        : { text: 'no plan file named' };
    }
    const write = arg(text, 'WRITE');
    if (write) return call('create', { path: `${cwd}/${write}`, file_text: 'hello\n' });
    const edit = arg(text, 'EDIT');
    if (edit) return call('edit', { path: `${cwd}/${edit}`, old_str: 'EDIT-ME', new_str: 'edited' });
    const outside = arg(text, 'OUTSIDE');
    if (outside) return call('view', { path: outside });
    if (text.includes('SLEEP'))
      return call('bash', { command: 'sleep 60', description: 'Wait a minute', mode: 'sync' });
    return undefined;
  };
}
