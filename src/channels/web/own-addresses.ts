import { hostname, networkInterfaces } from 'node:os';

/** The names a browser on this machine uses for a loopback server: a DNS name can be rebound, these cannot. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
/** Listening on every address: the machine's own addresses and name are then ways to reach it. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);
/** host or [ipv6], then an optional port: nothing else (no user, path, or stray characters). */
const HOST_HEADER = /^(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i;

export interface ListenAddress {
  /** The --host given (127.0.0.1 by default). */
  host: string;
  /** The port actually listened on (after port 0 was given a real one). */
  port: number;
  tls: boolean;
}

/**
 * The Host and Origin values that name this server: what a request must carry to be for us (DNS rebinding:
 * a page whose name resolves to 127.0.0.1 still says its own name) and from us (cross-origin writes).
 * Values are compared in the form the WHATWG URL parser gives them (case, default port, IPv4 forms).
 */
export class OwnAddresses {
  readonly scheme: 'http' | 'https';
  /** Names this server answers to on its own port: the --host given, and on a wildcard the machine's names. */
  private readonly hosts: Set<string>;
  /** Loopback names, on any port: `ssh -L 8080:127.0.0.1:7600` brings the browser here as localhost:8080. */
  private readonly loopback: Set<string>;

  constructor(listen: ListenAddress) {
    this.scheme = listen.tls ? 'https' : 'http';
    const names = [bracketed(listen.host), ...(WILDCARD_HOSTS.has(listen.host) ? machineNames() : [])];
    this.hosts = new Set();
    for (const name of [...LOOPBACK_NAMES, ...names]) {
      const host = this.normalHost(`${name}:${listen.port}`);
      if (host) this.hosts.add(host);
    }
    this.loopback = new Set(LOOPBACK_NAMES.map((name) => this.hostname(name)!));
  }

  /**
   * A Host header (or an absolute-form request target's authority) that names this server: a loopback name on
   * any port (a forwarded port), or one of its other names on its own port. A DNS name other than these is
   * refused whatever it resolves to (DNS rebinding).
   */
  isOwnHost(value: string | undefined): boolean {
    const host = value === undefined ? null : this.normalHost(value);
    if (host === null) return false;
    return this.hosts.has(host) || this.loopback.has(this.hostname(host) ?? '');
  }

  /**
   * An Origin header that is the origin the request was made to: this server's name as the request's own Host
   * gives it (scheme, host and port), so a page of another local port is a foreign origin.
   */
  isOwnOrigin(value: string | undefined, requestHost: string | undefined): boolean {
    if (value === undefined || requestHost === undefined || !this.isOwnHost(requestHost)) return false;
    const match = /^(https?):\/\/([^/?#]*)$/i.exec(value);
    if (!match || match[1]!.toLowerCase() !== this.scheme) return false;
    const host = this.normalHost(match[2]!);
    return host !== null && host === this.normalHost(requestHost);
  }

  /** The origins this server accepts on its own port, for messages. */
  ownOrigins(): string[] {
    return [...this.hosts].map((host) => `${this.scheme}://${host}`);
  }

  private hostname(host: string): string | null {
    try {
      return new URL(`${this.scheme}://${host}`).hostname;
    } catch {
      return null;
    }
  }

  private normalHost(value: string): string | null {
    if (!HOST_HEADER.test(value)) return null;
    try {
      return new URL(`${this.scheme}://${value}`).host;
    } catch {
      return null;
    }
  }
}

/**
 * The authority of an absolute-form request target (`GET http://x/api HTTP/1.1`), which HTTP says replaces the
 * Host header; undefined for the usual origin-form (`/api`). An unparsable one is returned as '' (names nothing).
 */
export function requestTargetAuthority(rawUrl: string): string | undefined {
  if (rawUrl.startsWith('/')) return undefined;
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(rawUrl);
  return match?.[1] ?? '';
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function machineNames(): string[] {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .flatMap((info) => (info ? [bracketed(info.address)] : []));
  return [hostname().toLowerCase(), ...addresses];
}
