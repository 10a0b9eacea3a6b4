import { AgentProcess } from '../agent-process.js';
import { JsonLines } from '../json-lines.js';
import { PromptNotAsked } from '../pending-prompts.js';
import {
  StructuredDriver,
  startWithin,
  type StructuredDriverOptions,
  type StructuredLaunch,
} from '../structured-driver.js';
import { editOf, effectsOfClaudeMessage, newClaudeStreamState } from './stream-json-events.js';
import {
  hookReply,
  permissionPrompt,
  permissionReply,
  planDecision,
  planPrompt,
  questionAnswer,
  questionPrompt,
} from './stream-json-prompts.js';
import { denialMessage } from '../../../core/prompt.js';
import { wordsOf } from '../pending-prompts.js';
import {
  ASKING_TOOLS,
  canUseToolRequest,
  controlRequest,
  controlResponse,
  hookCallbackRequest,
  questionInput,
  type HookCallbackRequest,
} from './stream-json-wire.js';

/** The hook callback that asks a person AskUserQuestion's questions and ExitPlanMode's plan. */
const ASKING_HOOK = 'agent-bridge-asks';
/** What Claude is told of a question nobody answered because the turn was stopped. */
const STOPPED = 'The person stopped this turn before answering.';
/** A question may wait this long for a person when nothing else says (Claude's own default is 60 s). */
const DEFAULT_PROMPT_TIMEOUT_S = 3_600;

/**
 * Claude Code over stream-json: one long-lived `claude -p` reading user messages on stdin, permission
 * questions as `can_use_tool` control requests, AskUserQuestion and ExitPlanMode through a PreToolUse hook
 * callback (so bypass modes ask them too), `interrupt` to stop a turn, `--resume <id>` to resume.
 */
export class ClaudeStreamDriver extends StructuredDriver {
  private readonly lines: JsonLines;
  private readonly state = newClaudeStreamState();
  private readonly requests = new Map<string, (response: { ok: boolean; error?: string }) => void>();
  private nextRequest = 1;
  private endTurn: (() => void) | null = null;

  private constructor(agent: AgentProcess, options: StructuredDriverOptions) {
    super(agent, options);
    this.lines = new JsonLines(agent.child.stdout, agent.child.stdin, {
      message: (message) => this.onMessage(message),
    });
    void agent.exited.then(() => {
      this.endTurn?.();
      for (const settle of this.requests.values()) settle({ ok: false, error: 'Claude Code exited' });
      this.requests.clear();
    });
  }

  static async start(
    launch: StructuredLaunch,
    options: StructuredDriverOptions,
  ): Promise<ClaudeStreamDriver> {
    const agent = await AgentProcess.spawn(launch);
    const driver = new ClaudeStreamDriver(agent, options);
    const timeout = options.promptTimeoutSeconds ?? DEFAULT_PROMPT_TIMEOUT_S;
    await startWithin(agent, options, 'Claude Code', async () => {
      const answer = await driver.request({
        subtype: 'initialize',
        hooks: {
          PreToolUse: [{ matcher: ASKING_TOOLS.join('|'), hookCallbackIds: [ASKING_HOOK], timeout }],
        },
      });
      if (!answer.ok) throw new Error(`Claude Code refused to start: ${answer.error ?? 'no reason given'}`);
    });
    return driver;
  }

