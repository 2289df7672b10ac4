/**
 * The plan of a recipe run (shared/datasets/run-plan.ts) on graphs built in memory: which
 * nodes a run builds and in what order, what each reads, when an output is current, and the
 * refusals of a node that cannot run.
 */
import { describe, expect, it } from 'vitest';
import type { StoredGraph, StoredNode, StoredRecipeNode } from '../../../shared/datasets/items';
import type { NodeOutput, RunInputs, StoredNodeRun } from '../../../shared/datasets/run-items';
import {
  inputsOf,
  isCurrent,
  planRun,
  upstreamOrder,
  type RecipeVersionsByKey,
  type TableVersionsNow,
} from '../../../shared/datasets/run-plan';
import type { StoredRecipeVersion } from '../../../shared/recipes/items';
import { refusal } from '../../support/refusal';

const actor = { id: 'test' };
const at = '2026-01-01T00:00:00.000Z';
const audit = { lock_version: 0, created_by: actor, created_date: at, last_modified_by: actor, last_modified_date: at };

const table = (id: number, tableId: number, version: number | null = null): StoredNode => ({
  ...audit,
  id,
  node_type: 'TABLE',
  data_table_id: tableId,
  data_table_version_number: version,
});
const recipe = (id: number, recipeId: number, sources: [number, string][]): StoredRecipeNode => ({
  ...audit,
  id,
  node_type: 'RECIPE',
  recipe_id: recipeId,
  recipe_version_number: 1,
  sources: sources.map(([source, alias]) => ({ source_node_id: source, alias })),
});
const version = (recipeId: number, aliases: string[], lockVersion = 0): StoredRecipeVersion => ({
  ...audit,
  recipe_id: recipeId,
  version_number: 1,
  code: 'SELECT 1',
  aliases,
  is_locked: false,
  lock_version: lockVersion,
});
const graphOf = (nodes: StoredNode[]): StoredGraph => ({
  ...audit,
  dataset_id: 7,
  version_number: 1,
  version_display_name: 'V1',
  release_status: false,
  next_node_id: 99,
  nodes,
});

// orders (1) and customers (2) → join (3) → aggregate (4)
const nodes = [
  table(1, 10),
  table(2, 20),
  recipe(3, 100, [
    [1, 'orders'],
    [2, 'customers'],
  ]),
  recipe(4, 200, [[3, 'joined']]),
];
const graph = graphOf(nodes);
const versions: RecipeVersionsByKey = new Map([
  ['100/1', version(100, ['orders', 'customers'])],
  ['200/1', version(200, ['joined'])],
]);
const tables: TableVersionsNow = new Map([
  [1, 3],
  [2, 1],
]);
const node = (id: number) => nodes.find((candidate) => candidate.id === id) as StoredRecipeNode;

function runWith(nodeId: number, inputs: RunInputs, runId: string): StoredNodeRun {
  const output: NodeOutput = {
    run_id: runId,
    inputs,
    row_count: 1,
    columns: [],
    data_bytes: 1,
    cpu_seconds: 0,
    analysis_depth: 'SHALLOW',
    completed_date: at,
  };
  return {
    dataset_id: 7,
    version_number: 1,
    node_id: nodeId,
    execution: { job_id: runId, status: 'COMPLETED', progress: { stage: 'DONE', percent: 100 }, heartbeat_date: at },
    job_target: 4,
    build_node_ids: [3, 4],
    use_sample: true,
    schema_analysis_depth: 'SHALLOW',
    run_by: actor,
    queued_date: at,
    sample_output: output,
  };
}

/** Runs as a successful job `runId` left them: the join and the aggregate built on the current inputs. */
function builtRuns(runId = 'recipe-run-1'): Map<number, StoredNodeRun> {
  const runs = new Map<number, StoredNodeRun>();
  const joinInputs = inputsOf(graph, node(3), versions.get('100/1')!, tables, { runs }, 'sample') as RunInputs;
  runs.set(3, runWith(3, joinInputs, runId));
  const aggregateInputs = inputsOf(graph, node(4), versions.get('200/1')!, tables, { runs }, 'sample') as RunInputs;
  runs.set(4, runWith(4, aggregateInputs, runId));
  return runs;
}

