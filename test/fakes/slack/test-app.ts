// A plain @slack/bolt app in Socket Mode against the fake (for the fake's own tests).
import { App, SocketModeReceiver, type Logger } from '@slack/bolt';
import type { FakeSlack } from './server.js';

const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => 'error' as ReturnType<Logger['getLevel']>,
  setName: () => undefined,
};

/** An app wired to the fake (quick reconnects, few retries); `start()` it after adding listeners. */
export function boltApp(fake: FakeSlack): { app: App; receiver: SocketModeReceiver } {
  const clientOptions = {
    slackApiUrl: fake.apiRoot,
    retryConfig: { retries: 3, minTimeout: 50, maxTimeout: 200 },
  };
  const receiver = new SocketModeReceiver({
    appToken: fake.appToken,
    logger: silent,
    clientPingTimeout: 300,
    installerOptions: { clientOptions },
  });
  const app = new App({ token: fake.token, receiver, clientOptions, logger: silent });
  return { app, receiver };
}
