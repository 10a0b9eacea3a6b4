import { denialMessage } from '../../../core/prompt.js';
import { AgentProcess } from '../agent-process.js';
import { JsonLines } from '../json-lines.js';
import { PromptNotAsked, wordsOf } from '../pending-prompts.js';
import {
  StructuredDriver,
  startWithin,
  type StructuredDriverOptions,
  type StructuredLaunch,
} from '../structured-driver.js';
import {
  approvalDecision,
  approvalDecisions,
  approvalPrompt,
  effectsOfNotification,
  isRefusal,
  newCodexState,
  userInputAnswer,
  userInputPrompt,
  type ApprovalRequest,
} from './app-server-events.js';
import { JsonRpcError, JsonRpcPeer } from './json-rpc.js';
import type { ServerNotification, v2 } from './protocol/index.js';

/** JSON-RPC's "method not found": a request agent-bridge does not answer (it tells Codex so). */
const METHOD_NOT_FOUND = -32601;

/**
 * Codex's app-server (`codex app-server`, JSON-RPC over stdio; types generated from the installed CLI): one
 * thread per session (`thread/start`, or `thread/resume` by its id), a `turn/start` per message,
 * `turn/interrupt` to stop one; command and file-change approvals answered with Codex's own decisions
 * (accept, accept for the session, decline, cancel), its `request_user_input` questions asked of a person.
 */
export class CodexAppServerDriver extends StructuredDriver {
  private readonly rpc: JsonRpcPeer;
  private readonly state = newCodexState();
  private threadId = '';
  private turnId = '';
  private endTurn: ((turn: v2.Turn | null) => void) | null = null;
  private nextPrompt = 1;

  private constructor(agent: AgentProcess, options: StructuredDriverOptions) {
    super(agent, options);
    const lines = new JsonLines(agent.child.stdout, agent.child.stdin, {
      message: (message) => this.rpc.receive(message),
    });
    this.rpc = new JsonRpcPeer(lines, {
      request: (method, params, id) => this.onRequest(method, params, id),
      notification: (method, params) => this.onNotification({ method, params } as ServerNotification),
    });
    void agent.exited.then(() => {
      this.rpc.close('Codex exited');
      this.endTurn?.(null);
    });
  }

  static async start(
    launch: StructuredLaunch,
    options: StructuredDriverOptions,
  ): Promise<CodexAppServerDriver> {
    const agent = await AgentProcess.spawn(launch);
    const driver = new CodexAppServerDriver(agent, options);
    await startWithin(agent, options, 'Codex', () => driver.handshake(launch));
    return driver;
  }

  private async handshake(launch: StructuredLaunch): Promise<void> {
    await this.rpc.request('initialize', {
      clientInfo: { name: 'agent-bridge', title: 'agent-bridge', version: '1' },
      capabilities: null,
    });
    this.rpc.notify('initialized');
    // Codex's own approval policy and sandbox (its config) hold unless every permission is to be skipped.
    const policy = launch.skipPermissions ? { approvalPolicy: 'never', sandbox: 'danger-full-access' } : {};
    const settings = { cwd: launch.cwd, ...(launch.model ? { model: launch.model } : {}), ...policy };
    const opened = launch.resume
      ? await this.rpc.request<v2.ThreadResumeResponse>('thread/resume', {
          threadId: launch.resume,
          ...settings,
          excludeTurns: true,
        })
      : await this.rpc.request<v2.ThreadStartResponse>('thread/start', settings);
    this.threadId = opened.thread.id;
    this.state.usage = { model: opened.model };
    this.emit({ type: 'status', usage: this.state.usage });
    this.options.onAgentSessionId?.(opened.thread.id);
  }

  protected async runTurn(text: string): Promise<void> {
    const ended = new Promise<v2.Turn | null>((resolve) => (this.endTurn = resolve));
    const started = await this.rpc.request<v2.TurnStartResponse>('turn/start', {
      threadId: this.threadId,
      input: [{ type: 'text', text, text_elements: [] }],
    });
    this.turnId = started.turn.id;
    const turn = await ended;
    if (turn?.status === 'failed' && turn.error)
      this.emit({ type: 'message', text: `⚠️ Codex: ${turn.error.message}`, source: 'protocol' });
  }

  protected async cancelTurn(): Promise<void> {
    this.prompts.withdrawAll();
    if (this.turnId)
      await this.rpc.request('turn/interrupt', { threadId: this.threadId, turnId: this.turnId });
  }

  private onNotification(note: ServerNotification): void {
    if ('threadId' in note.params && note.params.threadId !== this.threadId) return;
    this.apply(effectsOfNotification(note, this.state));
    if (note.method === 'turn/completed') {
      const done = this.endTurn;
      this.endTurn = null;
      done?.(note.params.turn);
    }
  }

  private async onRequest(method: string, params: unknown, id: string | number): Promise<unknown> {
    if (method === 'item/commandExecution/requestApproval' || method === 'item/fileChange/requestApproval')
      return this.askApproval({ method, params } as ApprovalRequest, id);
    if (method === 'item/tool/requestUserInput')
      return this.askUserInput(params as v2.ToolRequestUserInputParams, id);
    throw new JsonRpcError(METHOD_NOT_FOUND, `agent-bridge does not answer ${method}`);
  }

  private async askApproval(request: ApprovalRequest, id: string | number): Promise<unknown> {
    const decisions = approvalDecisions(request);
    if (request.method === 'item/fileChange/requestApproval')
      this.showProposed(
        (this.state.files.get(request.params.itemId) ?? []).map((c) => ({ file: c.path, diff: c.diff })),
      );
    const prompt = approvalPrompt(request, this.state, `codex|${request.params.itemId}|${id}`);
    const asked = await this.prompts.ask(prompt).catch((error: unknown) => {
      if (error instanceof PromptNotAsked) return null; // the turn was interrupted: Codex stops waiting too
      throw error;
    });
    if (!asked) return { decision: 'cancel' };
    const decision = approvalDecision(decisions, asked.action);
    if (!isRefusal(decision)) this.state.shown.add(request.params.itemId);
    // Codex has no words for a "No": they reach it as its next message.
    const words = wordsOf(asked.action);
    if (isRefusal(decision) && words) this.followUp(denialMessage(asked.decidedBy, words));
    return { decision };
  }

  private async askUserInput(params: v2.ToolRequestUserInputParams, id: string | number): Promise<unknown> {
    const answers: Record<string, { answers: string[] }> = {};
    for (const question of params.questions) {
      const asked = await this.prompts.ask(
        userInputPrompt(question, `codex|input|${id}|${question.id}|${this.nextPrompt++}`),
      );
      const answer = userInputAnswer(question, asked.action);
      answers[question.id] = { answers: answer === null ? [] : [answer] };
    }
    return { answers };
  }
}
