/**
 * The set-ups of discord-latency: agent-bridge's pieces wired in the bench process as `run --approve-from
 * discord` wires them (with probes on the channel, the relay's hooks and the session's terminal), the real CLI
 * in two processes (`serve` hosting Discord, `run` the session), and the two baselines (discord.js alone).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Events, REST, Routes, type Client } from 'discord.js';
import type * as Registry from '../src/agents/registry.js';
import type * as ContractModule from '../src/channels/contract.js';
import type * as DiscordModule from '../src/channels/discord/discord-channel.js';
import type * as ProcessModule from '../src/cli/process.js';
import type * as ClockModule from '../src/core/clock.js';
import type * as SessionModule from '../src/sessions/agent-session.js';
import type * as RelayModule from '../src/sessions/channel-relay.js';
import type * as StoreModule from '../src/store/store.js';
import type { FakeDiscord, FakeDiscordMessage } from '../test/fakes/discord/server.js';
import { connectDiscord } from '../test/fakes/discord/test-client.js';
import { CHANNEL, OWNER } from '../test/support/discord-setup.js';
import { importDist, sleep, wallNow } from './support.js';
import { ChildClock, serveAndRunHost, type Host } from './telegram-runners.js';

/** The guild text channel prompts go to (test/support's CHANNEL), and the one the baselines send to. */
export const PROMPT_CHANNEL = CHANNEL;
export const BASELINE_CHANNEL = '1400000000000000101';

/**
 * Before the first prompt: the session's "started" notice goes first (Discord has no per-chat spacing in
 * agent-bridge, unlike Telegram's 1 s; discord.js queues per route and honours the rate-limit headers).
 */
const FIRST_PROMPT_DELAY_S = 1;
/**
 * Between an answer and the next prompt: time for the outcome edit (150 ms after the keys, ECHO_SUPPRESSION_MS)
 * and the baselines. Dots keep the screen changing: 2 s of silence would raise a low-confidence prompt.
 */
const DOTS = 2;
const DOT_INTERVAL_S = 0.3;

/** The gap between prompts the child keeps, for the README and the notes. */
export const PROMPT_SPACING_MS = DOTS * DOT_INTERVAL_S * 1000;

/** As telegram-runners' CHILD, paced for Discord: `at-N=` stamps the prompt's write, `GOT-N:` the `read`. */
export const CHILD = `
export LC_ALL=C
s=$1; n=$2
sleep ${FIRST_PROMPT_DELAY_S}
for i in $(seq 1 "$n"); do
  printf 'deploying build %s-%d\\nat-%d=%s\\nDeploy build-%s-%d? (y/n) ' "$s" "$i" "$i" "$EPOCHREALTIME" "$s" "$i"
  IFS= read -r a
  printf '\\nGOT-%d:%s@%s\\n' "$i" "$a" "$EPOCHREALTIME"
  if [ "$i" -lt "$n" ]; then for j in $(seq 1 ${DOTS}); do sleep ${DOT_INTERVAL_S}; printf .; done; fi
done
sleep "$3"
`;

/** `build-<label>-<n>?`, the prompt's token: the last one in the text (the screen shows earlier ones too). */
export function tokenIn(text: string): string | undefined {
  return [...text.matchAll(/build-\w+-\d+\?/g)].at(-1)?.[0];
}

/**
 * Wall-clock stamps (ms) taken inside the in-process set-up, by prompt token: where the time goes. Only one
 * prompt is answered at a time, so the answer side keys on the token of the last button event.
 */
export class Probes {
  /** PromptCoordinator's observer `opened`: the row was just created (and routed) in the store. */
  readonly opened = new Map<string, number>();
  /** ChannelRelay called DiscordChannel.sendPrompt, and it resolved (discord.js has the reply). */
  readonly sendCalled = new Map<string, number>();
  readonly sendResolved = new Map<string, number>();
  /** The button event reached the relay (discord.js emitted interactionCreate, DiscordChannel mapped it). */
  readonly inbound = new Map<string, number>();
  /** The relay recorded the answer and told the session (`onAnswer`). */
  readonly answered = new Map<string, number>();
  /** The session's TerminalSession.answer was called (it parses what is pending, then writes the keys). */
  readonly keysStarted = new Map<string, number>();
  /** The relay called the event's acknowledge (an ephemeral reply), and it resolved. */
  readonly ackCalled = new Map<string, number>();
  readonly ackDone = new Map<string, number>();
  private readonly byMessage = new Map<string, string>();
  private current: string | undefined;

  mark(map: Map<string, number>, token: string | undefined): void {
    if (token !== undefined && !map.has(token)) map.set(token, wallNow());
  }

