/** One line of `agent-bridge doctor`: what was checked, how it went, and what to do when it did not. */
export interface CheckResult {
  /** A stable name for scripts (`node`, `pty`, `agent:claude`, `channel:telegram`...). */
  id: string;
  /** ok: works; warn: works, but worth a look; fail: agent-bridge cannot do something; skip: not applicable. */
  status: 'ok' | 'warn' | 'fail' | 'skip';
  /** What was found, in one line. */
  detail: string;
  /** What to do about it (warn and fail). */
  fix?: string;
}

export type Check = () => Promise<CheckResult | CheckResult[]>;

/** A check that threw is a failure of that check, said as one line, never a crash of the doctor. */
export async function runCheck(id: string, check: Check): Promise<CheckResult[]> {
  try {
    const result = await check();
    return Array.isArray(result) ? result : [result];
  } catch (error) {
    return [{ id, status: 'fail', detail: (error as Error).message.split('\n')[0] ?? String(error) }];
  }
}

/** Resolves with `fallback` when `promise` takes longer than `ms` (the work itself is left to finish or fail). */
export function within<T>(promise: Promise<T>, ms: number, fallback: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback()), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
