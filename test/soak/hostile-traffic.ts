/**
 * The soak's hostile requests, from the fuzz suite's generators (test/fuzz): a request of a
 * random operation spoiled by a random mutation (every one but 'valid-shaped': oversized and
 * deep bodies, wrong types, malformed JSON, bad paths, queries and tokens...), judged by the fuzz
 * rules; and the issue 21 attacks: expensive SQL analysed with table columns, stored as a
 * recipe and run as a recipe node, and direct exports to over-long object keys.
 *
 * They run in a tenant of their own, whose entities the fuzz fixtures create: what hostile
 * requests manage to create there is not the ordinary traffic's, and the verdict on the
 * table's items looks at the ordinary tenant only.
 */
import fc from 'fast-check';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';
import { describeOutcome, send } from '../fuzz/check';
import { FUZZ_BUCKET, fuzzFixtures, type FuzzEnvironment } from '../fuzz/fixtures';
import { EXPENSIVE_SQL, LONG_OBJECT_KEYS } from '../fuzz/hostile';
import { fuzzCases, type FuzzCase } from '../fuzz/requests';
import type { ApiClient } from '../support/api-client';
import { timed } from './caller';
import type { Random } from './random';
import type { Tally } from './tally';

type HostileKind = 'fuzz' | 'analyze' | 'create' | 'run' | 'long-key';

/** How often each kind is drawn: the fuzz's breadth first, then the attacks of issue 21. */
const WEIGHTS: readonly (readonly [HostileKind, number])[] = [
  ['fuzz', 5],
  ['analyze', 2],
  ['create', 1],
  ['run', 1],
  ['long-key', 1],
];

const ALL_SQL: readonly string[] = [...EXPENSIVE_SQL.constants, ...EXPENSIVE_SQL.rows];

/** Columns of the alias `t` when a statement is analysed with tables (what makes the engine prepare it). */
const T_COLUMNS = [
  { name: 'id', type: 'BIGINT' },
  { name: 'name', type: 'VARCHAR' },
];

/** A recipe node whose SQL costs per row produced (EXPENSIVE_SQL.rows), ready to run. */
interface NodeAddress {
  readonly dataset_id: number;
  readonly version_number: number;
  readonly node_id: number;
}

function firstNumber(values: readonly unknown[] | undefined, what: string): number {
  const value = values?.[0];
  if (typeof value !== 'number') throw new Error(`the fuzz fixtures name no ${what}`);
  return value;
}

function created<T>(response: { status: number; text: string; body: T }, what: string): T {
  if (response.status !== 201)
    throw new Error(`soak hostile fixtures: ${what} answered ${response.status} ${response.text}`);
  return response.body;
}

/** A dataset over the fixtures' table with one recipe node per row-costly statement, each over a table node of its own. */
async function expensiveNodes(api: ApiClient, tableId: number): Promise<NodeAddress[]> {
  const dataset = created(await api.call('createDataset', { body: { name: 'soak expensive runs' } }), 'the dataset');
  const graph = { dataset_id: dataset.id, version_number: 1 };
  const nodes: NodeAddress[] = [];
  for (const [index, code] of EXPENSIVE_SQL.rows.entries()) {
    // A node feeds one other node: a table node for each.
    const tableNode = created(
      await api.call('addDatasetNode', {
        params: graph,
        body: { node_type: 'TABLE', dataset_id: dataset.id, data_table_id: tableId },
      }),
      'the table node',
    );
    const recipe = created(
      await api.call('createRecipe', {
        body: { name: `soak expensive ${index}`, aliases: ['t'], recipe_version: { code } },
      }),
      `the recipe of ${code}`,
    );
    const node = created(
      await api.call('addDatasetNode', {
        params: graph,
        body: {
          node_type: 'RECIPE',
          dataset_id: dataset.id,
          recipe_id: recipe.id,
          recipe_version_number: 1,
          source_node_definitions: [{ source_node_id: tableNode.id, alias: 't' }],
        },
      }),
      `the node of ${code}`,
    );
    nodes.push({ ...graph, node_id: node.id });
  }
  return nodes;
}

