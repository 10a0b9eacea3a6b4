import type { Writable } from 'node:stream';
import { BurstGatherer } from '../../core/burst-gatherer.js';
import type { Clock } from '../../core/clock.js';
import type { ExitInfo } from '../../core/events.js';
import { ScreenModel, type ScreenState } from '../../drivers/terminal/screen.js';
import { LocalPty } from '../../drivers/terminal/terminal-port.js';
import { AsciicastWriter } from '../../store/asciicast-writer.js';
import { SizeArbiter } from '../viewer-sizes.js';
import { SpawnerTerminal } from './terminal-sink.js';
import { FIRST_CLIENT_MS, FirstClient } from './first-client.js';
import { HookRelay, type HookResponder } from './host-hooks.js';
import { LineBacklog } from './line-backlog.js';
import { PendingNotices } from './pending-notices.js';
import { refusalOf } from './host-requests.js';
import {
  PROTOCOL,
  type ClientKind,
  type ClientRequest,
  type ExitReport,
  type Hello,
  type HostFrame,
  type HostLaunch,
} from './host-wire.js';

export type { HostLaunch };

/** One connection to the host, as the host sees it (the socket server makes them). */
export interface Peer {
  readonly open: boolean;
  sendJson(frame: HostFrame): void;
  sendOutput(chunk: Buffer): void;
  /** Bytes sent and not yet written out: a slow client. */
  readonly backlog: number;
  close(): void;
}

export interface HostEnds {
  told(report: ExitReport): void;
  finished(report: ExitReport, recordedByController: boolean): void;
}

interface Client {
  peer: Peer;
  kind: ClientKind;
  wantsOutput: boolean;
  /** Keys from it reach the agent (a browser only where the session allows the web to type). */
  mayType: boolean;
  /** It sets the terminal's size when it typed last (a person's terminal, serve for its browsers). */
  drives: boolean;
  /** It let go of control on purpose (not a crash): `endWithController` does not apply. */
  released: boolean;
  /** It reads the screen kept here (protocol 2): `settled` and `active` frames. */
  screens: boolean;
  /** Its output goes to the host's terminal sink, not over its socket. */
  direct: boolean;
}

/** A client this far behind pauses the agent's output (backpressure), until every client is below LOW. */
const HIGH_WATER_BYTES = 1024 * 1024;
const LOW_WATER_BYTES = 256 * 1024;
/** While output goes on without a pause, `screens` clients hear that it does this often. */
const ACTIVE_REPEAT_MS = 1_000;
/** After the agent ended: how long the host waits for its controller to record the end. */
const LINGER_MS = 10_000;

/**
 * A session host: the one process that holds an agent's terminal, so the agent outlives whoever started or
 * watches it (dtach, abduco, tmux's server, VS Code's pty host). It keeps the agent (its PTY), a screen model
 * (to redraw it for whoever attaches), a bounded backlog (finished lines, hook events) and the recording; it
 * holds nothing else: prompts, answers and the store are its controller's (one client at a time: `run`,
 * `attach`, or `serve`). Any client sees the output and may type; the size follows the client that typed
 * last (tmux's `window-size latest`); an agent-bridge that comes back takes control again.
 */
