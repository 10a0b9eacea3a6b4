import { createRequire } from 'node:module';
import http from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeAnthropic } from './test/fakes/anthropic/server.js';
import { prepareClaudeHome, claudeBinary } from './test/support/claude-env.js';
const require = createRequire(import.meta.url);
const pty = require('node-pty');
const fake = await startFakeAnthropic();
const now = Math.floor(Date.now() / 1000);
const log: string[] = [];
const proxy = http.createServer((req, res) => {
  log.push(`${req.method} ${req.url}`);
  const up = http.request(fake.url + req.url, { method: req.method, headers: req.headers }, (r) => {
    const h = { ...r.headers, 'anthropic-ratelimit-unified-5h-utilization': '0.45', 'anthropic-ratelimit-unified-5h-reset': String(now + 9000), 'anthropic-ratelimit-unified-7d-utilization': '0.12', 'anthropic-ratelimit-unified-7d-reset': String(now + 443000), 'anthropic-ratelimit-unified-status': 'allowed' };
    res.writeHead(r.statusCode ?? 500, h);
    r.pipe(res);
  });
  req.pipe(up);
});
await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
const cwd = mkdtempSync(path.join(tmpdir(), 'probe-proj-'));
const home = await prepareClaudeHome({ baseUrl: url, cwd });
const env = { ...home.env };


const settings = path.join(cwd, '..', 'probe-settings.json');
writeFileSync(settings, process.env.NOSL ? '{}' : JSON.stringify({ statusLine: { type: 'command', command: '/tmp/probe/dump.sh' } }));
const p = pty.spawn(claudeBinary(), process.env.NOARG ? [] : ['--settings', settings], { cwd, env, cols: 120, rows: 40 });
let out = '';
p.onData((d: string) => (out += d));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
await sleep(5000);
p.write('hello');
await sleep(300);
p.write('\r');
await sleep(6000);
console.log(log.join('\n'));
console.log(out.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, ''));
p.kill();
await fake.close();
proxy.close();
await home.cleanup();
process.exit(0);