export class HostileTraffic {
  private constructor(
    private readonly api: () => ApiClient,
    private readonly tally: Tally,
    private readonly s3Endpoint: string,
    private readonly cases: readonly FuzzCase[],
    private readonly tableId: number,
    private readonly runNodes: readonly NodeAddress[],
  ) {}

  /**
   * Creates the hostile tenant's entities (the fuzz fixtures, and a dataset of expensive
   * recipe nodes) with `env.admin`, a client of that tenant; `api` is that tenant's client as
   * the soak renews it.
   */
  static async prepare(env: FuzzEnvironment, api: () => ApiClient, tally: Tally): Promise<HostileTraffic> {
    const { document, context } = await fuzzFixtures(env);
    const tableId = firstNumber(context.hints.data_table_id, 'data table');
    const cases = fuzzCases(document, context).filter(({ mutation }) => mutation !== 'valid-shaped');
    return new HostileTraffic(
      api,
      tally,
      env.twin.s3.endpoint,
      cases,
      tableId,
      await expensiveNodes(env.admin, tableId),
    );
  }

  /** Sends one hostile request of a random kind and records it. */
  async send(random: Random): Promise<void> {
    const kind = random.weighted(WEIGHTS);
    const api = this.api();
    const sql = random.pick(ALL_SQL);
    switch (kind) {
      case 'fuzz':
        return this.fuzz(api, random);
      case 'analyze':
        await timed(this.tally, { kind: 'hostile SQL analyze', hostile: true, describe: sql }, () =>
          api.call('analyzeRecipe', { body: { code: sql, aliases: ['t'], tables: { t: T_COLUMNS } } }),
        );
        return;
      case 'create': {
        const { response } = await timed(this.tally, { kind: 'hostile SQL recipe', hostile: true, describe: sql }, () =>
          api.call('createRecipe', {
            body: { name: `soak hostile ${random.below(1e9)}`, aliases: ['t'], recipe_version: { code: sql } },
          }),
        );
        const id = response?.status === 201 ? response.body.id : undefined;
        if (id !== undefined)
          await timed(this.tally, { kind: 'hostile cleanup', hostile: true, describe: `recipe ${id}` }, () =>
            api.call('deleteRecipe', { params: { recipe_id: id } }),
          );
        return;
      }
      case 'run': {
        const node = random.pick(this.runNodes);
        await timed(
          this.tally,
          {
            kind: 'hostile SQL run',
            hostile: true,
            describe: `node ${node.node_id} of ${JSON.stringify(EXPENSIVE_SQL.rows)}`,
          },
          () => api.call('executeDatasetNode', { params: node, body: { use_sample: false } }),
        );
        return;
      }
      case 'long-key': {
        const key = random.pick(LONG_OBJECT_KEYS);
        await timed(
          this.tally,
          {
            kind: 'hostile long object key',
            hostile: true,
            describe: `direct export to a ${key.length}-character key`,
          },
          () =>
            api.call('startDirectExport', {
              body: {
                source_type: 'datatable',
                source_id: this.tableId,
                source_version: 1,
                bucket: FUZZ_BUCKET,
                key,
                endpoint: this.s3Endpoint,
                access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
                secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
              },
            }),
        );
        return;
      }
    }
  }

  /** A fuzz request, sent and judged by test/fuzz/check.ts; a 5xx or no answer is the tally's to count. */
  private async fuzz(api: ApiClient, random: Random): Promise<void> {
    const { requests } = random.pick(this.cases);
    const [request] = fc.sample(requests, { seed: random.below(2 ** 31), numRuns: 1 });
    if (!request) return;
    const outcome = await send(api, request);
    this.tally.record({
      kind: `hostile fuzz ${request.mutation}`,
      hostile: true,
      status: outcome.status,
      code: outcome.code,
      ms: outcome.durationMs,
      detail: describeOutcome(outcome),
      violation: outcome.violations.find((violation) => !/^(answered 5|no answer)/.test(violation)),
    });
  }
}
