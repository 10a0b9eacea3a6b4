/** Folders the person started agents in, offered again in the folder fields. */

const KEY = 'agent-bridge.folders';
const MAX = 8;

function stored(): string[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberFolder(folder: string): void {
  if (!folder) return;
  const next = [folder, ...stored().filter((f) => f !== folder)].slice(0, MAX);
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // storage full or disabled: only the suggestions suffer
  }
}

/** The remembered folders first, then the others given, without duplicates. */
export function recentFolders(others: Array<string | undefined>): string[] {
  const all = [...stored(), ...others].filter((f): f is string => !!f);
  return [...new Set(all)].slice(0, MAX * 2);
}