describe('the plan of a run', () => {
  it('orders the upstream recipe nodes first, TABLE nodes aside', () => {
    expect(upstreamOrder(graph, node(4)).map((candidate) => candidate.id)).toEqual([3, 4]);
  });

  it('builds the upstream node without an output first; it reads the tables, the target reads the upstream output of this job', () => {
    const steps = planRun(graph, 4, versions, tables, new Map(), 'sample', 'job-a');
    expect(steps.map((step) => step.node_id)).toEqual([3, 4]);
    expect(steps[0]?.inputs.sources).toEqual([
      { alias: 'orders', node_id: 1, data_table_id: 10, data_version_number: 3 },
      { alias: 'customers', node_id: 2, data_table_id: 20, data_version_number: 1 },
    ]);
    expect(steps[1]?.inputs).toEqual({
      recipe_id: 200,
      recipe_version_number: 1,
      recipe_lock_version: 0,
      sources: [{ alias: 'joined', node_id: 3, upstream_run_id: 'job-a' }],
    });
  });

  it('skips an upstream node whose output is current, and reads that output', () => {
    const runs = builtRuns();
    expect(isCurrent(graph, node(3), versions, tables, runs, 'sample')).toBe(true);
    const steps = planRun(graph, 4, versions, tables, runs, 'sample', 'job-b');
    expect(steps.map((step) => step.node_id)).toEqual([4]);
    expect(steps[0]?.inputs.sources).toEqual([{ alias: 'joined', node_id: 3, upstream_run_id: 'recipe-run-1' }]);
    // The other kind has no output yet: the full run builds both.
    expect(planRun(graph, 4, versions, tables, runs, 'full', 'job-c').map((step) => step.node_id)).toEqual([3, 4]);
  });

  it('a newer table version, a changed code or a rebinding makes an output stale, and everything downstream of it', () => {
    const runs = builtRuns();
    const newerTable: TableVersionsNow = new Map([
      [1, 4],
      [2, 1],
    ]);
    expect(isCurrent(graph, node(3), versions, newerTable, runs, 'sample')).toBe(false);
    expect(isCurrent(graph, node(4), versions, newerTable, runs, 'sample')).toBe(false);
    expect(planRun(graph, 4, versions, newerTable, runs, 'sample', 'job-d').map((step) => step.node_id)).toEqual([
      3, 4,
    ]);

    const changedCode: RecipeVersionsByKey = new Map([
      ...versions,
      ['100/1', version(100, ['orders', 'customers'], 1)],
    ]);
    expect([
      isCurrent(graph, node(3), changedCode, tables, runs, 'sample'),
      isCurrent(graph, node(4), changedCode, tables, runs, 'sample'),
    ]).toEqual([false, false]);

    const swapped = graphOf([
      ...nodes.slice(0, 2),
      recipe(3, 100, [
        [2, 'orders'],
        [1, 'customers'],
      ]),
      nodes[3]!,
    ]);
    expect(isCurrent(swapped, swapped.nodes[2] as StoredRecipeNode, versions, tables, runs, 'sample')).toBe(false);
  });

  it('refuses a TABLE node (20-1014), a missing binding (20-1049) and a table with nothing to read (20-1059)', () => {
    expect(refusal(() => planRun(graph, 1, versions, tables, new Map(), 'sample', 'job')).code).toBe('20-1014');
    const unbound = graphOf([...nodes.slice(0, 3), recipe(4, 200, [])]);
    expect(refusal(() => planRun(unbound, 4, versions, tables, builtRuns(), 'sample', 'job')).code).toBe('20-1049');
    const empty: TableVersionsNow = new Map([
      [1, undefined],
      [2, 1],
    ]);
    const refused = refusal(() => planRun(graph, 4, versions, empty, new Map(), 'sample', 'job'));
    expect([refused.code, refused.message]).toEqual([
      '20-1059',
      'Sample for data table 10 version latest not available',
    ]);
  });
});
