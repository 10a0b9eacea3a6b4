// What the fake holds and what tests see of it.

export type Json = Record<string, unknown>;

export interface FakeSlackOptions {
  /** Channels to create (the bot is a member unless `botMember: false`); default one public `#general`. */
  channels?: ChannelSpec[];
  /** `msg_too_long` above this many characters of `text` (default 4,000). */
  textLimit?: number;
  /** `msg_blocks_too_long` above this many characters across a message's blocks (default 12,000). */
  blocksCharLimit?: number;
  /** How long a trigger_id opens a form (default 3,000 ms, as Slack). */
  triggerTtlMs?: number;
}

export interface ChannelSpec {
  id?: string;
  name: string;
  /** `channel` public (C…), `group` private (G…). */
  type?: 'channel' | 'group';
  botMember?: boolean;
}

export interface FakeSlackChannel {
  id: string;
  name: string;
  type: 'channel' | 'group' | 'im';
  botMember: boolean;
  /** For a DM (D…): the person on the other side. */
  imUser?: string;
}

export interface FakeSlackFile {
  id: string;
  name: string;
  title: string;
  size: number;
  /** Absent for a size-only file from `userSends` (its download streams that many zero bytes). */
  data?: Buffer;
  mimetype: string;
  /** `${baseUrl}/files-pri/T…-F…/download/<name>`: needs the bot token. */
  urlPrivateDownload: string;
  uploadedBy: string;
}

export interface FakeSlackMessage {
  ts: string;
  channel: string;
  /** The author: a person's id, or the bot user's. */
  user: string;
  fromBot: boolean;
  text: string;
  /** As the bot sent them (live: edits replace them). */
  blocks: Json[];
  threadTs?: string;
  files: FakeSlackFile[];
  /** How many chat.update calls changed it. */
  edits: number;
  deleted: boolean;
  /** Seen only by this person (chat.postEphemeral, an ephemeral response_url reply, a command's ack). */
  ephemeralFor?: string;
  /** How the bot sent it. */
  via: 'person' | 'api' | 'response_url' | 'ack';
}

export interface FakeSlackView {
  id: string;
  type: 'modal' | 'home';
  user: string;
  view: Json;
  /** A modal closes when submitted (and acknowledged without errors). */
  closed: boolean;
}

/** Every Web API call: the method, the HTTP status, Slack's `ok` and `error`, the parameters as parsed. */
export interface FakeCall {
  method: string;
  status: number;
  ok: boolean;
  error?: string;
  params: Json;
  at: number;
}

export interface FakeAck {
  envelopeId: string;
  payload?: Json;
  at: number;
}

export interface FakeDownload {
  fileId: string;
  /** Whether the request carried the bot token. */
  authorized: boolean;
  status: number;
}

export interface SocketStats {
  /** apps.connections.open calls that returned a URL. */
  opens: number;
  /** WebSocket connections accepted. */
  connections: number;
  /** Connections that are open now. */
  open: number;
}

export interface UserSendSpec {
  user: string;
  channel: string;
  text: string;
  threadTs?: string;
  /** Files posted with the words: `data`, or a `size` only (the download then streams zeros). */
  files?: Array<{ name: string; data?: Buffer; size?: number; mimetype?: string; url?: string }>;
}

export interface PressSpec {
  user: string;
  messageTs: string;
  /** Default: the message's channel (searched by ts). */
  channel?: string;
  actionId: string;
  /** Press even when the message does not show that button now. */
  force?: boolean;
  /** Replaces parts of the payload as sent (attacks). */
  tamper?: (payload: Json) => Json;
}

export interface Interaction {
  envelopeId: string;
  triggerId: string;
  responseUrl: string;
}
