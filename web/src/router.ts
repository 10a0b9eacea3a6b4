/**
 * Hash routes: #/, #/inbox, #/recordings, #/recordings/<id>, #/session/<id> (its terminal),
 * #/session/<id>/conversation (a structured session), #/session/<id>/files.
 */

export type Route =
  | { name: 'dashboard' }
  | { name: 'inbox' }
  | { name: 'recordings' }
  | { name: 'recording'; id: string }
  | { name: 'session'; id: string }
  | { name: 'conversation'; id: string }
  | { name: 'files'; id: string };

export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
  const [head, id, tail] = parts;
  if (head === 'inbox') return { name: 'inbox' };
  if (head === 'recordings') return id ? { name: 'recording', id } : { name: 'recordings' };
  if (head === 'session' && id) {
    if (tail === 'files') return { name: 'files', id };
    return tail === 'conversation' ? { name: 'conversation', id } : { name: 'session', id };
  }
  return { name: 'dashboard' };
}

export function href(route: Route): string {
  switch (route.name) {
    case 'dashboard':
      return '#/';
    case 'inbox':
      return '#/inbox';
    case 'recordings':
      return '#/recordings';
    case 'recording':
      return `#/recordings/${encodeURIComponent(route.id)}`;
    case 'session':
      return `#/session/${encodeURIComponent(route.id)}`;
    case 'conversation':
      return `#/session/${encodeURIComponent(route.id)}/conversation`;
    case 'files':
      return `#/session/${encodeURIComponent(route.id)}/files`;
  }
}

export function go(route: Route): void {
  location.hash = href(route);
}

/** Where a session is shown: its conversation (a structured session), else its terminal. */
export function sessionRoute(session: { id: string; conversation: boolean; live: boolean }): Route {
  return session.conversation && !session.live
    ? { name: 'conversation', id: session.id }
    : { name: 'session', id: session.id };
}