export class SessionHost {
  private readonly clients = new Map<Peer, Client>();
  private controller: Client | null = null;
  private readonly waiting: Client[] = [];
  private readonly sizes: SizeArbiter<Client>;
  private readonly hooks = new HookRelay();
  private readonly lineBacklog = new LineBacklog();
  private notice: Extract<HostFrame, { type: 'notice' }> | null = null;
  private paused = false;
  /**
   * The first client (the spawner): the agent's output is read once it came (only the tail rescued when the
   * agent ended that early is read before, and held for it); if it never comes, the agent ends.
   */
  private readonly first: FirstClient;
  private stopReason: ExitReport['stopped'] = null;
  private report: ExitReport | null = null;
  private finished: Promise<void> | null = null;
  private recorder: AsciicastWriter | null;
  private readonly ends: HostEnds = { told: () => undefined, finished: () => undefined };
  private controllerDone: () => void = () => undefined;
  private recordedByController = false;
  /** The screen settled, and no output came since: the next output is said to `screens` clients. */
  private quiet = true;
  private activeSaidAt = 0;
  /** The spawner's terminal (`direct`), when the host was started with it. */
  private readonly terminal: SpawnerTerminal;
  readonly screen: ScreenModel;
  /** Output for the clients over their socket: a burst goes out in few large messages, an echo at once. */
  private readonly burst: BurstGatherer;
  /** `typed` and `active`, a moment later (pending-notices.ts). */
  private readonly notices: PendingNotices<Peer>;

  private constructor(
    readonly launch: HostLaunch,
    readonly pty: LocalPty,
    private readonly clock: Clock,
    terminal: Writable | null,
  ) {
    this.terminal = new SpawnerTerminal(terminal, () => this.resumeIfDrained());
    this.screen = new ScreenModel({ cols: launch.cols, rows: launch.rows, clock });
    this.burst = new BurstGatherer(clock, (data) => this.fanOut(data));
    this.notices = new PendingNotices(clock);
    pty.settleWith((ms) => this.screen.nextSettle(ms));
    this.recorder = launch.recording
      ? new AsciicastWriter(launch.session.recording!, launch.recording, clock, (error) =>
          this.storageFailed('recording the terminal (the recording stops here)', error.message),
        )
      : null;
    this.sizes = new SizeArbiter<Client>(
      { cols: launch.cols, rows: launch.rows },
      (size) => this.pty.resize(size.cols, size.rows),
      (client, info) => this.tell(client.peer, { type: 'size', ...info }),
    );
    pty.onResize(({ cols, rows }) => {
      this.screen.resize(cols, rows);
      this.recorder?.resize(cols, rows);
    });
    pty.onData((chunk) => this.output(chunk));
    if (launch.lines) this.screen.onSettled(() => this.takeLines());
    this.screen.onSettled(() => this.settled());
    this.screen.onOutput((outputAt) => this.active(outputAt));
    pty.onExit((exit) => void this.ended(exit));
    // Nothing is read before the first client (its spawner) is there: it gets the agent's output from its
    // first byte, as from a PTY of its own (the kernel holds it meanwhile).
    pty.pause();
    const waitMs = launch.firstClientMs ?? FIRST_CLIENT_MS;
    this.first = new FirstClient(clock, waitMs, () => {
      if (this.finished) return;
      const seconds = Math.round(waitMs / 1000);
      this.stop(
        `nobody attached within ${seconds} s of its start (whoever started it ended first)`,
        'SIGHUP',
      );
    });
  }

  /** `terminal`: the spawner's terminal (see HostLaunch.terminal), written once its client says so. */
  static async start(
    launch: HostLaunch,
    clock: Clock,
    terminal: Writable | null = null,
  ): Promise<SessionHost> {
    const { session } = launch;
    const pty = await LocalPty.spawn({
      command: session.command,
      args: launch.args,
      cwd: session.cwd,
      env: launch.env,
      cols: launch.cols,
      rows: launch.rows,
      clock,
    });
    return new SessionHost(launch, pty, clock, terminal);
  }

  /**
   * `told`: the agent ended, said before any client hears it (the host writes it down for whoever finds it
   * gone); `finished`: everyone was told, and the controller recorded the end (or had its time to).
   */
  onEnd(ends: Partial<HostEnds>): void {
    Object.assign(this.ends, ends);
  }

  get controlled(): boolean {
    return this.controller !== null;
  }

  /** A client came (a host nobody came to has nobody to tell of its end). */
  get claimed(): boolean {
    return this.first.here;
  }

