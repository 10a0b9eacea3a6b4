import type {
  FileAnswer,
  FolderChanges,
  FolderListing,
  FolderSuggestions,
  SubfolderListing,
  TextFile,
} from '../../channels/web/file-views.js';
import type { Store } from '../../store/store.js';
import { folderChanges } from './folder-changes.js';
import { FileAccessError, listFolder, readTextFile } from './folder-files.js';
import { folderSuggestions, listSubfolders } from './folder-picker.js';

/** The web UI's read-only views of folders: a session's files and changes, and folders to start agents in. */
export class SessionFiles {
  constructor(private readonly store: Pick<Store, 'sessions'>) {}

  folders(): Promise<FolderSuggestions> {
    return folderSuggestions(this.store.sessions.list({ all: true }).map((session) => session.cwd));
  }

  subfolders(path: unknown): Promise<FileAnswer<SubfolderListing>> {
    return answer(() => listSubfolders(path));
  }

  folder(id: string, path: unknown): Promise<FileAnswer<FolderListing>> {
    return answer(() => listFolder(this.root(id), path));
  }

  file(id: string, path: unknown): Promise<FileAnswer<TextFile>> {
    return answer(() => readTextFile(this.root(id), path));
  }

  changes(id: string): Promise<FileAnswer<FolderChanges>> {
    return answer(() => folderChanges(this.root(id)));
  }

  /** The folder the session runs (or ran) in: the only place its file views may read. */
  private root(id: string): string {
    const session = this.store.sessions.get(id);
    if (!session) throw new FileAccessError(404, 'no such session');
    return session.cwd;
  }
}

async function answer<T>(read: () => Promise<T>): Promise<FileAnswer<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    if (error instanceof FileAccessError) return { ok: false, status: error.status, error: error.message };
    // Anything else (a folder that cannot be read): said, never a stack.
    const code = (error as NodeJS.ErrnoException).code;
    const status = code === 'ENOENT' ? 404 : code === 'EACCES' || code === 'EPERM' ? 403 : 400;
    return { ok: false, status, error: `cannot read it (${code ?? 'error'})` };
  }
}