  /** The bench is about to press a button on this prompt's message (sendPrompt may not have resolved yet). */
  expect(messageId: string, token: string): void {
    this.byMessage.set(messageId, token);
  }

  /** A button pressed on a prompt's message: later stamps of the answer side go to that prompt. */
  pressed(messageId: string): string | undefined {
    this.current = this.byMessage.get(messageId);
    return this.current;
  }

  get answering(): string | undefined {
    return this.current;
  }
}

/**
 * In this process: a relay with its own store connection. `linked` (as `run --approve-from` wires them):
 * observers poke the relay, onAnswer pokes the session. Not linked, they find each other's writes only through
 * the store, as `serve` and `run` do: each learns of the other's commits from the store's file notifications.
 */
export async function inProcessHost(
  root: string,
  fake: FakeDiscord,
  dir: string,
  probes: Probes,
  linked: boolean,
): Promise<Host> {
  const { agents } = await importDist<typeof Registry>(root, 'agents/registry.js');
  const { DiscordChannel } = await importDist<typeof DiscordModule>(
    root,
    'channels/discord/discord-channel.js',
  );
  const { isProcessAlive } = await importDist<typeof ProcessModule>(root, 'cli/process.js');
  const { systemClock } = await importDist<typeof ClockModule>(root, 'core/clock.js');
  const { AgentSession } = await importDist<typeof SessionModule>(root, 'sessions/agent-session.js');
  const { ChannelRelay } = await importDist<typeof RelayModule>(root, 'sessions/channel-relay.js');
  const { openStore } = await importDist<typeof StoreModule>(root, 'store/store.js');
  const store = openStore({ dir });
  const channelStore = openStore({ dir });
  let agent: SessionModule.AgentSession | null = null;
  const errors: string[] = [];
  const channel = new DiscordChannel({
    token: fake.token,
    restApi: fake.restApi,
    clock: systemClock,
    onError: (line) => errors.push(line),
  });
  probeChannel(channel, probes);
  const relay = new ChannelRelay({
    channel,
    store: channelStore,
    clock: systemClock,
    chats: [{ chatId: PROMPT_CHANNEL }],
    allowedUsers: new Set([OWNER]),
    outputThreshold: 1500,
    isAlive: isProcessAlive,
    log: (line) => errors.push(line),
    onAnswer: () => {
      probes.mark(probes.answered, probes.answering);
      if (linked) agent?.poke();
    },
  });
  if (!(await relay.start())) throw new Error('the in-process relay did not get the discord lease');
  return {
    async session(label, count, lingerS) {
      const session = await AgentSession.start({
        spec: agents.custom,
        command: 'bash',
        args: ['--noprofile', '--norc', '-c', CHILD, 'bench', label, String(count), String(lingerS)],
        cwd: root,
        env: process.env,
        cols: 80,
        rows: 24,
        autoTrust: false,
        record: false,
        store,
        clock: systemClock,
        approveFrom: ['discord'],
        observers: [
          {
            opened: (record) => {
              probes.mark(probes.opened, tokenIn(record.detail || record.excerpt));
              if (linked) relay.poke();
            },
            closed: () => void (linked && relay.poke()),
          },
        ],
      });
      agent = session;
      const terminal = session.terminal!;
      const answer = terminal.answer.bind(terminal);
      terminal.answer = (prompt, action) => {
        probes.mark(probes.keysStarted, probes.answering);
        return answer(prompt, action);
      };
      const clock = new ChildClock();
      session.on((event) => {
        if (event.type === 'output') clock.feed(event.data);
      });
      const done = (async () => {
        const exit = await session.exited;
        await session.terminal!.screen.catchUp();
        await session.finish(exit, 'completed');
        await session.driver.stop();
        if (exit.exitCode !== 0) throw new Error(`in-process session: exit ${JSON.stringify(exit)}`);
      })();
      return { clock, done, abort: () => void session.driver.stop() };
    },
    log: () => errors.join('\n'),
    async stop() {
      // An answer's injection ends 150 ms after its keys (ECHO_SUPPRESSION_MS) with a store write.
      await sleep(500);
      await relay.stop();
      channelStore.close();
      store.close();
    },
  };
}