  /** A client whose hello (secret included) was accepted: it is welcomed, or refused with why. */
  async join(peer: Peer, hello: Hello): Promise<void> {
    const refusal = refusalOf(hello, this.launch);
    if (refusal) {
      peer.sendJson(refusal);
      return peer.close();
    }
    const direct = hello.direct && this.terminal.claim(hello.client);
    const mayType = !hello.watch && (hello.client !== 'web' || this.launch.session.webInput);
    const client: Client = {
      peer,
      kind: hello.client,
      wantsOutput: hello.output && !direct,
      mayType,
      drives: hello.drives && mayType,
      released: false,
      screens: hello.screens,
      direct,
    };
    // The screen and the output count are read together, and the client joins the output at once after:
    // it gets every byte after the screen it was shown, none twice.
    await this.screen.catchUp();
    if (!peer.open) return;
    // Output gathered for the others is on the screen this client is shown: it goes out before it joins.
    this.burst.flush();
    const control = this.controlFor(client, hello.control);
    // A controller sees everything, from the screen on (one that reads the screen here asks for output).
    client.wantsOutput ||= control === 'granted' && !client.screens && !client.direct;
    const welcome = this.welcome(client, hello, control);
    const first = this.clients.size === 0 && !this.first.here;
    this.clients.set(peer, client);
    // serve sizes the terminal only for the browsers it relays itself: a viewer of the host's own goes first.
    this.sizes.add(client, !client.drives, client.kind === 'serve');
    if (hello.size) this.sizes.wants(client, hello.size);
    this.tell(peer, welcome);
    if (control === 'granted') this.grant(client, hello.linesAfter);
    if (first) {
      for (const chunk of this.first.come()) this.output(chunk);
      // xterm.js loads now, while the client that was just welcomed gets ready (`run` puts its terminal in
      // raw mode before it shows anything), not before the agent started or the socket listened.
      this.screen.warm();
      this.pty.resume();
    }
  }

  /** Keys a person typed at a client. */
  input(peer: Peer, data: Buffer): void {
    const client = this.clients.get(peer);
    if (!client?.mayType || this.report) return;
    this.sizes.active(client);
    this.pty.userInput(data);
    const controller = this.controller;
    if (controller && controller !== client)
      this.notices.add(controller.peer, { type: 'typed', data: data.toString('utf8') });
  }

  /** The screen with all output so far, for a viewer that skipped output: what was gathered goes out first. */
  async redraw(): Promise<string> {
    await this.screen.catchUp();
    this.burst.flush();
    return this.screen.serialize();
  }

  /** Everything else a client asks, checked by the wire already. */
  async request(peer: Peer, message: ClientRequest): Promise<void> {
    const client = this.clients.get(peer);
    if (!client) return;
    switch (message.type) {
      case 'resize':
        return this.sizes.wants(client, { cols: message.cols, rows: message.rows });
      case 'drive':
        return this.sizes.active(client);
      case 'inject':
        return this.inject(client, message);
      case 'injected': {
        const typed = this.hooks.answered(message.id) || (await this.pty.injected(message.id));
        return this.reply(client, message.req, { typed });
      }
      case 'interrupt':
        if (client.mayType) this.pty.interrupt(message.signal);
        return;
      case 'stop':
        if (!client.mayType) return this.reply(client, message.req, {}, 'this client may not stop it');
        this.stop(`stopped by ${client.kind === 'serve' ? 'agent-bridge serve' : `a ${client.kind} client`}`);
        return this.reply(client, message.req, {});
      case 'redraw':
        return this.reply(client, message.req, { screen: await this.redraw() });
      case 'screen':
        await this.screen.catchUp();
        return this.reply(client, message.req, { state: this.screen.state() });
      case 'output':
        return this.switchOutput(client, message.req, message.on);
      case 'terminal':
        return this.switchTerminal(client, message.req, message.on);
      case 'release':
        client.released = true;
        if (this.controller === client) this.vacate();
        return;
      case 'done':
        if (this.controller !== client) return;
        this.recordedByController = true;
        return this.controllerDone();
      case 'lines':
        if (this.controller === client) this.sendLines(client, message.after);
        return;
      case 'hookReply':
        if (this.controller !== client) return;
        return this.hooks.reply(message.id, message.status, message.body, message.once);
    }
  }