  protected runTurn(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.endTurn = resolve;
      const sent = this.lines.send({
        type: 'user',
        message: { role: 'user', content: text },
        parent_tool_use_id: null,
        session_id: '',
      });
      if (!sent) reject(new Error('Claude Code is not reading its input'));
    });
  }

  protected async cancelTurn(): Promise<void> {
    this.state.cancelled = true;
    this.prompts.withdrawAll();
    await this.request({ subtype: 'interrupt' });
  }

  private request(request: Record<string, unknown>): Promise<{ ok: boolean; error?: string }> {
    const id = `ab_${this.nextRequest++}`;
    return new Promise((resolve) => {
      this.requests.set(id, resolve);
      if (!this.lines.send({ type: 'control_request', request_id: id, request })) {
        this.requests.delete(id);
        resolve({ ok: false, error: 'Claude Code is not reading its input' });
      }
    });
  }

  private reply(requestId: string, response: object): void {
    this.lines.send({
      type: 'control_response',
      response: { subtype: 'success', request_id: requestId, response },
    });
  }

  private refuse(requestId: string, error: string): void {
    this.lines.send({
      type: 'control_response',
      response: { subtype: 'error', request_id: requestId, error },
    });
  }

  private onMessage(message: Record<string, unknown>): void {
    if (message.type === 'control_request') return this.onControlRequest(message);
    // Claude took a question back (its turn was interrupted): nobody may answer it any more.
    if (message.type === 'control_cancel_request' && typeof message.request_id === 'string')
      return this.prompts.withdraw(`claude|permission|${message.request_id}`, true);
    if (message.type === 'control_response') {
      const parsed = controlResponse.safeParse(message);
      if (!parsed.success) return;
      const { request_id: id, subtype, error } = parsed.data.response;
      this.requests.get(id)?.({ ok: subtype === 'success', ...(error ? { error } : {}) });
      this.requests.delete(id);
      return;
    }
    this.apply(effectsOfClaudeMessage(message, this.state));
    if (message.type === 'result') {
      const done = this.endTurn;
      this.endTurn = null;
      done?.();
    }
  }

  private onControlRequest(message: Record<string, unknown>): void {
    const parsed = controlRequest.safeParse(message);
    if (!parsed.success) return;
    const { request_id: id, request } = parsed.data;
    const permission = canUseToolRequest.safeParse(request);
    if (permission.success) {
      const edit = editOf(permission.data.tool_name, permission.data.input);
      if (edit) this.showProposed([edit]);
      const prompt = permissionPrompt(permission.data, id);
      return this.prompts.raise(
        prompt,
        (action, decidedBy) => {
          const response = permissionReply(permission.data, action, decidedBy);
          if (response.behavior === 'allow' && permission.data.tool_use_id)
            this.state.shown.add(permission.data.tool_use_id);
          this.reply(id, response);
          return `${String(response.behavior)}${response.updatedPermissions ? ' (with its suggestions)' : ''}`;
        },
        // Withdrawn (the turn is being stopped): Claude waits for an answer until it gets one.
        () => this.reply(id, { behavior: 'deny', message: STOPPED, interrupt: true }),
      );
    }
    const hook = hookCallbackRequest.safeParse(request);
    if (hook.success && hook.data.callback_id === ASKING_HOOK) {
      void this.askPerson(hook.data)
        .then((response) => this.reply(id, response))
        .catch((error: unknown) => {
          if (error instanceof PromptNotAsked) this.reply(id, hookReply({ allow: false, reason: STOPPED }));
          else this.refuse(id, (error as Error).message);
        });
      return;
    }
    this.refuse(id, `agent-bridge does not handle ${request.subtype}`);
  }

  /** AskUserQuestion (each question in turn) or ExitPlanMode, asked of a person; the hook's answer. */
  private async askPerson(hook: HookCallbackRequest): Promise<object> {
    const { tool_name: tool, tool_input: input = {}, tool_use_id: toolUseId = '' } = hook.input;
    if (tool === 'ExitPlanMode') {
      const { action, decidedBy } = await this.prompts.ask(planPrompt(input, toolUseId));
      const mode = planDecision(action);
      if (!mode) return hookReply({ allow: false, reason: denialMessage(decidedBy, wordsOf(action)) });
      await this.request({ subtype: 'set_permission_mode', mode });
      return hookReply({ allow: true });
    }
    const questions = questionInput.safeParse(input);
    if (tool !== 'AskUserQuestion' || !questions.success) return hookReply({ allow: true });
    const answers: Record<string, string> = {};
    for (const [index, question] of questions.data.questions.entries()) {
      const { action, decidedBy } = await this.prompts.ask(questionPrompt(question, toolUseId, index));
      const answer = questionAnswer(question, action);
      if (answer === null) return hookReply({ allow: false, reason: denialMessage(decidedBy, undefined) });
      answers[question.question] = answer;
    }
    return hookReply({ allow: true, updatedInput: { ...input, answers } });
  }
}
