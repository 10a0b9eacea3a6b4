import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnAddresses } from '../../src/channels/web/own-addresses.js';
import { rawRequest } from '../support/raw-http.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Property tests for the web server's access decision: which Host and Origin values name this server, and
// which request targets may be answered without the token, however the path is spelled.

const PORT = 7600;
const own = new OwnAddresses({ host: '127.0.0.1', port: PORT, tls: false });
const OWN_HOSTS = [`127.0.0.1:${PORT}`, `localhost:${PORT}`, `[::1]:${PORT}`];

/** Random upper and lower case, as a person or an attacker may type a name. */
const anyCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

/** Strings close to an own host: junk before, after or inside it. */
const nearMisses = fc
  .tuple(fc.constantFrom(...OWN_HOSTS), fc.string(), fc.string(), fc.nat())
  .map(([host, before, after, at]) => {
    const cut = at % (host.length + 1);
    return `${before}${host.slice(0, cut)}${after}${host.slice(cut)}`;
  });

describe('the Host decision', () => {
  it('accepts the loopback names in any case, on any port (a port forwarded to this one)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...OWN_HOSTS).chain(anyCase), (host) => {
        expect(own.isOwnHost(host)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('127.0.0.1', 'localhost', '[::1]'),
        fc.integer({ min: 0, max: 65535 }),
        (name, port) => {
          expect(own.isOwnHost(`${name}:${port}`)).toBe(true);
        },
      ),
    );
  });

  it('accepts a --host that is not loopback on this port only', () => {
    const lan = new OwnAddresses({ host: '192.168.1.20', port: PORT, tls: true });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65535 }), (port) => {
        expect(lan.isOwnHost(`192.168.1.20:${port}`)).toBe(port === PORT);
      }),
    );
  });

  it('refuses every other name: any domain, any address outside loopback, and near misses', () => {
    const domains = fc.domain().filter((d) => d !== 'localhost');
    const addresses = fc.ipV4().filter((ip) => !ip.startsWith('127.'));
    fc.assert(
      fc.property(
        fc.oneof(domains, addresses),
        fc.option(fc.integer({ min: 0, max: 65535 })),
        (name, port) => {
          expect(own.isOwnHost(port === null ? name : `${name}:${port}`)).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(nearMisses, (host) => {
        // A near miss passes only if it is, in the URL parser's normal form, exactly an own host.
        const accepted = own.isOwnHost(host);
        if (accepted) {
          expect(host).toMatch(/^[\w.:[\]-]+$/);
          expect(['127.0.0.1', 'localhost', '[::1]']).toContain(new URL(`http://${host}`).hostname);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the Origin decision', () => {
  it('accepts only the origin the request was made to, in any case, and nothing with more or less in it', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...OWN_HOSTS)
          .chain((host) => anyCase(`http://${host}`).map((origin) => [host, origin])),
        ([host, origin]) => void expect(own.isOwnOrigin(origin, host)).toBe(true),
      ),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...OWN_HOSTS),
        fc.string({ minLength: 1 }),
        fc.boolean(),
        (host, junk, before) => {
          const origin = `http://${host}`;
          const value = before ? `${junk}${origin}` : `${origin}${junk}`;
          if (own.isOwnOrigin(value, host)) expect(new URL(value).origin).toBe(origin);
        },
      ),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.webUrl(), fc.constantFrom(...OWN_HOSTS), (url, host) => {
        if (own.isOwnOrigin(url, host)) expect(new URL(url).host).toBe(host);
      }),
    );
    // A page of another local port is another origin, even though both are loopback.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65535 }), (port) => {
        expect(own.isOwnOrigin(`http://localhost:${port}`, `localhost:${PORT}`)).toBe(port === PORT);
      }),
    );
    expect(own.isOwnOrigin(`https://127.0.0.1:${PORT}`, `127.0.0.1:${PORT}`)).toBe(false);
    expect(own.isOwnOrigin('null', `127.0.0.1:${PORT}`)).toBe(false);
    expect(own.isOwnOrigin(`http://evil.example:${PORT}`, `evil.example:${PORT}`)).toBe(false);
  });
});

describe('the path decision, over the wire', () => {
  let world: WebWorld;
  beforeAll(async () => {
    world = await new WebWorld().start();
    world.store.sessions.create({
      id: 'private-session',
      agent: 'shell',
      cwd: world.dir,
      pid: 1,
      recording: null,
    });
  });
  afterAll(async () => world.close());

  const ROUTES = ['/api/config', '/api/sessions', '/api/prompts', '/api/recordings', '/ws/events'];
  const PUBLIC = ['/', '/index.html', '/app.js'];

  /** Each character of a path kept, or percent-encoded in upper or lower case hex. */
  const spelled = (path: string) =>
    fc
      .array(fc.constantFrom('keep', 'lower', 'upper'), { minLength: path.length, maxLength: path.length })
      .map((how) =>
        [...path]
          .map((c, i) => {
            if (how[i] === 'keep' || c === '/') return c;
            const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
            return `%${how[i] === 'upper' ? hex.toUpperCase() : hex}`;
          })
          .join(''),
      );

  const targets = fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...ROUTES, ...PUBLIC).chain(spelled),
        fc.constantFrom('', 'http://127.0.0.1:PORT', 'HTTP://localhost:PORT', 'http://x'),
        fc.constantFrom('', '?a=1', '?token=nope', '#x', '/', '//', ';'),
      )
      .map(([path, prefix, suffix]) => `${prefix}${path}${suffix}`),
    fc.webPath().map((path) => path || '/'),
    fc.webSegment().map((segment) => `/api/${segment}`),
  );

  /** What the router may match a target to: its path, decoded, for an own (or no) authority. */
  function routedPath(target: string): string | null {
    const absolute = /^http:\/\/([^/]*)(.*)$/i.exec(target);
    const path = (absolute ? absolute[2]! : target).split(/[?#]/)[0]!;
    try {
      return decodeURIComponent(path);
    } catch {
      return null;
    }
  }

  it('answers nothing but the app shell without the token, over HTTP and WebSocket upgrades', async () => {
    await fc.assert(
      fc.asyncProperty(targets, fc.boolean(), async (template, upgrade) => {
        const target = template.replace('PORT', String(world.port));
        const response = await rawRequest(
          world.port,
          [
            `GET ${target} HTTP/1.1`,
            `Host: ${world.host}`,
            `Origin: ${world.url}`,
            ...(upgrade
              ? [
                  'Upgrade: websocket',
                  'Connection: Upgrade',
                  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
                  'Sec-WebSocket-Version: 13',
                ]
              : ['Connection: close']),
          ].join('\r\n'),
        );
        response.socket.destroy();
        expect(response.status, target).not.toBe(101);
        if (response.status < 400) {
          expect(upgrade, target).toBe(false);
          expect(PUBLIC, target).toContain(routedPath(target));
        }
        expect(response.body).not.toContain('private-session');
      }),
      { numRuns: 400 },
    );
  });

  it('answers the same targets with the token, as the router reads them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES.slice(0, 4)).chain(spelled), async (target) => {
        const response = await rawRequest(
          world.port,
          [
            `GET ${target} HTTP/1.1`,
            `Host: ${world.host}`,
            'Connection: close',
            `Authorization: Bearer ${WEB_TOKEN}`,
          ].join('\r\n'),
        );
        expect(response.status, target).toBe(200);
      }),
      { numRuns: 100 },
    );
  });
});
