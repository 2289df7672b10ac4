/**
 * The twin side of the cost bench's job section (bench/cost-jobs.ts): the twin as `npm start` runs it, except
 * that each worker invocation its state machines make is handed to the parent process over IPC and run there,
 * so that the parent's meter (bench/cost-meter.ts) and CPU clock see the worker alone, not the stores serving it.
 * It also runs what the jobs write to outside the service: a second bucket for the export to a target, and the
 * pricing DIM fake (infra/local/fakes/pricing-dim.ts) for the transfer, which the twin's functions may reach.
 */
import { startPricingDim } from '../infra/local/fakes/pricing-dim';
import { startTwin } from '../infra/local/twin';
import type { WorkerFunction } from '../infra/local/stepfunctions';
import type { WorkerSpec } from '../shared/jobs/define-job';
import { TARGET_BUCKET, type CostJobsChildMessage, type CostJobsParentMessage } from './cost-jobs-protocol';
import { SOURCE_BUCKET } from './import-protocol';
import { serveToParent } from './twin-child';

const pending = new Map<number, { resolve: (output: unknown) => void; reject: (error: Error) => void }>();
let nextId = 0;

function send(message: CostJobsChildMessage): void {
  if (!process.send) throw new Error('bench/cost-jobs-twin-process.ts is started by bench/cost-jobs.ts');
  process.send(message);
}

/** The twin's worker loader: every invocation runs in the parent, which answers its output or its error. */
async function remoteWorker(worker: WorkerSpec): Promise<WorkerFunction> {
  return (input, context) =>
    new Promise((resolve, reject) => {
      nextId += 1;
      pending.set(nextId, { resolve, reject });
      send({ type: 'invoke', id: nextId, worker: worker.name, input, awsRequestId: context.awsRequestId });
    });
}

async function main(): Promise<void> {
  const before = { ...process.env };
  const dim = await startPricingDim();
  const allowOutbound = [dim.host, dim.tokenUrl].map((url) => `127.0.0.1:${new URL(url).port}`);
  const twin = await startTwin({ buckets: [SOURCE_BUCKET, TARGET_BUCKET], loadWorker: remoteWorker, allowOutbound });
  const { host, tokenUrl, clientId, clientSecret, scope } = dim;
  process.on('message', (received: CostJobsParentMessage) => {
    if (received.type === 'environment') {
      const environment = Object.fromEntries(
        Object.entries(process.env).filter(
          (entry): entry is [string, string] => entry[1] !== undefined && before[entry[0]] !== entry[1],
        ),
      );
      send({
        type: 'environment',
        environment,
        s3Port: twin.s3.port,
        platformAdmin: {
          clientId: twin.platformAdmin.client_id,
          clientSecret: twin.platformAdmin.client_secret,
          tenantId: twin.platformAdmin.tenant_id,
        },
        adminTenantId: twin.admin.tenant_id,
        pricingDim: { host, tokenUrl, clientId, clientSecret, scope },
      });
    } else if (received.type === 'invoked') {
      const waiting = pending.get(received.id);
      pending.delete(received.id);
      if (received.error === undefined) waiting?.resolve(received.output);
      else waiting?.reject(Object.assign(new Error(received.error.message), { name: received.error.name }));
    }
  });
  // The pricing DIM closes with the twin: a process that outlived it would hold its ports (bench/twin-fork.ts).
  serveToParent({ ...twin, close: () => twin.close().then(() => dim.stop()) });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
