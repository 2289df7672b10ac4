/**
 * Cold starts of `npm run bench -- cost`: for each route's handler, a fresh Node process loads
 * its bundle as deployed (infra/bundling.ts: the AWS SDK from node_modules, as the Lambda runtime
 * provides it) and handles one event, the one the warm measurement built for it; beside it the
 * floor bundle (bench/cost-floor-handler.ts). Module load and first invocation are timed inside
 * the process; Node's own start is not (Lambda's runtime is up before the module loads).
 */
import { handlerFunctionName, handlerRef } from '../shared/http/handler-ref';
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { routes } from '../functions/routes';
import { bundleApiFunctions, bundleFunction } from '../infra/bundling';
import type { ApiEvent } from '../shared/http/handler';
import { median } from './import-throughput';

const run = promisify(execFile);

/** Medians over the fresh processes of one bundle. */
export interface ColdStart {
  readonly bytes: number;
  readonly moduleLoadMs: number;
  readonly firstInvocationMs: number;
  readonly status: number;
}

export interface ColdStarts {
  readonly floor: ColdStart;
  readonly byHandler: ReadonlyMap<string, ColdStart>;
}

/** The function process: load the bundle, handle the event, print the times. */
const RUNNER = `
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const started = performance.now();
const module = await import(pathToFileURL(process.env.COST_BUNDLE).href);
const loaded = performance.now();
const event = JSON.parse(readFileSync(process.env.COST_EVENT, 'utf8'));
const context = { functionName: 'cold', awsRequestId: 'cold', getRemainingTimeInMillis: () => 29000 };
const result = await module[process.env.COST_EXPORT](event, context);
const answered = performance.now();
console.log(JSON.stringify({ moduleLoadMs: loaded - started, firstInvocationMs: answered - loaded, status: result?.statusCode ?? 0 }));
process.exit(0);
`;

async function coldStart(
  bundle: string,
  event: string,
  bytes: number,
  environment: Readonly<Record<string, string>>,
  runs: number,
  exportName = 'handler',
): Promise<ColdStart> {
  const samples: { moduleLoadMs: number; firstInvocationMs: number; status: number }[] = [];
  for (let index = 0; index < runs; index += 1) {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', RUNNER], {
      env: { ...process.env, ...environment, COST_BUNDLE: bundle, COST_EVENT: event, COST_EXPORT: exportName },
      maxBuffer: 1024 * 1024,
    });
    const last = stdout.trim().split('\n').at(-1) ?? '{}';
    samples.push(JSON.parse(last) as (typeof samples)[number]);
  }
  return {
    bytes,
    moduleLoadMs: median(samples.map((sample) => sample.moduleLoadMs)),
    firstInvocationMs: median(samples.map((sample) => sample.firstInvocationMs)),
    status: samples[0]?.status ?? 0,
  };
}

/**
 * Cold starts of the handlers in `events` (each with the event it handles) and of the floor.
 * The bundles are written under node_modules/.cache so that `@aws-sdk/*` resolves as on Lambda.
 */
export async function measureColdStarts(
  events: ReadonlyMap<string, ApiEvent>,
  environment: Readonly<Record<string, string>>,
  runs: number,
): Promise<ColdStarts> {
  const folder = join(process.cwd(), 'node_modules', '.cache', 'cost-bench');
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  const handlers = [...events.keys()];
  const engineHandlers = new Set(routes.filter((route) => route.engine).map((route) => route.handler));
  const bundles = await bundleApiFunctions(handlers, engineHandlers);
  const floorBundle = await bundleFunction('bench/cost-floor-handler.ts');
  const floorFile = join(folder, 'floor.mjs');
  await writeFile(floorFile, floorBundle.code);
  const noEvent = join(folder, 'floor.json');
  await writeFile(noEvent, '{}');
  const floor = await coldStart(floorFile, noEvent, floorBundle.bytes, environment, runs);
  const byHandler = new Map<string, ColdStart>();
  for (const handler of handlers) {
    const name = handlerFunctionName(handler);
    const bundle = bundles.get(handler);
    if (!bundle) throw new Error(`no bundle for ${handler}`);
    const file = join(folder, `${name}.mjs`);
    const event = join(folder, `${name}.json`);
    await writeFile(file, bundle.code);
    await writeFile(event, JSON.stringify(events.get(handler)));
    byHandler.set(
      handler,
      await coldStart(file, event, bundle.bytes, environment, runs, handlerRef(handler).exportName),
    );
  }
  return { floor, byHandler };
}
