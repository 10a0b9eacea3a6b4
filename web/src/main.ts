import { onUnauthorized } from './api.js';
import { h, replace } from './dom.js';
import { connectEvents } from './events.js';
import { ago, timeLeft } from './format.js';
import { go, parseRoute, type Route } from './router.js';
import { store } from './store.js';
import { dashboardView } from './views/dashboard.js';
import { inboxView } from './views/inbox.js';
import { playerView } from './views/player-view.js';
import { recordingsView } from './views/recordings.js';
import { filesView } from './views/files.js';
import { conversationView } from './views/conversation.js';
import { sessionView } from './views/session.js';
import { initToasts, keepPromptNotices, setNoticeContext } from './toast.js';

/** The app: a top bar (three views and the inbox badge), the current view, and the live event feed. */

type Cleanup = () => void;

const badge = h('span', { class: 'badge', 'data-testid': 'inbox-badge', 'aria-label': '0 waiting' }, ['0']);
const dot = h('span', { class: 'live-dot', 'data-testid': 'live-dot', role: 'img', 'aria-label': 'offline' });
const banner = h('div', { class: 'banner', role: 'alert', hidden: true });
const main = h('main', { id: 'view', tabindex: -1 });
const skip = h('a', { class: 'skip-link', href: '#view' }, ['Skip to content']);
const navLinks: Record<'dashboard' | 'inbox' | 'recordings', HTMLAnchorElement> = {
  dashboard: h('a', { href: '#/', 'data-testid': 'nav-dashboard' }, ['Dashboard']),
  inbox: h('a', { href: '#/inbox', 'data-testid': 'nav-inbox' }, ['Inbox ', badge]),
  recordings: h('a', { href: '#/recordings', 'data-testid': 'nav-recordings' }, ['Recordings']),
};

function shell(): void {
  const root = document.getElementById('app') ?? document.body;
  replace(root, [
    skip,
    h('header', { class: 'topbar' }, [
      h('a', { class: 'brand', href: '#/', 'aria-label': 'agent-bridge home' }, [
        h('img', { src: '/icon.svg', alt: '', width: 28, height: 28 }),
        h('span', { class: 'brand-name' }, ['agent-bridge']),
      ]),
      h('nav', { 'aria-label': 'Views' }, [navLinks.dashboard, navLinks.inbox, navLinks.recordings]),
      dot,
    ]),
    banner,
  ]);
  initToasts(root, () => go({ name: 'inbox' }));
  root.appendChild(main);
  // The skip link moves focus without changing the route.
  skip.addEventListener('click', (event) => {
    event.preventDefault();
    main.focus();
  });
}

let cleanup: Cleanup | null = null;
let shown = false;

function show(route: Route): void {
  cleanup?.();
  cleanup = null;
  document.title = 'agent-bridge';
  const section =
    route.name === 'recording'
      ? 'recordings'
      : route.name === 'session' || route.name === 'conversation' || route.name === 'files'
        ? 'dashboard'
        : route.name;
  // A session's own page shows its prompts already (the terminal's strip, the conversation's cards).
  const shownHere = route.name === 'session' || route.name === 'conversation' ? route.id : null;
  setNoticeContext({ inbox: route.name === 'inbox', sessionId: shownHere });
  for (const [name, link] of Object.entries(navLinks)) {
    if (name === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  switch (route.name) {
    case 'dashboard':
      cleanup = dashboardView(main);
      break;
    case 'inbox':
      cleanup = inboxView(main);
      break;
    case 'recordings':
      cleanup = recordingsView(main);
      break;
    case 'recording':
      cleanup = playerView(main, route.id);
      break;
    case 'session':
      cleanup = sessionView(main, route.id);
      break;
    case 'conversation':
      cleanup = conversationView(main, route.id);
      break;
    case 'files':
      cleanup = filesView(main, route.id);
      break;
  }
  updateTitle();
  // A new view: focus its start, as a new page would (the terminal and the message box take it themselves).
  if (shown && route.name !== 'session' && route.name !== 'conversation')
    main.focus({ preventScroll: false });
  shown = true;
}

function updateTitle(): void {
  const count = store.prompts.length;
  keepPromptNotices(store.prompts.map((p) => p.id));
  badge.textContent = String(count);
  badge.classList.toggle('badge-hot', count > 0);
  badge.setAttribute('aria-label', `${count} waiting`);
  const base = document.title.replace(/^\(\d+\) /, '');
  document.title = count > 0 ? `(${count}) ${base}` : base;
  const nav = navigator as Navigator & {
    setAppBadge?(n: number): Promise<void>;
    clearAppBadge?(): Promise<void>;
  };
  if (count > 0) nav.setAppBadge?.(count).catch(() => {});
  else nav.clearAppBadge?.().catch(() => {});
}

function updateStatus(): void {
  const { live, unauthorized, error } = store.status;
  dot.classList.toggle('live', live);
  dot.setAttribute('aria-label', live ? 'live' : 'offline');
  dot.title = live ? 'Live updates on' : 'Live updates off: reconnecting';
  if (unauthorized) {
    banner.textContent =
      'Not signed in. Open the address that `agent-bridge serve` printed (the one with ?token=) once in this browser.';
  } else if (error && !live) {
    banner.textContent = `Cannot reach agent-bridge: ${error}`;
  }
  banner.hidden = !unauthorized && !(error && !live);
}

/** Once a second: the time left on prompts and the age of sessions; refetch when one just expired. */
function tick(): void {
  const now = Date.now();
  let expired = false;
  for (const element of document.querySelectorAll<HTMLElement>('[data-expires-at]')) {
    const left = Number(element.dataset.expiresAt) - now;
    element.textContent = timeLeft(left);
    element.classList.toggle('soon', left > 0 && left < 30_000);
    if (left <= 0 && !element.dataset.expiredSeen) {
      element.dataset.expiredSeen = '1';
      expired = true;
    }
  }
  for (const element of document.querySelectorAll<HTMLElement>('[data-since]')) {
    element.textContent = ago(element.dataset.since ?? null);
  }
  if (expired) void store.refreshPrompts();
}

function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  window.addEventListener('load', () => {
    navigator.serviceWorker
      .register('/sw.js')
      .catch((error: unknown) => console.warn('service worker', error));
  });
  // A notification was clicked: show what it points at.
  navigator.serviceWorker.addEventListener('message', (event: MessageEvent) => {
    const data = event.data as { type?: string; url?: string } | null;
    if (data?.type === 'open' && typeof data.url === 'string')
      location.hash = new URL(data.url, location.href).hash;
  });
}

function start(): void {
  shell();
  onUnauthorized(() => store.setStatus({ unauthorized: true }));
  store.on('prompts', updateTitle);
  store.on('status', updateStatus);
  window.addEventListener('hashchange', () => show(parseRoute(location.hash)));
  show(parseRoute(location.hash));
  void store.refreshAll();
  const events = connectEvents();
  // A safety net while the event feed is down.
  window.setInterval(() => {
    if (!events.connected && document.visibilityState === 'visible') void store.refreshAll();
  }, 15_000);
  window.setInterval(tick, 1000);
  registerServiceWorker();
}

start();
