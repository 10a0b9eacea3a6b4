/** What the web UI shows of folders and files (API.md): plain data, shared with the browser app. */

export interface FolderEntry {
  name: string;
  type: 'folder' | 'file' | 'link' | 'other';
  /** Bytes, for files. */
  size: number | null;
}

export interface FolderListing {
  /** Relative to the session's folder, '' for the folder itself. */
  path: string;
  entries: FolderEntry[];
  /** More entries than shown. */
  truncated: boolean;
}

export interface TextFile {
  path: string;
  size: number;
  text: string;
}

export interface ChangedFile {
  /** Relative to the session's folder. */
  path: string;
  /** git's two status letters (`M `, ` M`, `??`, `A `, `D `, `R `). */
  status: string;
}

export interface FolderChanges {
  /** The folder is in a git repository. */
  repository: boolean;
  files: ChangedFile[];
  /** `git diff HEAD` of the folder (uncommitted changes, staged or not), as text. */
  diff: string;
  truncated: boolean;
}

export interface PickerFolder {
  path: string;
  name: string;
  git: boolean;
}

export interface FolderSuggestions {
  home: string;
  recent: PickerFolder[];
  repositories: PickerFolder[];
}

export interface SubfolderListing {
  path: string;
  parent: string | null;
  folders: PickerFolder[];
  truncated: boolean;
}

/** A file or folder read, or why not (the HTTP status and a line saying what is wrong). */
export type FileAnswer<T> =
  { ok: true; value: T } | { ok: false; status: 400 | 403 | 404 | 413 | 415; error: string };
