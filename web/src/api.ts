import type {
  AppConfig,
  MessageResult,
  FolderChanges,
  FolderListing,
  FolderSuggestions,
  Prompt,
  Recording,
  Session,
  SubfolderListing,
  TextFile,
} from './types.js';

/** An answer other than 2xx, with the server's `{ error }` when it gave one. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type AuthListener = () => void;
const authListeners = new Set<AuthListener>();

/** Called when the server says 401: the cookie is missing or stale. */
export function onUnauthorized(listener: AuthListener): void {
  authListeners.add(listener);
}

async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', cache: 'no-store' };
  // No body (and so no JSON content type) on bodiless POSTs: a JSON content type with an empty body is a 400.
  if (body !== undefined) {
    init.headers = { 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'no answer from the server (is `agent-bridge serve` running?)');
  }
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!response.ok) {
    if (response.status === 401) for (const listener of authListeners) listener();
    throw new ApiError(response.status, errorMessage(data) ?? `${response.status} ${response.statusText}`);
  }
  return data as T;
}

function errorMessage(data: unknown): string | null {
  if (data && typeof data === 'object' && 'error' in data && typeof data.error === 'string')
    return data.error;
  if (typeof data === 'string' && data.trim() && data.length < 300) return data.trim();
  return null;
}

const seg = encodeURIComponent;

export const api = {
  config: () => request<AppConfig>('GET', '/api/config'),
  sessions: () => request<Session[]>('GET', '/api/sessions'),
  start: (agent: string, cwd: string, args: string[], node?: string) =>
    request<Session>('POST', '/api/sessions', {
      agent,
      cwd,
      ...(args.length > 0 ? { args } : {}),
      ...(node ? { node } : {}),
    }),
  stop: (id: string) => request<{ ok: true }>('POST', `/api/sessions/${seg(id)}/stop`),
  restart: (id: string) => request<Session>('POST', `/api/sessions/${seg(id)}/restart`),
  resume: (id: string) => request<Session>('POST', `/api/sessions/${seg(id)}/resume`),
  rename: (id: string, name: string | null) =>
    request<{ ok: true; name: string | null }>('POST', `/api/sessions/${seg(id)}/name`, { name }),
  folders: () => request<FolderSuggestions>('GET', '/api/folders'),
  subfolders: (path: string) => request<SubfolderListing>('GET', `/api/folders/list?path=${seg(path)}`),
  files: (id: string, path: string) =>
    request<FolderListing>('GET', `/api/sessions/${seg(id)}/files?path=${seg(path)}`),
  file: (id: string, path: string) =>
    request<TextFile>('GET', `/api/sessions/${seg(id)}/file?path=${seg(path)}`),
  changes: (id: string) => request<FolderChanges>('GET', `/api/sessions/${seg(id)}/changes`),
  sendMessage: (id: string, text: string) =>
    request<Extract<MessageResult, { ok: true }>>('POST', `/api/sessions/${seg(id)}/message`, { text }),
  prompts: () => request<Prompt[]>('GET', '/api/prompts'),
  answer: (id: string, answer: string) =>
    request<{ ok: true; summary: string; queued?: boolean; node?: string }>(
      'POST',
      `/api/prompts/${seg(id)}/answer`,
      { answer },
    ),
  recordings: () => request<Recording[]>('GET', '/api/recordings'),
  async recording(id: string): Promise<string> {
    const response = await fetch(`/api/recordings/${seg(id)}`, { credentials: 'same-origin' });
    if (!response.ok) {
      if (response.status === 401) for (const listener of authListeners) listener();
      throw new ApiError(
        response.status,
        response.status === 404 ? 'recording not found' : response.statusText,
      );
    }
    return response.text();
  },
};

/** The same-origin WebSocket URL for a path. */
export function wsUrl(path: string): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${path}`;
}
