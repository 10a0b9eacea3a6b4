/**
 * Hides things that look like secrets before text leaves the machine or reaches a log: API keys and tokens of
 * the common providers, bearer tokens, key=value secrets, private key blocks and long random strings.
 */
const PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bxapp-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\b\d{8,10}:[A-Za-z0-9_-]{30,}\b/g, // Telegram bot token
  /\b[MN][A-Za-z\d]{23,}\.[\w-]{6}\.[\w-]{27,}\b/g, // Discord bot token
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWT
  /\b[A-Fa-f0-9]{40,}\b/g,
];

const ASSIGNMENT =
  /\b((?:api[_-]?key|secret|token|password|passwd|pwd|auth|credential)s?["']?\s*[:=]\s*["']?)([^\s"']{4,})/gi;
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g;

export const REDACTED = '[redacted]';

export function redactSecrets(text: string): string {
  let result = text.replace(BEARER, `$1${REDACTED}`).replace(ASSIGNMENT, `$1${REDACTED}`);
  for (const pattern of PATTERNS) result = result.replace(pattern, REDACTED);
  return result;
}
