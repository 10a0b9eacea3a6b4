import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { denialMessage } from '../../../core/prompt.js';
import { AgentProcess } from '../agent-process.js';
import { wordsOf } from '../pending-prompts.js';
import {
  StructuredDriver,
  startWithin,
  type StructuredDriverOptions,
  type StructuredLaunch,
} from '../structured-driver.js';
import {
  diffsOf,
  effectsOfPromptResponse,
  effectsOfUpdate,
  isRejection,
  newAcpState,
  permissionOutcome,
  permissionPrompt,
} from './acp-events.js';

/**
 * The Agent Client Protocol client (`@agentclientprotocol/sdk` does the JSON-RPC framing): `initialize`,
 * `session/new` (or `session/load` to resume), `session/prompt` per turn, `session/update` streamed as events,
 * `session/request_permission` answered with the agent's own options, `session/cancel`. One driver for every
 * agent that speaks it (Gemini CLI, Copilot CLI, OpenCode, ...).
 */
export class AcpDriver extends StructuredDriver {
  private connection!: acp.ClientConnection;
  private sessionId = '';
  private readonly state = newAcpState();
  /** While `session/load` replays the conversation: its history is not news for the chat. */
  private replaying = false;
  private nextPermission = 1;

  private constructor(agent: AgentProcess, options: StructuredDriverOptions) {
    super(agent, options);
  }

  static async start(launch: StructuredLaunch, options: StructuredDriverOptions): Promise<AcpDriver> {
    const agent = await AgentProcess.spawn(launch);
    const driver = new AcpDriver(agent, options);
    await startWithin(agent, options, launch.command, () => driver.handshake(launch));
    return driver;
  }

  private async handshake(launch: StructuredLaunch): Promise<void> {
    const app = acp
      .client({ name: 'agent-bridge' })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => this.onPermission(params))
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        if (params.sessionId === this.sessionId && !this.replaying)
          this.apply(effectsOfUpdate(params.update, this.state));
      });
    const stream = acp.ndJsonStream(
      Writable.toWeb(this.agent.child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(this.agent.child.stdout) as ReadableStream<Uint8Array>,
    );
    this.connection = app.connect(stream);
    const agent = this.connection.agent;
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      // The agent reads and writes files and runs commands itself: we offer none of those.
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'agent-bridge', version: '1' },
    });
    const cwd = launch.cwd;
    if (launch.resume && init.agentCapabilities?.loadSession) {
      this.sessionId = launch.resume;
      this.replaying = true;
      try {
        await agent.request(acp.methods.agent.session.load, {
          sessionId: launch.resume,
          cwd,
          mcpServers: [],
        });
        this.options.onAgentSessionId?.(launch.resume);
        return;
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        this.emit({
          type: 'message',
          text: `⚠️ The agent could not resume conversation ${launch.resume} (${why}): this is a new conversation.`,
          source: 'protocol',
        });
      } finally {
        this.replaying = false;
      }
    }
    const session = await agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    this.sessionId = session.sessionId;
    this.options.onAgentSessionId?.(session.sessionId);
    const model = modelOf(session);
    if (model) {
      this.state.usage = { model };
      this.emit({ type: 'status', usage: this.state.usage });
    }
  }

  protected async runTurn(text: string): Promise<void> {
    const response = await this.connection.agent.request(acp.methods.agent.session.prompt, {
      sessionId: this.sessionId,
      prompt: [{ type: 'text', text }],
    });
    this.apply(effectsOfPromptResponse(response));
  }

  protected async cancelTurn(): Promise<void> {
    // Pending permission questions are answered "cancelled" as the protocol asks (see onPermission).
    this.prompts.withdrawAll();
    await this.connection.agent.notify(acp.methods.agent.session.cancel, { sessionId: this.sessionId });
  }

  private onPermission(request: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    const key = `acp|${request.toolCall.toolCallId}|${this.nextPermission++}`;
    this.showProposed(diffsOf(request.toolCall.content ?? []));
    return new Promise((resolve) => {
      this.prompts.raise(
        permissionPrompt(request, key),
        (action, decidedBy) => {
          const response = permissionOutcome(request, action);
          const rejected = isRejection(request, response);
          if (!rejected) this.state.shown.add(request.toolCall.toolCallId);
          // ACP has no words for a "No": they reach the agent as its next message.
          const words = wordsOf(action);
          if (rejected && words) this.followUp(denialMessage(decidedBy, words));
          resolve(response);
          return response.outcome.outcome === 'selected' ? response.outcome.optionId : 'cancelled';
        },
        () => resolve({ outcome: { outcome: 'cancelled' } }),
      );
    });
  }
}

/** The model the session runs, when the agent says (an unstable field some agents send). */
function modelOf(session: acp.NewSessionResponse): string | undefined {
  const models = (session as { models?: { currentModelId?: unknown } }).models;
  return typeof models?.currentModelId === 'string' ? models.currentModelId : undefined;
}