  /** A client went away (it closed, or its process died). */
  leave(peer: Peer): void {
    const client = this.clients.get(peer);
    if (!client) return;
    this.clients.delete(peer);
    this.notices.drop(peer);
    this.sizes.remove(client);
    // Its terminal is the shell's again: nothing more is written there.
    if (client.direct) this.terminal.drop();
    const at = this.waiting.indexOf(client);
    if (at >= 0) this.waiting.splice(at, 1);
    if (this.controller !== client) return this.resumeIfDrained();
    // Gone after the agent ended: nobody is left to record the end (the host's own note of it stays).
    if (this.report) this.controllerDone();
    if (this.launch.endWithController && !client.released)
      this.stop('its agent-bridge run ended (--no-detach)');
    this.vacate();
    this.resumeIfDrained();
  }

  /** A hook post with the session's token. */
  hookPost(event: string, body: string, responder: HookResponder): void {
    if (this.report) return responder.answer(204, '');
    this.hooks.post(event, body, responder);
  }

  /** Somebody wrote on the hooks route without the token: the controller audits it. */
  hookRefused(event: string, reason: string): void {
    this.tellController({ type: 'hookRefused', event, reason });
  }

  /** A client's socket wrote out what it had buffered: output may flow again. */
  drained(): void {
    this.resumeIfDrained();
  }

  /**
   * Ends the agent (SIGHUP, SIGTERM, then SIGKILL after the grace) because someone asked; `signal` is what the
   * request stands for (a stop is a SIGTERM).
   */
  stop(reason: string, signal: NodeJS.Signals = 'SIGTERM'): void {
    this.stopReason ??= { reason, signal };
    void this.pty.stop();
  }

  private controlFor(client: Client, wanted: Hello['control']): 'granted' | 'held' | 'waiting' | 'none' {
    if (wanted === 'no') return 'none';
    if (this.report) return 'held';
    if (!this.controller) {
      this.controller = client;
      return 'granted';
    }
    if (wanted === 'wait') {
      this.waiting.push(client);
      return 'waiting';
    }
    return 'held';
  }

  private welcome(client: Client, hello: Hello, control: ReturnType<SessionHost['controlFor']>): HostFrame {
    const { cols, rows } = this.pty.size;
    const showScreen = client.wantsOutput;
    return {
      type: 'welcome',
      protocol: Math.min(hello.protocol, PROTOCOL),
      version: this.launch.version,
      session: this.launch.session,
      pid: this.pty.pid,
      hostPid: process.pid,
      ttyPath: this.pty.ttyPath,
      cols,
      rows,
      driving: this.sizes.driving === client,
      title: this.screen.snapshot().title,
      screen: showScreen ? this.screen.serialize() : '',
      // Bytes held for the first client come to it after this welcome: they are not yet on its screen.
      outputAt: this.pty.outputBytes - this.first.heldBytes,
      control,
      canType: client.mayType,
      exit: this.report,
      ...(client.screens ? { state: this.screen.state(), settled: this.quiet } : {}),
      ...(client.direct ? { direct: true } : {}),
    };
  }

  /** `client` controls the session now: it gets the hooks waiting, and the lines it has not read. */
  private grant(client: Client, linesAfter: number | undefined): void {
    this.hooks.controllerJoined((frame) => this.tell(client.peer, frame));
    if (this.notice) this.tell(client.peer, this.notice);
    if (linesAfter !== undefined) this.sendLines(client, linesAfter);
  }

  /** The finished lines after number `after` still in the backlog (older ones are gone: `first` says so). */
  private sendLines(client: Client, after: number): void {
    const { first, lines } = this.lineBacklog.after(after);
    if (lines.length > 0) this.tell(client.peer, { type: 'lines', first, lines });
  }

