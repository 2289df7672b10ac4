/**
 * The child side of a twin run in a process of its own (bench/import-twin.ts starts it): once
 * the twin is up, tell the parent where it is, and close it when the parent says so or goes
 * away. Benches that watch the twin add their own messages; the soak (test/soak) needs none.
 */
import { TABLE_NAME, DATA_BUCKET, type Twin } from '../infra/local/twin';
import type { ImportChildMessage, ImportParentMessage } from './import-protocol';

/** Sends a message to the parent; the child is useless without one, so its absence is an error. */
export function sendToParent(message: ImportChildMessage): void {
  if (!process.send) throw new Error(`${process.argv[1]} is started by bench/import-twin.ts (it needs an IPC channel)`);
  process.send(message);
}

/**
 * Says `ready` with the twin's endpoints and the bootstrap admin's credentials, then hands
 * every message but `close` to `onMessage`. `close` closes the twin and exits 0; a parent that
 * went away without it (crash, kill) closes it too and exits 1, so the twin never outlives it.
 */
export function serveToParent(twin: Twin, onMessage: (message: ImportParentMessage) => void = () => undefined): void {
  let closing = false;
  const close = (code: number): void => {
    if (closing) return;
    closing = true;
    twin.close().then(
      () => process.exit(code),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('disconnect', () => close(1));
  process.on('message', (received: unknown) => {
    const message = received as ImportParentMessage;
    if (message.type === 'close') close(0);
    else onMessage(message);
  });
  sendToParent({
    type: 'ready',
    apiUrl: twin.apiUrl,
    s3Endpoint: twin.s3.endpoint,
    dynamoEndpoint: twin.dynamoEndpoint,
    tableName: TABLE_NAME,
    scratchRoot: twin.scratchRoot,
    dataBucket: DATA_BUCKET,
    clientId: twin.admin.client_id,
    clientSecret: twin.admin.client_secret,
    platformAdmin: {
      clientId: twin.platformAdmin.client_id,
      clientSecret: twin.platformAdmin.client_secret,
      tenantId: twin.platformAdmin.tenant_id,
    },
    adminTenantId: twin.admin.tenant_id,
  });
}
