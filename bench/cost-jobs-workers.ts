/**
 * The bench process's side of the job cost bench (bench/cost-jobs.ts): it runs every worker invocation the twin
 * process's state machines make, with the real SDK clients on the twin's stores, and adds up per worker what the
 * cost meter (bench/cost-meter.ts) counted and the CPU this process and its engine processes spent meanwhile.
 */
import type { ChildProcess } from 'node:child_process';
import { jobs, workersOf } from '../functions/jobs';
import { loadWorkerHandler } from '../infra/local/stepfunctions';
import type { CostJobsChildMessage, CostJobsParentMessage } from './cost-jobs-protocol';
import type { CallTally, installMeter } from './cost-meter';
import { cpuBetween, treeCpu, type TreeCpu } from './process-tree-cpu';

/** One worker's invocations over the bench, added up. */
export interface WorkerCost {
  readonly worker: string;
  readonly job: string;
  readonly invocations: number;
  /** CPU of the bench process (the worker and DuckDB in it, every thread) while the worker's invocations ran. */
  readonly processCpuSeconds: number;
  /** CPU of the engine processes the worker started or used meanwhile (a recipe run's user SQL), from /proc. */
  readonly engineChildCpuSeconds: number;
  /** What the job recorded itself as its progress's or run's cpu_seconds, where the bench read it. */
  readonly recordedCpuSeconds?: number;
  readonly tally: CallTally;
  /** Whether the cost grows with the rows (scaled to 1M) or is fixed per job. */
  readonly perRow: boolean;
}

interface RunningCost {
  invocations: number;
  cpu: TreeCpu;
  tally: CallTally;
}

const WORKERS = new Map(workersOf(jobs).map((worker) => [worker.name, worker] as const));

/** A waiter for the end of any invocation. */
const IDLE = '*';

/** Calls the twin's own HTTP API or anything not AWS (the bench's polls, the pricing system): not the stores'. */
function awsOnly(tally: CallTally): CallTally {
  return {
    ...tally,
    calls: Object.fromEntries(Object.entries(tally.calls).filter(([name]) => !name.startsWith('other'))),
  };
}

function addTallies(a: CallTally, b: CallTally): CallTally {
  const calls: Record<string, number> = { ...a.calls };
  for (const [name, count] of Object.entries(b.calls)) calls[name] = (calls[name] ?? 0) + count;
  return { calls, readUnits: a.readUnits + b.readUnits, writeUnits: a.writeUnits + b.writeUnits };
}

/** The costs as the bench reports them. */
export type ServedCosts = ReadonlyMap<string, Readonly<RunningCost>>;

/**
 * Runs the twin's worker invocations in this process. Costs are taken while one worker is in flight, from the first
 * invocation in to the last out; invocations of another worker overlapping that window are counted under the first.
 */
export function serveWorkers(child: ChildProcess, meter: ReturnType<typeof installMeter>) {
  const costs = new Map<string, RunningCost>();
  const recorded = new Map<string, number>();
  let inFlight = 0;
  let owner = '';
  let cpuStart = treeCpu();
  const waiters: { worker: string; resolve: () => void }[] = [];
  const answer = (message: CostJobsParentMessage) => child.send(message);
  child.on('message', (received: CostJobsChildMessage) => {
    if (received.type !== 'invoke') return;
    const spec = WORKERS.get(received.worker);
    if (!spec) return answer({ type: 'invoked', id: received.id, error: { name: 'Error', message: 'unknown worker' } });
    if (inFlight === 0) {
      meter.take();
      owner = received.worker;
      cpuStart = treeCpu();
    }
    inFlight += 1;
    const settle = (output: unknown, error?: Error) => {
      inFlight -= 1;
      const cost = costs.get(owner) ?? {
        invocations: 0,
        cpu: { selfSeconds: 0, childSeconds: 0 },
        tally: { calls: {}, readUnits: 0, writeUnits: 0 },
      };
      cost.invocations += 1;
      if (inFlight === 0) {
        const used = cpuBetween(cpuStart, treeCpu());
        cost.cpu = {
          selfSeconds: cost.cpu.selfSeconds + used.selfSeconds,
          childSeconds: cost.cpu.childSeconds + used.childSeconds,
        };
        cost.tally = addTallies(cost.tally, awsOnly(meter.take()));
      }
      costs.set(owner, cost);
      if (inFlight === 0)
        for (const waiter of waiters
          .splice(0)
          .filter((waiting) => [owner, received.worker, IDLE].includes(waiting.worker)))
          waiter.resolve();
      answer(
        error
          ? { type: 'invoked', id: received.id, error: { name: error.name, message: error.message } }
          : { type: 'invoked', id: received.id, output },
      );
    };
    loadWorkerHandler(spec)
      .then((handler) => handler(received.input, { awsRequestId: received.awsRequestId }))
      .then(
        (output) => settle(output),
        (error: unknown) => settle(undefined, error instanceof Error ? error : new Error(String(error))),
      );
  });
  /** Resolves once an invocation of `worker` has settled and nothing else runs (a job without a status route to poll). */
  const settled = (worker: string) => new Promise<void>((resolve) => waiters.push({ worker, resolve }));
  /** Resolves once no invocation runs: a job reads COMPLETED a moment before its worker returns. */
  const idle = () => (inFlight === 0 ? Promise.resolve() : settled(IDLE));
  return {
    costs: costs as ServedCosts,
    recorded: recorded as ReadonlyMap<string, number>,
    settled,
    idle,
    /** Adds what a job recorded as its cpu_seconds to its worker's. */
    recordCpu: (worker: string, seconds: number | undefined) => {
      if (seconds !== undefined) recorded.set(worker, (recorded.get(worker) ?? 0) + seconds);
    },
  };
}

/** The bench's handle on the workers it serves. */
export type ServedWorkers = ReturnType<typeof serveWorkers>;
