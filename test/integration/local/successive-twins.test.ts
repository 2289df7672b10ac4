/**
 * Twins started one after another in one process (as the test files that share a process do)
 * are as independent as twins in processes of their own: nothing a warm function kept of one
 * twin's stores (signing keys, id blocks, feature toggles, SDK clients) reaches the next.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../support/api-client';
import { localObjectStore } from '../../support/connections';
import { startTestTwin, type TestTwin } from '../../support/harness';

const BUCKET = 'landing';
const TOGGLE = 'connector.object_store';

const objectStore = (env: TestTwin, name: string) => localObjectStore(name, env.twin.s3.endpoint, BUCKET);

const create = (api: ApiClient, env: TestTwin, name: string) =>
  api.call('createConnection', { body: objectStore(env, name) });
const test = (api: ApiClient, env: TestTwin) => api.call('testConnection', { body: objectStore(env, 'unsaved') });

describe('two twins, one after the other, in one process', () => {
  it('gives the second its own keys, ids and toggles', async () => {
    const first = await startTestTwin({ buckets: [BUCKET] });
    let firstId: number;
    try {
      const created = await create(first.admin, first, 'in the first twin');
      expect(created.status).toBe(201);
      firstId = created.body.id;
      // The first twin turns the connector off, and its functions read that (their toggle snapshot).
      await first.platformAdmin.call('setFeatureToggleDefault', {
        params: { toggle_name: TOGGLE },
        body: { strategy: 'off' },
      });
      expect((await test(first.admin, first)).status).toBe(501);
    } finally {
      await first.close();
    }

    const second = await startTestTwin({ buckets: [BUCKET] });
    try {
      // Its tokens are signed and verified with its own key (the same alias names another key).
      const listed = await second.admin.call('listConnections');
      expect(listed.status).toBe(200);
      expect(listed.body.total).toBe(0);
      // Its connector is on (its own toggles), and its first connection takes its store's first id.
      expect((await test(second.admin, second)).status).toBe(200);
      const created = await create(second.admin, second, 'in the second twin');
      expect(created.status).toBe(201);
      expect(created.body.id).toBe(firstId);
    } finally {
      await second.close();
    }
  });
});
