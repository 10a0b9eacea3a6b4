import { isScalar, parseDocument, visit } from 'yaml';
import { REDACTED, redactSecrets } from '../../core/redact.js';

/** Names of settings and variables whose values are secrets. */
const SECRET_NAME = /token|secret|passw|(^|_)pass$|(^|_)pwd$|api[_-]?key|_key$|auth|credential|cookie/i;
/** Names that look like a secret's but hold a folder (the shell's working directory). */
const NOT_SECRET = new Set(['PWD', 'OLDPWD']);
const isSecretName = (name: string) => SECRET_NAME.test(name) && !NOT_SECRET.has(name);

/** The shortest value treated as a known secret: shorter ones would blank ordinary words. */
const MIN_SECRET_LENGTH = 8;

/**
 * Hides secrets in everything a debug bundle holds: the values agent-bridge knows are secret (config tokens,
 * secret-looking environment variables, the web token) wherever they appear, then the generic rules.
 */
export class SecretScrubber {
  private readonly known = new Set<string>();

  addKnown(value: string | undefined | null): void {
    const trimmed = value?.trim();
    if (trimmed && trimmed.length >= MIN_SECRET_LENGTH) this.known.add(trimmed);
  }

  /** Secret-looking variables of an environment, by name. */
  addEnvironment(env: NodeJS.ProcessEnv): void {
    for (const [name, value] of Object.entries(env)) if (isSecretName(name)) this.addKnown(value);
  }

  scrub(text: string): string {
    let result = text;
    // Longest first, so a secret that contains another is hidden whole.
    for (const secret of [...this.known].sort((a, b) => b.length - a.length))
      result = result.split(secret).join(REDACTED);
    return redactSecrets(result);
  }

  /**
   * A config file as YAML, with every value under a secret-looking key replaced (`${VAR}` references stay:
   * they name a variable, not its value), comments and layout kept; the values found are remembered.
   */
  scrubConfig(text: string): string {
    const doc = parseDocument(text);
    visit(doc, {
      Pair: (_, pair) => {
        if (!isScalar(pair.key) || !isSecretName(String(pair.key.value))) return;
        if (!isScalar(pair.value)) return;
        const value = String(pair.value.value ?? '');
        if (/^\$\{\w+\}$/.test(value)) return;
        this.addKnown(value);
        pair.value.value = REDACTED;
      },
    });
    return this.scrub(doc.toString());
  }

  /** Which variables to show: names only for secret ones, values (scrubbed) for the rest that matter. */
  environmentReport(env: NodeJS.ProcessEnv): string {
    const relevant =
      /^(AGENT_BRIDGE_|ANTHROPIC_|OPENAI_|GEMINI_|CLAUDE_|CODEX_|DISCORD_|TELEGRAM_|SLACK_|NODE_|npm_config_)|^(PATH|SHELL|TERM|LANG|LC_ALL|HOME|USER|TMPDIR|XDG_\w+)$/;
    return Object.keys(env)
      .filter((name) => relevant.test(name) || isSecretName(name))
      .sort()
      .map((name) =>
        isSecretName(name) ? `${name} is set (hidden)` : `${name}=${this.scrub(env[name] ?? '')}`,
      )
      .join('\n');
  }
}
