import type { PromptView } from '../../src/channels/view-types.js';

/** A permission prompt as channels show it (Claude's three options, No with a reason), for message tests. */
export function samplePromptView(overrides: Partial<PromptView> = {}): PromptView {
  return {
    promptId: '0f1e2d3c-aaaa-bbbb-cccc-000000000001',
    sessionId: '9a8b7c6d-aaaa-bbbb-cccc-000000000002',
    nonce: 'abcdef0123456789abcdef0123456789',
    kind: 'permission',
    confidence: 'exact',
    excerpt: 'Bash: touch x',
    detail: 'Bash\n\ntouch x',
    choices: [
      { number: 1, label: 'Yes' },
      { number: 2, label: "Yes, and don't ask again this session" },
      { number: 3, label: 'No' },
    ],
    allowForSessionChoice: 2,
    textChoice: 3,
    safeDefault: '3. No',
    expiresAt: 1_800_000_000_000,
    origin: { host: 'box', agent: 'claude', label: 'proj', cwd: '/p' },
    ...overrides,
  };
}