/** Stamps on the channel's way out (sendPrompt) and in (button events and their acknowledge). */
function probeChannel(channel: ContractModule.Channel, probes: Probes): void {
  const sendPrompt = channel.sendPrompt.bind(channel);
  channel.sendPrompt = async (target, view) => {
    const token = tokenIn(view.detail || view.excerpt);
    probes.mark(probes.sendCalled, token);
    const ref = await sendPrompt(target, view);
    probes.mark(probes.sendResolved, token);
    return ref;
  };
  const start = channel.start.bind(channel);
  channel.start = (onInbound) =>
    start((event) => {
      if (event.type === 'button') {
        const token = probes.pressed(event.message.messageId);
        probes.mark(probes.inbound, token);
        const acknowledge = event.acknowledge;
        event.acknowledge = async (text) => {
          probes.mark(probes.ackCalled, token);
          await acknowledge(text);
          probes.mark(probes.ackDone, token);
        };
      }
      onInbound(event);
    });
}

/**
 * Writes agent-bridge.yaml in the data folder: the fake bot, one allowed user, the prompt channel as
 * `channel_ids` (where `run --approve-from discord` sends; test/support's writeDiscordConfig maps a repository).
 */
export function writeRunConfig(dataDir: string, fake: FakeDiscord): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(
    path.join(dataDir, 'agent-bridge.yaml'),
    'channels:\n  discord:\n' +
      `    token: "${fake.token}"\n    allowed_users: ["${OWNER}"]\n` +
      `    channel_ids: ["${PROMPT_CHANNEL}"]\n    api_root: ${fake.restApi}\n`,
    { mode: 0o600 },
  );
}

/** `agent-bridge serve` (hosting Discord) in one process; each session an `agent-bridge run` of its own. */
export function crossProcessHost(root: string, fake: FakeDiscord, home: string): Promise<Host> {
  return serveAndRunHost({ root, home, channel: 'discord', child: CHILD, connected: () => fake.isReady() });
}

/**
 * Baseline of the send: discord.js's REST client alone (`REST.post`, the call `channel.send` ends in) sending
 * the same content and buttons to the fake, timed to the moment the fake holds the message (as the measured
 * path is) and to the reply (the round trip).
 */
export class RestBaseline {
  private readonly rest: REST;
  private n = 0;

  constructor(private readonly fake: FakeDiscord) {
    this.rest = new REST({ api: fake.restApi }).setToken(fake.token);
  }

  async sample(like: FakeDiscordMessage): Promise<{ toFake: number; roundTrip: number }> {
    const marker = `baseline-${++this.n}`;
    let heldAt = 0;
    const held = this.fake.waitForMessage((m) => {
      const match = m.channelId === BASELINE_CHANNEL && m.content.startsWith(marker);
      if (match && heldAt === 0) heldAt = wallNow();
      return match;
    });
    const started = wallNow();
    await this.rest.post(Routes.channelMessages(BASELINE_CHANNEL), {
      body: { content: `${marker} ${like.content}`.slice(0, 2000), components: like.components },
    });
    const roundTrip = wallNow() - started;
    await held;
    return { toFake: heldAt - started, roundTrip };
  }

  close(): void {
    this.rest.clearHashSweeper();
    this.rest.clearHandlerSweeper();
  }
}

/**
 * Baseline of the answer: a bare discord.js client on a fake of its own (so the measured client never sees
 * these dispatches), a message with one button; `fake.userPressesButton` → the client's interactionCreate.
 * The handler acknowledges (deferUpdate), as agent-bridge does.
 */
export class GatewayBaseline {
  private client: Client | null = null;
  private messageId = '';
  private buttonId = 'baseline-press';
  private waiting: ((at: number) => void) | null = null;

  constructor(private readonly fake: FakeDiscord) {}

  async start(): Promise<void> {
    const client = await connectDiscord(this.fake);
    this.client = client;
    client.on(Events.InteractionCreate, (interaction) => {
      const at = wallNow();
      this.waiting?.(at);
      this.waiting = null;
      if (interaction.isButton()) void interaction.deferUpdate().catch(() => undefined);
    });
    const sent = await client.rest.post(Routes.channelMessages(BASELINE_CHANNEL), {
      body: {
        content: 'baseline',
        components: [
          { type: 1, components: [{ type: 2, style: 1, label: 'Press', custom_id: this.buttonId }] },
        ],
      },
    });
    this.messageId = (sent as { id: string }).id;
  }

  async sample(): Promise<number> {
    const arrived = new Promise<number>((resolve) => (this.waiting = resolve));
    const pressed = wallNow();
    this.fake.userPressesButton({ userId: OWNER, messageId: this.messageId, customId: this.buttonId });
    const at = await Promise.race([arrived, sleep(5_000).then(() => Number.NaN)]);
    if (Number.isNaN(at)) throw new Error('the baseline client never saw the button press');
    return at - pressed;
  }

  async stop(): Promise<void> {
    await this.client?.destroy();
  }
}
