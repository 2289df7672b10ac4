/**
 * The twin side of `npm run bench -- cost`, in a process of its own so that the stores' CPU
 * time is not counted as the handlers': starts the twin, makes the contract corpus's fixtures
 * (test/contract/fixtures.ts) and hands the bench every operation's valid request and the
 * environment the twin gives its functions. Closes the twin when told, or when the bench goes.
 */
import { contractCorpus } from '../test/contract/corpus';
import { CONTRACT_BUCKET, contractFixtures } from '../test/contract/fixtures';
import { startTestTwin } from '../test/support/harness';
import type { CostCase, CostParentMessage, CostTwinReady } from './cost-protocol';

async function main(): Promise<void> {
  if (!process.send)
    throw new Error('bench/cost-twin-process.ts is started by bench/cost.ts (it needs an IPC channel)');
  const before = { ...process.env };
  const env = await startTestTwin({ buckets: [CONTRACT_BUCKET] });
  // The retention routes answer their own shapes for the corpus tenant, as in the contract test.
  await env.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: 'retention', tenant_id: env.admin.tenantId! },
    body: { strategy: 'on' },
  });
  const cases: CostCase[] = contractCorpus(await contractFixtures(env))
    .filter((item) => item.label === `${item.operationId}: valid`)
    .map(({ operationId, request }) => ({ operationId, ...request }));
  const environment = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && before[entry[0]] !== entry[1],
    ),
  );
  let closing = false;
  const close = (code: number): void => {
    if (closing) return;
    closing = true;
    env.close().then(
      () => process.exit(code),
      () => process.exit(1),
    );
  };
  process.on('disconnect', () => close(1));
  process.on('message', (message: CostParentMessage) => {
    if (message.type === 'close') close(0);
  });
  const ready: CostTwinReady = {
    type: 'ready',
    environment,
    cases,
    adminToken: env.admin.token ?? '',
    platformAdminToken: env.platformAdmin.token ?? '',
    s3Port: env.twin.s3.port,
  };
  process.send(ready);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
