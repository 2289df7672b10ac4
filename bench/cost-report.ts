/**
 * The cost section of the bench report: one table over every route (and the authorizer), sorted
 * by what a million requests cost at AWS list prices, with the issue's goals checked per route,
 * and the same figures as JSON for plotting (bench/results/cost.json).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { routes } from '../functions/routes';
import { ENGINE_ROUTE_MEMORY_MB, ROUTE_MEMORY_MB } from '../infra/stacks/api-domain-stack';
import { measureColdStarts, type ColdStart, type ColdStarts } from './cost-cold';
import { dynamoCalls, type CallTally } from './cost-meter';
import { measureWarmCosts, type RouteCost, type WarmSettings } from './cost';
import { observabilityCost } from './cost-observability';

/**
 * us-east-1 list prices (USD), arm64 Lambda, DynamoDB on demand: what the estimate multiplies.
 * Step Functions transitions are the job's, not the request's, and are left out.
 */
export const PRICES = {
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecond: 0.0000133334,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  s3WriteOrList: 0.005 / 1000,
  s3Read: 0.0004 / 1000,
  kmsRequest: 0.03 / 10_000,
} as const;

/**
 * What a deployed call waits for, per call, added to the CPU time for the billed duration: typical
 * same-region latencies, stated here because the twin's (one loaded machine) say nothing of AWS's.
 */
export const ASSUMED_WAIT_MS: Readonly<Record<string, number>> = { DynamoDB: 5, S3: 20, KMS: 5, StepFunctions: 20 };

/** A 1769 MB function has one full vCPU; below, CPU time stretches by that ratio. */
const FULL_VCPU_MB = 1769;

/** The issue's cold start goal: every API route's module load at most this many times the floor's. */
export const COLD_START_GOAL = 1.5;

/**
 * Why a route misses a goal where the cost is its function's (the table prints it), by operationId.
 * Routes missing one without a reason here are marked for fixing.
 */
const ID_COUNTER =
  'one create in ID_BLOCK_SIZE reserves the next block of ids (one atomic ADD) before its transaction (shared/db/id-blocks.ts)';
const PARENT = 'reads its parent first: an unknown parent is 404, not an empty page';
const ADMIN_PLANE = 'admin plane, platform admins only: rare';
const ENGINE =
  'loads the recipe SQL analyzer (DuckDB from the layer) with the module: ENGINE_ROUTE_MEMORY_MB gives it a full vCPU';
const CONNECTOR_SDK = 'carries a connector SDK (CONNECTOR_SDKS_BY_HANDLER in infra/bundling.ts)';
const RELATED =
  'the answer shows its data source’s connection details (BatchGetItem of sources, then of connections) and, with retention on, reads the policy for expiration_date';
export const WHY: Readonly<Record<string, string>> = {
  createConnection: ID_COUNTER,
  createDataSource: ID_COUNTER,
  createDataTable: ID_COUNTER,
  createDataset: ID_COUNTER,
  createQuotaContract: ID_COUNTER,
  createTarget: ID_COUNTER,
  createRecipe: `${ID_COUNTER}; ${ENGINE}`,
  createRecipeVersion: ENGINE,
  updateRecipeVersion: ENGINE,
  analyzeRecipe: ENGINE,
  createTenant: `${ADMIN_PLANE}; provisions the tenant, its system user and admin client in steps`,
  getTenantCustomerUser: ADMIN_PLANE,
  getTenantSystemUser: ADMIN_PLANE,
  getDataTable: RELATED,
  listDataTables: RELATED,
  getDataVersion: 'with retention on, the policy decides expiration_date',
  getDataset: 'shows its latest graph version (BatchGetItem)',
  listDatasets: 'shows each dataset’s latest graph version (BatchGetItem per page)',
  getDatasetGraphMermaid: 'draws the latest graph version (BatchGetItem)',
  listDataVersions: `${PARENT}; with retention on, the policy and the newest COMPLETED version decide expiration_date`,
  listDatasetVersions: PARENT,
  listRecipeVersions: PARENT,
  testConnection: CONNECTOR_SDK,
  testStoredConnection: CONNECTOR_SDK,
  browseConnection: CONNECTOR_SDK,
  listConnectionTables: CONNECTOR_SDK,
  getConnectionTable: CONNECTOR_SDK,
  testRdbmsQuery: CONNECTOR_SDK,
};

