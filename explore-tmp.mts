import { mkdtempSync, readFileSync } from 'node:fs';
import { TmuxSession, lastNonEmptyLine } from './test/support/tmux.ts';
import { startFakeAnthropic } from './test/fakes/anthropic/server.ts';
import { prepareClaudeHome, claudeBinary } from './test/support/claude-env.ts';
for (const flag of ['', ' --no-auto-trust']) {
const cwd = mkdtempSync('/tmp/abc-cwd-');
const fake = await startFakeAnthropic();
const ch = await prepareClaudeHome({ baseUrl: fake.url, cwd, trust: false });
const t = await TmuxSession.start({ command: ['bash', '--norc', '--noprofile'], cols: 120, rows: 40, cwd, env: { ...ch.env, PS1: 'outer> ', HISTFILE: '', AGENT_BRIDGE_HOME: cwd + '-data', AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() } });
const at = (n: string) => t.waitFor((s) => lastNonEmptyLine(s).endsWith(n + '>'));
try {
await at('outer');
await t.typeLine('node /work/main/bin/agent-bridge.js run claude' + flag);
const s = Date.now();
await t.waitFor(/Yes, I trust this folder|\? for shortcuts/, {timeoutMs: 20000});
console.log(flag, Date.now() - s, (await t.capture()).trim().split('\n').slice(-12).join('\n'));
await new Promise((r) => setTimeout(r, 3000));
console.log(flag, (await t.capture()).trim().split('\n').slice(-6).join('\n'));
console.log(JSON.stringify(JSON.parse(readFileSync(ch.home + '/.claude.json', 'utf8')).projects));
} finally { await t.kill(); await fake.close(); await ch.cleanup(); }
}
