import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** A git failure as one line that says what to fix; `stderr` keeps git's own words for callers that match. */
export class GitWorktreeError extends Error {
  constructor(
    message: string,
    readonly stderr = '',
  ) {
    super(message);
    this.name = 'GitWorktreeError';
  }
}

/**
 * Environment for every git call: never prompt for credentials (we run unattended), English messages so the
 * few we recognise stay recognisable, and no optional locks so our `git status` never fights the agent's own
 * git commands over index.lock in the same worktree.
 */
function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', LANGUAGE: 'C' };
}

interface ExecFailure {
  code?: number | string;
  stderr?: string;
  message?: string;
}

/** Runs `git <args>` in `cwd` (no shell) and returns stdout; failures become a GitWorktreeError. */
export async function runGit(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync('git', args, {
      cwd,
      env: gitEnv(),
      maxBuffer: 64 * 1024 * 1024,
      encoding: 'utf8',
    });
    return stdout;
  } catch (error) {
    throw describeGitFailure(cwd, args, error as ExecFailure);
  }
}

/** Like runGit, but a non-zero exit is an answer (e.g. "no such ref"), returned as null. */
export async function tryGit(cwd: string, args: string[]): Promise<string | null> {
  try {
    return await runGit(cwd, args);
  } catch (error) {
    if (error instanceof GitWorktreeError && error.message.startsWith('git is not installed')) throw error;
    return null;
  }
}

function describeGitFailure(cwd: string, args: string[], failure: ExecFailure): GitWorktreeError {
  const stderr = (failure.stderr ?? '').trim();
  if (failure.code === 'ENOENT' && !stderr) {
    // execFile reports both a missing binary and a missing cwd as ENOENT.
    return new GitWorktreeError(
      `git is not installed or ${cwd} does not exist: install git, check the folder, or set isolation: none`,
    );
  }
  if (/not a git repository/i.test(stderr)) {
    return new GitWorktreeError(
      `${cwd} is not a git repository: run git init there or set isolation: none`,
      stderr,
    );
  }
  const firstLine = firstMeaningfulLine(stderr) ?? failure.message ?? 'unknown error';
  return new GitWorktreeError(`git ${args.join(' ')} failed in ${cwd}: ${firstLine}`, stderr);
}

/** git prefixes its messages with "fatal: " / "error: " and sometimes adds hint lines; keep the gist. */
function firstMeaningfulLine(stderr: string): string | undefined {
  const line = stderr
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('hint:'));
  return line?.replace(/^(fatal|error|warning): /, '');
}
