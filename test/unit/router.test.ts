import { describe, expect, it } from 'vitest';
import { BRIDGE_COMMANDS, isBridgeCommand, routeMessage, type Route } from '../../src/core/router.js';

const bridge = (command: string, args = ''): Route => ({ type: 'bridge', command, args }) as Route;
const agent = (text: string): Route => ({ type: 'agent', text });

describe('routeMessage', () => {
  it.each([
    // seed 000's bridge commands
    ['/status', bridge('status')],
    ['/cancel', bridge('cancel')],
    ['/restart', bridge('restart')],
    ['/help', bridge('help')],
    ['/select my-repo', bridge('select', 'my-repo')],
    // agent-bridge's chat commands
    ['/sessions', bridge('sessions')],
    ['/switch 3f2a', bridge('switch', '3f2a')],
    ['/approvals', bridge('approvals')],
    ['/worktrees', bridge('worktrees')],
    // forms
    ['/STATUS', bridge('status')],
    ['  /select   spaced repo  ', bridge('select', 'spaced repo')],
    ['/select\nline one\nline two', bridge('select', 'line one\nline two')],
    ['/status@agent_bridge_bot', bridge('status')],
    ['/switch@agent_bridge_bot 3f2a', bridge('switch', '3f2a')],
  ])('%j is a bridge command', (text, expected) => {
    expect(routeMessage(text)).toEqual(expected);
  });

  it.each([
    // plain text, exactly as typed
    ['fix the bug', 'fix the bug'],
    ['  indented text\n', '  indented text\n'],
    ['', ''],
    // the agent's own slash commands pass through unchanged
    ['/unknown x', '/unknown x'],
    ['/compact', '/compact'],
    ['/review-pr 12', '/review-pr 12'],
    ['/plugin:skill arg', '/plugin:skill arg'],
    ['/statusline on', '/statusline on'],
    ['/statuses', '/statuses'],
    // ... without a Telegram mention the agent would not understand
    ['/compact@agent_bridge_bot now', '/compact now'],
    // not commands at all
    ['/', '/'],
    ['/ hello', '/ hello'],
    ['/home/me/notes.txt is the file', '/home/me/notes.txt is the file'],
    ['what does /status do?', 'what does /status do?'],
    // skills: ! becomes /
    ['!commit', '/commit'],
    ['!review-pr 42 carefully', '/review-pr 42 carefully'],
    ['  !commit  ', '/commit'],
    ['!status', '/status'],
    // ! alone, !!, and ! with a space
    ['!', '!'],
    ['!!', '!'],
    ['!!ls -la', '!ls -la'],
    ['! not a skill', '! not a skill'],
    ['hello!', 'hello!'],
  ])('%j goes to the agent as %j', (text, expected) => {
    expect(routeMessage(text)).toEqual(agent(expected));
  });

  it('lists every bridge command and only those', () => {
    expect([...BRIDGE_COMMANDS].sort()).toEqual(
      [
        'approvals',
        'cancel',
        'help',
        'restart',
        'select',
        'sessions',
        'status',
        'switch',
        'worktrees',
      ].sort(),
    );
    expect(isBridgeCommand('status')).toBe(true);
    expect(isBridgeCommand('compact')).toBe(false);
    for (const command of BRIDGE_COMMANDS) expect(routeMessage(`/${command}`)).toEqual(bridge(command));
  });
});
