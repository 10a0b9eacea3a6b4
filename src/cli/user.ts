import { userInfo } from 'node:os';

/** Who is at this terminal, for the audit trail. */
export function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}
