import { promptHeadline } from '../../src/core/prompt-headline.js';
import type { Prompt } from './types.js';

/**
 * Browser notifications for new prompts. Permission is asked only when the person presses the button; they
 * can also turn them off here without touching the browser's settings.
 */

const OFF_KEY = 'agent-bridge.notifications';

export type NotifyState = 'unsupported' | 'denied' | 'off' | 'on' | 'ask';

export function notifyState(): NotifyState {
  if (!('Notification' in window)) return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  if (Notification.permission === 'default') return 'ask';
  return localStorage.getItem(OFF_KEY) === 'off' ? 'off' : 'on';
}

/** Asks for permission (from a click) or toggles on/off; returns the new state. */
export async function toggleNotifications(): Promise<NotifyState> {
  const state = notifyState();
  if (state === 'ask') {
    const permission = await Notification.requestPermission();
    if (permission === 'granted') localStorage.removeItem(OFF_KEY);
  } else if (state === 'on') {
    localStorage.setItem(OFF_KEY, 'off');
  } else if (state === 'off') {
    localStorage.removeItem(OFF_KEY);
  }
  return notifyState();
}

export function notifyLabel(state: NotifyState): string {
  switch (state) {
    case 'ask':
      return 'Enable notifications';
    case 'on':
      return 'Notifications on';
    case 'off':
      return 'Notifications off';
    case 'denied':
      return 'Notifications blocked';
    case 'unsupported':
      return 'No notifications here';
  }
}

/** Shows "agent-bridge: <kind> — <excerpt>"; through the service worker where there is one (Android). */
export async function notifyPrompt(prompt: Prompt): Promise<void> {
  if (notifyState() !== 'on') return;
  const title = `agent-bridge: ${prompt.kind} — ${promptHeadline(prompt.excerpt, 100)}`;
  const options: NotificationOptions = {
    body: `${prompt.origin.agent} · ${prompt.origin.label} · ${prompt.origin.host}`,
    tag: `prompt-${prompt.id}`,
    icon: '/icon-192.png',
    data: { url: '/#/inbox' },
  };
  try {
    const registration =
      'serviceWorker' in navigator ? await navigator.serviceWorker.getRegistration() : undefined;
    if (registration?.active) {
      await registration.showNotification(title, options);
      return;
    }
    const notification = new Notification(title, options);
    notification.onclick = () => {
      window.focus();
      location.hash = '#/inbox';
      notification.close();
    };
  } catch (error) {
    console.warn('notification failed', error);
  }
}
