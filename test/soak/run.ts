/**
 * `npm run soak`: minutes of mixed traffic on a twin of its own, then a verdict on whether
 * anything grows without bound.
 *
 *   npm run soak -- --minutes 30 [--clients 20] [--hostile 0.05] [--seed S] [--max-rss-mb 4096]
 *
 * The twin runs in a child process (test/soak/twin-process.ts, started as the benches start
 * theirs), so its memory and file descriptors are its own and its death is seen as such.
 * `--clients` clients repeat the ordinary life cycle of test/soak/traffic.ts; `--hostile` of
 * all requests are hostile ones (hostile-traffic.ts). The twin is sampled at the start, every
 * minute and once the traffic has drained (probe.ts); verdict.ts says what may grow. Exits 1
 * when something grew, an answer was a 5xx, a request went unanswered or the twin stopped.
 */
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { Sample } from './probe';

// The twin (a child process) inherits this: a line per request would bury the report; errors still show.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    clients: { type: 'string', default: '20' },
    hostile: { type: 'string', default: '0.05' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    'max-rss-mb': { type: 'string', default: '4096' },
  },
});
const minutes = Number(values.minutes);
const clientCount = Number(values.clients);
const hostileShare = Number(values.hostile);
const seed = Number(values.seed);
const maxRssMb = Number(values['max-rss-mb']);
if (!(minutes > 0) || !Number.isInteger(clientCount) || clientCount < 1 || !(hostileShare >= 0 && hostileShare < 1))
  throw new Error('usage: npm run soak -- --minutes N [--clients 20] [--hostile 0.05] [--seed S] [--max-rss-mb 4096]');

// Imported after the log level is set: the logger reads it once.
const { SOURCE_BUCKET } = await import('../../bench/import-protocol');
const { TWIN_TMP, withImportTwin } = await import('../../bench/import-twin');
const { LOCAL_TENANT } = await import('../../infra/local/twin');
const { ApiClient } = await import('../support/api-client');
const { createTenantAdmin, HOSTILE_TENANT, RenewedClient } = await import('./clients');
const { HostileTraffic } = await import('./hostile-traffic');
const { probeTwin, processState, processTree, treeResidentMb } = await import('./probe');
const { Random } = await import('./random');
const { printReport } = await import('./report');
const { Tally } = await import('./tally');
const { runClient, SOAK_CSV_KEY, soakCsv } = await import('./traffic');
const { judgeSoak } = await import('./verdict');

/** How long the clients may take to finish the cycle they are in once the time is up, and the scratch folders to go. */
const DRAIN_MS = 120_000;
/** Long enough for a run started just before the drain to reach its step's time limit (twin-process.ts) and stop. */
const SETTLE_MS = 90_000;
/** How often the twin's RSS is checked against --max-rss-mb: a runaway query grows it by gigabytes a second. */
const RSS_WATCH_MS = 500;
/** The soak yields to other work on the machine: the twin and the clients run at this niceness. */
const NICENESS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (text: string) => process.stderr.write(`soak: ${text}\n`);