  /** No controller now: the first one waiting (serve) takes over, shown the screen as it is. */
  private vacate(): void {
    this.controller = null;
    this.hooks.controllerLeft();
    const next = this.waiting.shift();
    if (!next || this.report) return;
    void this.screen.catchUp().then(() => {
      if (!this.clients.has(next.peer) || this.controller) return;
      this.controller = next;
      const { cols, rows } = this.pty.size;
      // Output gathered before is on the screen it is shown: it gets what comes after.
      this.burst.flush();
      next.wantsOutput ||= !next.screens;
      this.tell(next.peer, {
        type: 'control',
        granted: true,
        screen: this.screen.serialize(),
        outputAt: this.pty.outputBytes,
        cols,
        rows,
        ...(next.screens ? { state: this.screen.state(), settled: this.quiet } : {}),
      });
      // It asks for the lines it has not read once it knows where it stands (`lines`).
      this.grant(next, undefined);
    });
  }

  private async inject(client: Client, message: Extract<ClientRequest, { type: 'inject' }>): Promise<void> {
    if (client !== this.controller) return this.reply(client, message.req, {}, 'only the controller types');
    const result = await this.pty.inject({
      parts: message.parts,
      gapMs: message.gapMs,
      ...(message.settleBeforeLast ? { settleBeforeLast: true } : {}),
      ...(message.awaitRedraw ? { awaitRedraw: true } : {}),
      ...(message.ifOutputAt !== undefined ? { ifOutputAt: message.ifOutputAt } : {}),
      ...(message.once !== undefined ? { once: message.once } : {}),
    });
    this.reply(client, message.req, result);
  }

  private reply(client: Client, req: number, fields: Record<string, unknown>, error?: string): void {
    this.tell(client.peer, { type: 'reply', req, ok: !error, ...(error ? { error } : {}), ...fields });
  }

  private output(chunk: Buffer): void {
    if (this.first.hold(chunk)) return;
    // Its readers first (an echo waits for nothing: the screen model's `active` is a write to another process);
    // the spawner's terminal gets each read at once, as from a PTY of its own (gathering kept it waiting).
    const { direct, sockets } = this.outputReaders();
    if (direct) {
      this.terminal.write(chunk);
      this.pauseIfBehind(this.terminal.backlog);
    }
    if (sockets) this.burst.push(chunk);
    this.recorder?.output(chunk);
    this.screen.feed(chunk);
  }

  /** Gathered output to the clients that get it over their socket. */
  private fanOut(data: Buffer): void {
    let backlog = 0;
    for (const client of this.clients.values()) {
      if (!client.wantsOutput) continue;
      client.peer.sendOutput(data);
      backlog = Math.max(backlog, client.peer.backlog);
    }
    this.pauseIfBehind(backlog);
  }

  /** Who reads the output: the spawner's terminal here (`direct`), clients over their socket (`sockets`). */
  private outputReaders(): { direct: boolean; sockets: boolean } {
    let direct = false;
    let sockets = false;
    for (const client of this.clients.values()) {
      direct ||= client.direct;
      sockets ||= client.wantsOutput;
    }
    return { direct, sockets };
  }

  /** A client `backlog` bytes behind pauses the agent (backpressure) until every one caught up. */
  private pauseIfBehind(backlog: number): void {
    if (this.paused || backlog <= HIGH_WATER_BYTES) return;
    this.paused = true;
    this.pty.pause();
  }

  /** The screen settled: its `screens` clients read it (their prompt detectors run on it). */
  private settled(): void {
    this.quiet = true;
    let state: ScreenState | null = null;
    for (const client of this.clients.values()) {
      if (!client.screens) continue;
      state ??= this.screen.state();
      this.tell(client.peer, { type: 'settled', state });
    }
  }

