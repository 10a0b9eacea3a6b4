import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../../src/sessions/files/folder-files.js';
import { rawRequest } from '../support/raw-http.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Issue 15: a session's files and changes can be read from the web, read-only and never outside the
// session's folder, whatever the path says: `..`, absolute paths, links that lead out, encoded separators,
// NULs, devices and pipes, huge files. Each attack is sent as an attacker would, with the token (a page of
// ours that was tricked, a script), since without it nothing at all is answered.

let world: WebWorld;
let project: string;
const SECRET = 'the-secret-outside-the-folder';

beforeEach(async () => {
  world = await new WebWorld().start();
  project = path.join(world.dir, 'project');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  writeFileSync(path.join(project, 'src', 'app.ts'), 'export const answer = 42;\n');
  writeFileSync(path.join(world.dir, 'secret.txt'), SECRET);
  mkdirSync(path.join(world.dir, 'outside'));
  writeFileSync(path.join(world.dir, 'outside', 'secret.txt'), SECRET);
  symlinkSync(path.join(world.dir, 'secret.txt'), path.join(project, 'link-out.txt'));
  symlinkSync(path.join(world.dir, 'outside'), path.join(project, 'dir-out'));
  symlinkSync('/etc', path.join(project, 'etc'));
  symlinkSync(path.join(project, 'src', 'app.ts'), path.join(project, 'link-in.ts'));
  world.store.sessions.create({ id: 'sess', agent: 'shell', cwd: project, pid: 1, recording: null });
});
afterEach(async () => world.close());

const file = (p: string) => world.api(`/api/sessions/sess/file?path=${p}`);
const folder = (p: string) => world.api(`/api/sessions/sess/files?path=${p}`);

