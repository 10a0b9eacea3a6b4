/** Hash routes: #/, #/inbox, #/recordings, #/recordings/<id>, #/session/<id>. */

export type Route =
  | { name: 'dashboard' }
  | { name: 'inbox' }
  | { name: 'recordings' }
  | { name: 'recording'; id: string }
  | { name: 'session'; id: string };

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
  const [head, id] = parts;
  if (head === 'inbox') return { name: 'inbox' };
  if (head === 'recordings') return id ? { name: 'recording', id } : { name: 'recordings' };
  if (head === 'session' && id) return { name: 'session', id };
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
  }
}

export function go(route: Route): void {
  location.hash = href(route);
}