  /**
   * Output after the screen settled: said at once (a prompt shown is no longer the last word), and again each
   * ACTIVE_REPEAT_MS while it goes on (the session is busy, not idle), never per chunk.
   */
  private active(outputAt: number): void {
    const now = this.clock.now();
    if (!this.quiet && now - this.activeSaidAt < ACTIVE_REPEAT_MS) return;
    this.quiet = false;
    this.activeSaidAt = now;
    for (const client of this.clients.values())
      if (client.screens) this.notices.add(client.peer, { type: 'active', outputAt });
  }

  /**
   * Output over a client's socket on or off: on, it is shown the screen (all output read so far) and gets
   * every byte after it, none twice.
   */
  private async switchOutput(client: Client, req: number, on: boolean): Promise<void> {
    if (!on || client.direct) {
      client.wantsOutput = false;
      return this.reply(client, req, {});
    }
    await this.screen.catchUp();
    if (!this.clients.has(client.peer)) return;
    this.burst.flush();
    client.wantsOutput = true;
    this.reply(client, req, { screen: this.screen.serialize(), outputAt: this.pty.outputBytes });
  }

  /**
   * The spawner's terminal: on, the output held for it is written and the rest follows as it comes; off (it
   * detaches), everything gathered is written first, then the host lets the terminal go for good.
   */
  private async switchTerminal(client: Client, req: number, on: boolean): Promise<void> {
    if (client.direct && on) this.terminal.start();
    if (client.direct && !on) {
      await this.terminal.letGo();
      this.resumeIfDrained();
    }
    this.reply(client, req, {});
  }

  /** A frame to one client, after the output gathered before it (a screen or an exit never overtakes it). */
  private tell(peer: Peer, frame: HostFrame): void {
    this.burst.flush();
    this.notices.flush(peer);
    peer.sendJson(frame);
  }

  private tellController(frame: HostFrame): void {
    if (this.controller) this.tell(this.controller.peer, frame);
  }

  private resumeIfDrained(): void {
    if (!this.paused) return;
    if (this.terminal.backlog > LOW_WATER_BYTES) return;
    for (const client of this.clients.values()) if (client.peer.backlog > LOW_WATER_BYTES) return;
    this.paused = false;
    this.pty.resume();
  }

  private takeLines(): void {
    const lines = this.screen.takeFinishedLines();
    if (lines.length === 0) return;
    const first = this.lineBacklog.add(lines);
    this.tellController({ type: 'lines', first, lines });
  }

  /** Said to the controller now, and to each later one (a notice must not depend on who was there). */
  private storageFailed(what: string, reason: string): void {
    this.notice = { type: 'notice', what, reason };
    this.tellController(this.notice);
  }

  /** The agent ended: the last output is out (the PTY was drained), the recording closed, then everyone told. */
  private ended(exit: ExitInfo): Promise<void> {
    this.finished ??= (async () => {
      const report: ExitReport = { exitCode: exit.exitCode, signal: exit.signal, stopped: this.stopReason };
      // Ended before its spawner attached (a command that ran at once): the spawner still gets all of it.
      await this.first.waited();
      this.first.cancel();
      await this.screen.catchUp();
      if (this.launch.lines) this.takeLines();
      await this.recorder?.close();
      this.recorder = null;
      // The spawner's terminal has every byte before anyone hears of the end (its client then puts it back).
      await this.terminal.finish(this.clock, LINGER_MS);
      this.report = report;
      this.hooks.close();
      this.ends.told(report);
      const recorded = new Promise<void>((resolve) => {
        this.controllerDone = resolve;
        if (!this.controller) resolve();
      });
      for (const client of this.clients.values()) this.tell(client.peer, { type: 'exit', report });
      const linger = this.clock.after(LINGER_MS, () => this.controllerDone());
      await recorded;
      linger.cancel();
      this.ends.finished(report, this.recordedByController);
    })();
    return this.finished;
  }
}
