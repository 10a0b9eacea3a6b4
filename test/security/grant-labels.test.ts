import { describe, expect, it } from 'vitest';
import { promptComponents, promptContent } from '../../src/channels/discord/prompt-message.js';
import { promptKeyboard, promptText } from '../../src/channels/telegram/prompt-message.js';
import {
  permissionDecision,
  permissionPromptFromHook,
  type ClaudeHookPayload,
} from '../../src/drivers/hooks/claude-hook-events.js';
import { promptView } from '../../src/sessions/prompt-view.js';
import type { PromptRecord } from '../../src/store/prompt-store.js';

// Issue 12, item 8: a button says what the agent says. The scope of a grant comes from Claude's own
// permission_suggestions, never from a template ("don't ask again this session" understated a rule saved in
// the project, and hid that Claude would also accept every edit).

/** As Claude Code 2.1 sends it for `touch` outside the project folder (agent-facts hooks-run1.jsonl). */
const bash: ClaudeHookPayload = {
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch /home/dev/work/proof2.txt', description: 'Create proof2.txt' },
  tool_use_id: 'toolu_1',
  permission_suggestions: [
    { type: 'addDirectories', directories: ['/home/dev/work'], destination: 'session' },
    { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
  ],
};

function asRecord(payload: ClaudeHookPayload): PromptRecord {
  const prompt = permissionPromptFromHook(payload)!;
  return {
    id: '0f1e2d3c-aaaa-bbbb-cccc-000000000001',
    sessionId: '9a8b7c6d-aaaa-bbbb-cccc-000000000002',
    kind: prompt.kind,
    confidence: prompt.confidence,
    source: 'hook',
    excerpt: prompt.excerpt,
    detail: prompt.detail,
    choices: prompt.choices,
    safeDefault: prompt.safeDefault,
    allowForSessionChoice: prompt.allowForSessionChoice ?? null,
    status: 'awaiting_reply',
    nonce: 'abcdef0123456789abcdef0123456789',
    nonceUsed: false,
    createdAt: 0,
    expiresAt: 1_800_000_000_000,
    updatedAt: 0,
    decidedAt: null,
    decidedBy: null,
    reply: null,
    note: null,
    screenKey: prompt.key,
    multiline: true,
    secret: false,
  };
}

describe("a grant's label is the agent's own", () => {
  it('says every part of what the suggestions grant, and for how long', () => {
    const label = permissionPromptFromHook(bash)!.choices[1]!.label;
    expect(label).toBe(
      'Yes, and allow access to /home/dev/work for this session; and accept every file edit without asking for this session',
    );
  });

  it('says a rule is saved in the project when Claude would save it there', () => {
    const rule: ClaudeHookPayload = {
      ...bash,
      permission_suggestions: [
        {
          type: 'addRules',
          rules: [{ toolName: 'Bash', ruleContent: 'npm test:*' }],
          behavior: 'allow',
          destination: 'localSettings',
        },
      ],
    };
    expect(permissionPromptFromHook(rule)!.choices[1]!.label).toBe(
      'Yes, and always allow Bash(npm test:*) in this project from now on (.claude/settings.local.json)',
    );
  });

  it('offers no grant at all when Claude suggested none, or one it cannot describe', () => {
    for (const suggestions of [undefined, [], [{ type: 'somethingNew', destination: 'session' }]]) {
      const prompt = permissionPromptFromHook({ ...bash, permission_suggestions: suggestions as unknown[] })!;
      expect(prompt.choices.map((c) => c.label)).toEqual(['Yes', 'No']);
      expect(prompt.allowForSessionChoice).toBeUndefined();
      expect(
        permissionDecision(
          { type: 'choice', number: 2 },
          { ...bash, permission_suggestions: suggestions as unknown[] },
          'x',
        ),
      ).toMatchObject({
        hookSpecificOutput: { decision: { behavior: 'deny' } },
      });
    }
  });

  it('applies exactly the suggestions the label describes', () => {
    expect(permissionDecision({ type: 'choice', number: 2 }, bash, 'x')).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow', updatedPermissions: bash.permission_suggestions },
      },
    });
  });

  it('reaches Discord and Telegram in those words: no template label anywhere', () => {
    const view = promptView(asRecord(bash), null);
    const discordLabels = promptComponents(view).flatMap((row) => row.components.map((b) => b.label));
    const telegramLabels = promptKeyboard(view)
      .flat()
      .map((b) => b.text);
    for (const label of [...discordLabels, ...telegramLabels]) {
      expect(label).not.toMatch(/Allow for this session|don't ask again this session/i);
    }
    // Buttons are short; the message spells the options out in full.
    expect(promptContent(view)).toContain('accept every file edit without asking for this session');
    expect(promptText(view, 0)).toContain('accept every file edit without asking for this session');
  });
});
