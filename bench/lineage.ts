/**
 * What column lineage costs a graph version (docs/lineage.md): a version's lineage is traced
 * when it is read or run, each node again only when what it was traced from moved, so the
 * cost of a save's change is that of one node: DuckDB's parser and the tracer over its
 * recipe. Measured here over the recipe corpus of the tracer's test, beside the whole chain
 * of twenty recipe nodes (the most a version holds) traced from nothing. Issue 44 asks at
 * most 20 ms for what a save adds.
 */
import type { Distribution } from './recipe-sql';
import { analyseTrinoQuery } from '../shared/engine/trino/trino-sql';
import { trinoLineageTree } from '../shared/engine/trino/trino-lineage-tree';
import { traceRecipe, traceTrinoTree, type TracedInput } from '../shared/engine/lineage/trace';

export interface LineageReport {
  readonly oneNode: Distribution;
  readonly twentyNodes: Distribution;
  /** A trino-sql node: its parse translated into the stored tree (what a save adds), then that tree traced. */
  readonly trinoNode: Distribution;
}

/** Issue 44: what a version save adds, at most. */
export const LINEAGE_BUDGET_MS = 20;

const ORDERS: TracedInput = { alias: 'orders', columns: ['id', 'customer_id', 'amount', 'status', 'created'] };
const CUSTOMERS: TracedInput = { alias: 'customers', columns: ['id', 'name', 'country', 'segment'] };

/** A recipe of the shape graphs hold: a CTE, a join, an aggregate, a window. */
const RECIPE = `WITH paid AS (SELECT * EXCLUDE (status) FROM orders WHERE status = 'paid')
SELECT c.name, c.country, count(*) AS n, sum(p.amount) AS total,
       rank() OVER (PARTITION BY c.country ORDER BY sum(p.amount) DESC) AS place
FROM paid p JOIN customers c ON c.id = p.customer_id
GROUP BY c.name, c.country
HAVING sum(p.amount) > 0
ORDER BY total DESC`;

/** RECIPE in Trino's dialect (no EXCLUDE: the columns it keeps are named). */
const TRINO_RECIPE = `WITH paid AS (SELECT id, customer_id, amount, created FROM orders WHERE status = 'paid')
SELECT c.name, c.country, count(*) AS n, sum(p.amount) AS total,
       rank() OVER (PARTITION BY c.country ORDER BY sum(p.amount) DESC) AS place
FROM paid p JOIN customers c ON c.id = p.customer_id
GROUP BY c.name, c.country
HAVING sum(p.amount) > 0
ORDER BY total DESC`;

/**
 * What a trino-sql node costs beyond the save's own analysis: the parse the analyzer made
 * (made here outside the timing) translated into the stored tree, and that tree traced.
 */
function traceTrinoNode(query: ReturnType<typeof analyseTrinoQuery>['query']): void {
  const stored = JSON.stringify(trinoLineageTree(query));
  const lineage = traceTrinoTree(stored, [ORDERS, CUSTOMERS]);
  if (lineage.unknown !== undefined) throw new Error(`the trino node was not traced: ${lineage.unknown}`);
}

const CHAIN_STEP = 'SELECT *, total * 2 AS doubled_{n} FROM previous WHERE n > {n}';

function distribution(samples: readonly number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;
  return {
    p50: at(0.5),
    p99: at(0.99),
    mean: samples.reduce((sum, value) => sum + value, 0) / samples.length,
    samples: samples.length,
  };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Twenty recipe nodes in a chain: the first over the two tables, each next over the one before. */
async function traceChain(): Promise<void> {
  let columns = (await traceRecipe(RECIPE, [ORDERS, CUSTOMERS])).columns.map((column) => column.name ?? '?');
  for (let n = 1; n < 20; n++) {
    const lineage = await traceRecipe(CHAIN_STEP.replaceAll('{n}', String(n)), [{ alias: 'previous', columns }]);
    columns = lineage.columns.map((column) => column.name ?? '?');
  }
}

export async function measureLineage(rounds: number): Promise<LineageReport> {
  // Warm-up: the shared parsing engine is created once per process.
  await traceChain();
  const oneNode: number[] = [];
  const twentyNodes: number[] = [];
  const trinoNode: number[] = [];
  for (let round = 0; round < rounds; round++) {
    oneNode.push(await timed(() => traceRecipe(RECIPE, [ORDERS, CUSTOMERS])));
    twentyNodes.push(await timed(traceChain));
    const { query } = analyseTrinoQuery(TRINO_RECIPE, ['orders', 'customers']);
    trinoNode.push(await timed(async () => traceTrinoNode(query)));
  }
  return { oneNode: distribution(oneNode), twentyNodes: distribution(twentyNodes), trinoNode: distribution(trinoNode) };
}

/** The section's verdict line: ok or FAIL against the budget, on the median of one node. */
export function lineageVerdict(report: LineageReport): string {
  const worst = Math.max(report.oneNode.p50, report.trinoNode.p50);
  const figures = `one node traced in ${report.oneNode.p50.toFixed(2)} ms, a trino-sql node in ${report.trinoNode.p50.toFixed(2)} ms (p50)`;
  return worst <= LINEAGE_BUDGET_MS
    ? `ok: ${figures}, within ${LINEAGE_BUDGET_MS} ms`
    : `FAIL: ${figures}, over ${LINEAGE_BUDGET_MS} ms`;
}

export function lineageSection(report: LineageReport): string[] {
  const row = (label: string, { p50, p99, mean, samples }: Distribution) =>
    `| ${label} | ${p50.toFixed(2)} | ${p99.toFixed(2)} | ${mean.toFixed(2)} | ${samples} |`;
  return [
    '## Column lineage',
    '',
    `A node traced (DuckDB's parser, then the tracer) when its recipe, sources or data version moved: what a save of one node costs its version's next reading. Budget ${LINEAGE_BUDGET_MS} ms.`,
    '',
    '| Traced | p50 ms | p99 ms | mean ms | samples |',
    '| --- | ---: | ---: | ---: | ---: |',
    row('one node (CTE, join, aggregate, window)', report.oneNode),
    row('twenty nodes in a chain, from nothing', report.twentyNodes),
    row('one trino-sql node: its parse translated at save, the stored tree traced', report.trinoNode),
    '',
    // The median: on a shared machine the tail measures the neighbours as much as the tracer.
    lineageVerdict(report),
    '',
  ];
}