export interface CostRow extends Omit<RouteCost, 'event'> {
  readonly memoryMb: number;
  readonly billedMs: number;
  readonly usdPerMillion: number;
  readonly cold?: ColdStart;
  readonly goal: string;
  readonly misses: readonly string[];
}

function service(name: string): string {
  return name.split(' ')[0] ?? name;
}

function count(tally: CallTally, prefix: string): number {
  return Object.entries(tally.calls)
    .filter(([name]) => service(name) === prefix)
    .reduce((sum, [, calls]) => sum + calls, 0);
}

function goalOf(cost: Omit<RouteCost, 'event'>): { goal: string; misses: string[] } {
  const { reads, writes } = dynamoCalls(cost.tally);
  const queries = cost.tally.calls['DynamoDB Query'] ?? 0;
  const id = cost.operationId;
  if (/Status$/.test(id) || ['getExport', 'getDirectExport', 'getMultiPartExport'].includes(id))
    return { goal: 'job status ≤ 1 read', misses: reads > 1 ? [`${reads} reads`] : [] };
  if (id.startsWith('list'))
    return {
      goal: 'list page ≤ 1 Query',
      misses: [...(queries > 1 ? [`${queries} Queries`] : []), ...(reads > 1 ? [`${reads} reads`] : [])],
    };
  if (cost.method === 'GET' && id.startsWith('get'))
    return {
      goal: 'GET ≤ 1 read, ≤ 1 RCU',
      misses: [
        ...(reads > 1 ? [`${reads} reads`] : []),
        ...(cost.tally.readUnits > 1 ? [`${cost.tally.readUnits} RCU`] : []),
      ],
    };
  if (/^(create|update|merge|put|set|add|batchCreate|clear)/.test(id))
    return { goal: 'write ≤ 1 write call', misses: writes > 1 ? [`${writes} write calls`] : [] };
  return { goal: '–', misses: [] };
}

/** The rows, most expensive first. */
export function costRows(costs: readonly RouteCost[], cold: ColdStarts | undefined): CostRow[] {
  return costs
    .map(({ event: _event, ...cost }) => {
      const engine = routes.some((route) => route.operationId === cost.operationId && route.engine === true);
      const memoryMb = engine ? ENGINE_ROUTE_MEMORY_MB : ROUTE_MEMORY_MB;
      const waits = Object.entries(cost.tally.calls).reduce(
        (sum, [name, calls]) => sum + calls * (ASSUMED_WAIT_MS[service(name)] ?? 0),
        0,
      );
      const billedMs = Math.ceil(cost.cpuMs * Math.max(1, FULL_VCPU_MB / memoryMb) + waits);
      const s3Writes = Object.entries(cost.tally.calls)
        .filter(([name]) => /^S3 (PUT|POST|COPY)/.test(name) || /^S3 GET.*list/i.test(name))
        .reduce((sum, [, calls]) => sum + calls, 0);
      const usd =
        PRICES.lambdaRequest +
        (billedMs / 1000) * (memoryMb / 1024) * PRICES.lambdaGbSecond +
        cost.tally.readUnits * PRICES.dynamoReadUnit +
        cost.tally.writeUnits * PRICES.dynamoWriteUnit +
        s3Writes * PRICES.s3WriteOrList +
        (count(cost.tally, 'S3') - s3Writes) * PRICES.s3Read +
        count(cost.tally, 'KMS') * PRICES.kmsRequest;
      const coldStart = cold?.byHandler.get(cost.handler);
      const { goal, misses } = goalOf(cost);
      if (coldStart && cold && coldStart.moduleLoadMs > COLD_START_GOAL * cold.floor.moduleLoadMs)
        misses.push(`module load ${(coldStart.moduleLoadMs / cold.floor.moduleLoadMs).toFixed(1)}× floor`);
      return {
        ...cost,
        memoryMb,
        billedMs,
        usdPerMillion: usd * 1e6,
        ...(coldStart ? { cold: coldStart } : {}),
        goal,
        misses,
      };
    })
    .sort((a, b) => b.usdPerMillion - a.usdPerMillion);
}