const exitCode = await withImportTwin(
  'dps-soak-',
  async ({ child, dir, s3, ready }) => {
    const pid = child.pid;
    if (pid === undefined) throw new Error('the twin process has no pid');
    setPriority(pid, NICENESS);
    setPriority(NICENESS);
    let started = performance.now();
    let stopped: string | undefined;
    const twinStopped = new Promise<void>((resolve) =>
      child.once('exit', (code, signal) => {
        stopped ??= `the twin process exited (${signal ?? `code ${code}`}) at ${minutesSince(started)}`;
        resolve();
      }),
    );
    const rssWatch = setInterval(() => {
      treeResidentMb(pid).then(
        ({ rssMb }) => {
          if (!(rssMb > maxRssMb) || stopped !== undefined) return;
          stopped = `its RSS (engine processes included) reached ${Math.round(rssMb)} MB, over --max-rss-mb ${maxRssMb}, at ${minutesSince(started)}: the soak killed it`;
          void killTree();
        },
        () => undefined,
      );
    }, RSS_WATCH_MS);
    /** Kills the twin and its engine processes, which would otherwise outlive it. */
    const killTree = async () => {
      for (const member of await processTree(pid)) {
        try {
          process.kill(member, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
    };

    await s3.send(new PutObjectCommand({ Bucket: SOURCE_BUCKET, Key: SOAK_CSV_KEY, Body: soakCsv() }));
    const tally = new Tally();
    const ordinary = await RenewedClient.signIn(ready.apiUrl, {
      client_id: ready.clientId,
      client_secret: ready.clientSecret,
    });
    const hostileAdmin = await createTenantAdmin(ready, HOSTILE_TENANT);
    const hostileClient = await RenewedClient.signIn(ready.apiUrl, hostileAdmin);
    log('creating the hostile tenant’s fixtures');
    const hostile = await HostileTraffic.prepare(
      {
        admin: hostileClient.current(),
        anonymous: new ApiClient(ready.apiUrl, null),
        twin: { s3: { endpoint: ready.s3Endpoint }, admin: hostileAdmin },
      },
      s3,
      hostileClient.current,
      tally,
    );
    const probe = await probeTwin({
      pid,
      tmp: join(dir, TWIN_TMP),
      scratchRoot: ready.scratchRoot,
      dynamoEndpoint: ready.dynamoEndpoint,
      tableName: ready.tableName,
    });
    const samples: Sample[] = [];
    const take = async (label: string) => {
      if (stopped !== undefined) return;
      try {
        const sample = await probe.sample(label, (performance.now() - started) / 1000);
        samples.push(sample);
        log(
          `${label}: RSS ${Math.round(sample.rssMb)} MB (${sample.children} engine processes), ${sample.fds} fds, ${sample.scratchFolders} scratch folders, ${sample.items} items, ${tally.requests} requests`,
        );
      } catch (error) {
        // Gone (its exit says so), or there and not answering: a process that hangs in its exit counts as stopped.
        const state = await processState(pid);
        if (stopped !== undefined || state === undefined) return;
        stopped = `the twin stopped answering at ${minutesSince(started)} (the ${label} sample failed: ${String(error)}); its process was still there (${state}): the soak killed it`;
        await killTree();
      }
    };

    try {
      started = performance.now();
      await take('start');
      let ending = false;
      const clients = Array.from({ length: clientCount }, (_, index) =>
        runClient({
          index,
          api: ordinary.current,
          s3,
          s3Endpoint: ready.s3Endpoint,
          tally,
          random: new Random(seed * 1_000 + index),
          hostile,
          hostileShare,
          ending: () => ending,
          aborted: () => stopped !== undefined,
        }),
      );
      log(`${clientCount} clients for ${minutes} min, ${hostileShare * 100} % hostile, seed ${seed}`);
      for (let minute = 1; minute <= Math.floor(minutes) && stopped === undefined; minute += 1) {
        await Promise.race([sleep(started + minute * 60_000 - performance.now()), twinStopped]);
        await take(`minute ${minute}`);
        await Promise.all([ordinary.renew(), hostileClient.renew()]);
      }
      await Promise.race([sleep(started + minutes * 60_000 - performance.now()), twinStopped]);
      ending = true;
      const runSeconds = (performance.now() - started) / 1000;
      log('time is up: waiting for the clients to finish their cycle');
      await Promise.race([Promise.allSettled(clients), sleep(DRAIN_MS), twinStopped]);
      const settleUntil = performance.now() + SETTLE_MS;
      while (stopped === undefined && performance.now() < settleUntil) {
        const scratch = await probe.sample('settle', 0).catch(() => undefined);
        if (scratch === undefined || scratch.scratchFolders <= (samples[0]?.scratchFolders ?? 0)) break;
        await sleep(2_000);
      }
      await take('end');
      const verdict = judgeSoak(samples, tally, { stopped }, { runSeconds, tenant: LOCAL_TENANT });
      printReport(samples, tally, verdict, {
        seconds: runSeconds,
        tenant: LOCAL_TENANT,
        hostileTenant: HOSTILE_TENANT,
      });
      return verdict.passed ? 0 : 1;
    } finally {
      clearInterval(rssWatch);
      probe.close();
    }
  },
  new URL('./twin-process.ts', import.meta.url),
);

function minutesSince(start: number): string {
  const seconds = Math.round((performance.now() - start) / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

process.exit(exitCode);
