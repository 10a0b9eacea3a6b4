/**
 * Claude Code's `permission_suggestions` (in a PermissionRequest hook, or a `can_use_tool` request), said in
 * words: what the grant allows, where it is saved and for how long. A button that applies them says exactly
 * this, never a template ("don't ask again this session" would understate a rule saved in the project).
 * Null when any suggestion is of a shape we cannot describe: then it is not offered at all.
 */
export function describeSuggestions(suggestions: unknown): string | null {
  if (!Array.isArray(suggestions) || suggestions.length === 0) return null;
  const phrases: string[] = [];
  for (const suggestion of suggestions) {
    const phrase = describeOne(suggestion);
    if (!phrase) return null;
    phrases.push(phrase);
  }
  return phrases.join('; and ');
}

const WHERE: Record<string, string> = {
  session: 'for this session',
  cliArg: 'for this run',
  localSettings: 'in this project from now on (.claude/settings.local.json)',
  projectSettings: 'in this project from now on, for everyone (.claude/settings.json)',
  userSettings: 'in all your projects from now on (~/.claude/settings.json)',
};

const MODES: Record<string, string> = {
  acceptEdits: 'accept every file edit without asking',
  plan: 'switch to plan mode',
  bypassPermissions: 'stop asking for any permission',
  default: 'ask for permissions as usual',
  dontAsk: 'deny whatever is not already allowed, without asking',
};

function describeOne(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const suggestion = value as Record<string, unknown>;
  const where = typeof suggestion.destination === 'string' ? WHERE[suggestion.destination] : undefined;
  if (!where) return null;
  switch (suggestion.type) {
    case 'addRules': {
      const rules = ruleList(suggestion.rules);
      const behavior = suggestion.behavior;
      if (!rules || (behavior !== 'allow' && behavior !== 'deny' && behavior !== 'ask')) return null;
      const verb =
        behavior === 'allow' ? 'always allow' : behavior === 'deny' ? 'always deny' : 'always ask for';
      return `${verb} ${rules} ${where}`;
    }
    case 'addDirectories': {
      const dirs = stringList(suggestion.directories);
      return dirs ? `allow access to ${dirs} ${where}` : null;
    }
    case 'setMode': {
      const mode = typeof suggestion.mode === 'string' ? MODES[suggestion.mode] : undefined;
      return mode ? `${mode} ${where}` : null;
    }
    default:
      return null;
  }
}

function ruleList(value: unknown): string | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const rules: string[] = [];
  for (const rule of value) {
    if (!rule || typeof rule !== 'object') return null;
    const { toolName, ruleContent } = rule as Record<string, unknown>;
    if (typeof toolName !== 'string' || (ruleContent !== undefined && typeof ruleContent !== 'string'))
      return null;
    rules.push(ruleContent ? `${toolName}(${ruleContent})` : `every ${toolName} call`);
  }
  return rules.join(', ');
}

function stringList(value: unknown): string | null {
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string')) return null;
  return value.join(', ');
}