describe("a session's files from the web", () => {
  it('shows files and folders inside the folder, and a link that stays inside', async () => {
    const listing = (await (await folder('')).json()) as { entries: Array<{ name: string; type: string }> };
    expect(listing.entries.map((e) => e.name)).toEqual(
      expect.arrayContaining(['src', 'link-out.txt', 'dir-out', 'link-in.ts']),
    );
    expect(listing.entries.find((e) => e.name === 'dir-out')?.type).toBe('link');
    expect(await (await file('src/app.ts')).json()).toMatchObject({ text: 'export const answer = 42;\n' });
    expect(await (await file('link-in.ts')).json()).toMatchObject({ path: 'link-in.ts' });
  });

  it('never reads outside it, however the path is written', async () => {
    const attempts = [
      '../secret.txt',
      '..%2Fsecret.txt',
      '%2E%2E%2Fsecret.txt',
      'src/../../secret.txt',
      'src%2F..%2F..%2Fsecret.txt',
      encodeURIComponent(path.join(world.dir, 'secret.txt')),
      '%2Fetc%2Fpasswd',
      'link-out.txt',
      'dir-out/secret.txt',
      'etc/passwd',
      'etc/hostname',
      'src%00/app.ts',
      '..',
      '..%5Csecret.txt',
      'C:%5Cwindows%5Cwin.ini',
    ];
    for (const attempt of attempts) {
      const response = await file(attempt);
      const body = await response.text();
      expect([400, 403, 404], `${attempt}: ${response.status} ${body}`).toContain(response.status);
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain('root:');
    }
    for (const attempt of ['..', '../outside', 'dir-out', 'etc', '%2F', encodeURIComponent(world.dir)]) {
      const response = await folder(attempt);
      const body = await response.text();
      expect([400, 403, 404], `${attempt}: ${response.status} ${body}`).toContain(response.status);
      expect(body).not.toContain('secret.txt');
      expect(body).not.toContain('passwd');
    }
  });

  it('refuses a path given twice, raw path tricks, and no token at all', async () => {
    expect((await world.api('/api/sessions/sess/file?path=src/app.ts&path=../secret.txt')).status).toBe(400);
    const raw = await rawRequest(
      world.port,
      [
        `GET /api/sessions/sess/file?path=..%252Fsecret.txt HTTP/1.1`,
        `Host: 127.0.0.1:${world.port}`,
        `Authorization: Bearer ${WEB_TOKEN}`,
        'Connection: close',
      ].join('\r\n'),
    );
    expect([400, 403, 404]).toContain(raw.status);
    expect(raw.body).not.toContain(SECRET);
    for (const route of [
      '/api/sessions/sess/file?path=src/app.ts',
      '/api/sessions/sess/files',
      '/api/sessions/sess/changes',
      '/api/folders',
      '/api/folders/list?path=%2F',
    ])
      expect((await fetch(`${world.url}${route}`)).status, route).toBe(401);
  });

  it('refuses huge files, binary files, pipes and devices with what they are', async () => {
    writeFileSync(path.join(project, 'big.log'), Buffer.alloc(MAX_FILE_BYTES + 1, 'a'));
    writeFileSync(path.join(project, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    execFileSync('mkfifo', [path.join(project, 'pipe')]);
    symlinkSync('/dev/zero', path.join(project, 'zero'));
    const big = await file('big.log');
    expect(big.status).toBe(413);
    // In units people read; a size just over the limit never reads as the limit itself.
    expect(((await big.json()) as { error: string }).error).toBe(
      'big.log is 1.1 MB: only files up to 1 MB are shown',
    );
    writeFileSync(path.join(project, 'big.txt'), Buffer.alloc(2_701_756, 'a'));
    expect(((await (await file('big.txt')).json()) as { error: string }).error).toBe(
      'big.txt is 2.6 MB: only files up to 1 MB are shown',
    );
    expect((await file('image.png')).status).toBe(415);
    expect((await file('pipe')).status).toBe(415);
    expect((await file('zero')).status).toBe(403);
    expect((await file('src')).status).toBe(415);
  });

  it("shows the folder's changes without running the repository's own commands", async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'pipe' });
    git('init', '-q');
    git('-c', 'user.email=a@b', '-c', 'user.name=a', 'add', 'src/app.ts');
    git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'one');
    const pwned = path.join(world.dir, 'pwned');
    // A repository whose config runs a command on diff and status.
    git('config', 'core.fsmonitor', `touch ${pwned}; false`);
    git('config', 'diff.evil.textconv', `touch ${pwned}; cat`);
    writeFileSync(path.join(project, '.gitattributes'), '*.ts diff=evil\n');
    git('config', 'diff.external', `touch ${pwned}`);
    writeFileSync(path.join(project, 'src', 'app.ts'), 'export const answer = 43;\n');
    const changes = (await (await world.api('/api/sessions/sess/changes')).json()) as {
      repository: boolean;
      files: Array<{ path: string; status: string }>;
      diff: string;
    };
    expect(changes.repository).toBe(true);
    expect(changes.files).toEqual(expect.arrayContaining([{ path: 'src/app.ts', status: ' M' }]));
    expect(changes.diff).toContain('+export const answer = 43;');
    expect(existsSync(pwned)).toBe(false);
    // The repository really is hostile: a plain `git diff` runs its command.
    execFileSync('git', ['diff', 'HEAD'], { cwd: project, stdio: 'pipe' });
    expect(existsSync(pwned)).toBe(true);
  });
});

describe('the folder picker', () => {
  it('lists subfolders only (no files), and refuses a relative path', async () => {
    const listing = (await (
      await world.api(`/api/folders/list?path=${encodeURIComponent(world.dir)}`)
    ).json()) as { folders: Array<{ name: string }> };
    expect(listing.folders.map((f) => f.name)).toEqual(expect.arrayContaining(['project', 'outside']));
    expect(listing.folders.map((f) => f.name)).not.toContain('secret.txt');
    expect((await world.api('/api/folders/list?path=project')).status).toBe(400);
    expect((await world.api('/api/folders/list?path=%2Fno%2Fsuch')).status).toBe(404);
  });

  it('offers the folders sessions ran in', async () => {
    const suggestions = (await (await world.api('/api/folders')).json()) as {
      recent: Array<{ path: string }>;
    };
    expect(suggestions.recent.map((f) => f.path)).toContain(project);
  });
});
