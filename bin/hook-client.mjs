#!/usr/bin/env node
// Claude Code runs this for each hook event: it forwards the event (stdin, JSON) to the session's host (over
// HTTP on the host's unix socket, which outlives any agent-bridge process) and prints the answer. It never
// blocks Claude when the host is gone: no answer, exit 0, and Claude carries on as if there were no hook. Kept
// dependency-free: it starts on every tool call.
// It is also Claude's statusLine command (event "StatusLine"), which reports the model, context and limits.
import http from 'node:http';

const event = process.argv[2] ?? 'unknown';
const socketPath = process.env.AGENT_BRIDGE_HOOK_SOCKET;
const token = process.env.AGENT_BRIDGE_HOOK_TOKEN;
const statusLine = event === 'StatusLine';
// Claude shows the status line's output in place of its own "? for shortcuts" hint, which it drops once a
// status line is configured (even an empty one): show that hint, so the screen looks as it does without us.
if (statusLine) process.stdout.write('? for shortcuts\n');

const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  if (!socketPath || !token) process.exit(0);
  const body = Buffer.concat(chunks);
  const path = `/hooks/${encodeURIComponent(event)}`;
  const request = http.request(
    {
      socketPath,
      path,
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': body.length,
      },
    },
    (response) => {
      const answer = [];
      response.on('data', (chunk) => answer.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(answer).toString('utf8');
        if (response.statusCode === 200 && text.trim() && !statusLine) process.stdout.write(text);
        process.exit(0);
      });
    },
  );
  request.on('error', () => process.exit(0));
  request.end(body);
});
