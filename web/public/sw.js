/* global self, caches, fetch, Response */
// agent-bridge's service worker: keeps the app shell for when the network is away. It never touches /api or
// /ws (live data must not be cached), and the shell is fetched from the network first, so updates show at once.

const BUILD = '__BUILD_ID__'; // replaced by scripts/build-web.mjs
const CACHE = `agent-bridge-shell-${BUILD}`;
const SHELL = [
  '/',
  '/app.js',
  '/styles.css',
  '/xterm.css',
  '/manifest.webmanifest',
  '/icon.svg',
  '/icon-192.png',
  '/icon-512.png',
];

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      // One by one: a file that cannot be fetched (e.g. not signed in yet) must not fail the install.
      .then((cache) => Promise.all(SHELL.map((path) => cache.add(path).catch(() => undefined))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys.filter((k) => k.startsWith('agent-bridge-shell-') && k !== CACHE).map((k) => caches.delete(k)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/api/') || url.pathname.startsWith('/ws/')) return;
  if (request.mode === 'navigate') {
    // The page itself; `/?token=…` (the sign-in redirect) goes to the network and is never stored.
    event.respondWith(networkFirst(request, url.search ? null : '/'));
    return;
  }
  if (SHELL.includes(url.pathname) && !url.search) event.respondWith(networkFirst(request, url.pathname));
});

async function networkFirst(request, key) {
  try {
    const response = await fetch(request);
    if (key && response.ok && response.type === 'basic' && !response.redirected) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(key, copy));
    }
    return response;
  } catch (error) {
    const cached = await caches.match(key ?? '/');
    if (cached) return cached;
    if (request.mode === 'navigate') {
      return new Response('agent-bridge is not reachable right now.', {
        status: 503,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      });
    }
    throw error;
  }
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = (event.notification.data && event.notification.data.url) || '/#/inbox';
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      for (const client of windows) {
        if (new URL(client.url).origin === self.location.origin && 'focus' in client) {
          // The page switches to the inbox itself (a hash change, no reload).
          client.postMessage({ type: 'open', url: target });
          return client.focus();
        }
      }
      return self.clients.openWindow(target);
    }),
  );
});