function callsText(tally: CallTally): string {
  const names = Object.entries(tally.calls).sort(([a], [b]) => a.localeCompare(b));
  return names.length === 0 ? '–' : names.map(([name, calls]) => `${name} ×${calls}`).join(', ');
}

/** The markdown section. */
export function costSection(rows: readonly CostRow[], cold: ColdStarts | undefined, settings: string): string[] {
  const floor = cold?.floor;
  const lines = [
    '## What a request costs (Lambda terms)',
    '',
    `Each route's valid request from the contract corpus, invoked on its handler with API Gateway's event, SDK clients on the twin's stores (${settings}).`,
    'Calls and capacity units (ReturnConsumedCapacity TOTAL) of one warm invocation; CPU: median over warm invocations that gave the same status.',
    `Billed ms (estimate) = CPU ms stretched to the function's CPU share (${FULL_VCPU_MB} MB = 1 vCPU) + assumed waits per call (${Object.entries(
      ASSUMED_WAIT_MS,
    )
      .map(([name, ms]) => `${name} ${ms} ms`)
      .join(', ')}). $ / 1M at us-east-1 list prices (arm64 Lambda, DynamoDB on demand, S3, KMS).`,
    floor
      ? `Cold start: a fresh Node process loads the bundle as deployed and handles one event (medians). Floor (DynamoDB client + one GetItem, ${(floor.bytes / 1024).toFixed(1)} KB): module load ${floor.moduleLoadMs.toFixed(1)} ms, first invocation ${floor.firstInvocationMs.toFixed(1)} ms; goal module load ≤ ${COLD_START_GOAL}× floor.`
      : 'Cold starts not measured.',
    '',
    '| operation | status | DynamoDB / S3 / KMS / SFN calls | RCU | WCU | CPU ms (n) | MB | billed ms | $ / 1M | load ms (× floor) | 1st call ms | goal | misses (why) |',
    '|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|---|---|',
  ];
  for (const row of rows) {
    const coldText = row.cold
      ? `${row.cold.moduleLoadMs.toFixed(0)} (${floor ? (row.cold.moduleLoadMs / floor.moduleLoadMs).toFixed(1) : '?'}×)`
      : '–';
    const misses =
      row.misses.length === 0
        ? 'meets'
        : `**${row.misses.join(', ')}**${WHY[row.operationId] ? ` (${WHY[row.operationId]})` : ''}`;
    lines.push(
      `| ${row.operationId} | ${row.status} | ${callsText(row.tally)} | ${row.tally.readUnits} | ${row.tally.writeUnits} | ${row.cpuMs.toFixed(2)} (${row.samples}) | ${row.memoryMb} | ${row.billedMs} | ${row.usdPerMillion.toFixed(2)} | ${coldText} | ${row.cold ? row.cold.firstInvocationMs.toFixed(0) : '–'} | ${row.goal} | ${misses} |`,
    );
  }
  return lines;
}

/** The JSON for plotting. */
export async function writeCostJson(
  file: string,
  rows: readonly CostRow[],
  cold: ColdStarts | undefined,
): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const document = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    prices: PRICES,
    assumedWaitMs: ASSUMED_WAIT_MS,
    floor: cold?.floor,
    routes: rows,
  };
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
}

export interface CostSettings extends WarmSettings {
  /** Fresh processes per bundle for the cold start; 0 skips cold starts. */
  readonly coldRuns: number;
  /** Where the JSON goes. */
  readonly jsonFile: string;
}

/** The whole cost measurement: warm costs, cold starts while the twin still runs, the JSON; answers the report's section. */
export async function measureCost(settings: CostSettings): Promise<{ lines: string[]; rows: CostRow[] }> {
  let cold: ColdStarts | undefined;
  const costs = await measureWarmCosts(settings, async (measured, environment) => {
    if (settings.coldRuns === 0) return;
    const events = new Map(measured.map((cost) => [cost.handler, cost.event] as const));
    cold = await measureColdStarts(events, environment, settings.coldRuns);
  });
  const rows = costRows(costs, cold);
  await writeCostJson(settings.jsonFile, rows, cold);
  const described = `GET: ${settings.readRuns} warm invocations after one; other methods: ${settings.writeRuns}; cold starts: ${settings.coldRuns} processes per bundle; JSON in ${settings.jsonFile}`;
  return { lines: [...costSection(rows, cold, described), ...(await observabilityCost())], rows };
}
