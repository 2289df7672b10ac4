/**
 * The soak's hostile requests, from the fuzz suite's generators (test/fuzz): a request of a
 * random operation spoiled by a random mutation (every one but 'valid-shaped': oversized and
 * deep bodies, wrong types, malformed JSON, bad paths, queries and tokens...), judged by the fuzz
 * rules; and the issue 21 attacks: the expensive SQL of test/fuzz/expensive-sql.ts analysed
 * with table columns, stored as a recipe and run as a recipe node (one dataset, so its run lock
 * lets one run at a time), and direct exports to over-long object keys.
 *
 * They run in a tenant of their own, whose entities the fuzz fixtures create: what hostile
 * requests manage to create there is not the ordinary traffic's, and the verdict on the
 * table's items looks at the ordinary tenant only.
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';
import { describeOutcome, send } from '../fuzz/check';
import { EXPENSIVE_SQL, type ExpensiveSql } from '../fuzz/expensive-sql';
import { FUZZ_BUCKET, fuzzFixtures, type FuzzEnvironment } from '../fuzz/fixtures';
import { LONG_OBJECT_KEYS } from '../fuzz/hostile';
import { fuzzCases, type FuzzCase } from '../fuzz/requests';
import type { ApiClient } from '../support/api-client';
import { timed } from './caller';
import type { Random } from './random';
import type { Tally } from './tally';

type HostileKind = 'fuzz' | 'analyse' | 'create' | 'run' | 'long-key';

/** How often each kind is drawn: the fuzz's breadth first, then the attacks of issue 21. */
const WEIGHTS: readonly (readonly [HostileKind, number])[] = [
  ['fuzz', 5],
  ['analyse', 2],
  ['create', 1],
  ['run', 1],
  ['long-key', 1],
];

/**
 * The corpus's statements whose cost grows with the rows they produce: run as recipe nodes. The
 * others cost when the statement is prepared, which the analyzer does at every create.
 */
const RUN_NAMES = [
  'cross join 7 ways',
  'recursive CTE without end',
  'string_agg over a cross join',
  'backtracking pattern',
];

/** Columns of the corpus's alias `t` (test/fuzz/expensive-sql.ts), and the CSV of the table the runs read. */
const T_COLUMNS = [{ name: 'x', type: 'BIGINT' }];
const X_FOLDER = 'soak-x/';
const X_CSV = `x\n${Array.from({ length: 1_000 }, (_, index) => index + 1).join('\n')}\n`;
const IMPORT_WAIT_MS = 60_000;

/** A recipe node of a row-costly statement, ready to run. */
interface RunNode {
  readonly sql: ExpensiveSql;
  readonly params: NodeAddress;
}

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

/** A table of the one column `x` (1 to 1,000), imported through the fuzz fixtures' connection. */
async function xTable(api: ApiClient, s3: S3Client, connectionId: number): Promise<number> {
  await s3.send(new PutObjectCommand({ Bucket: FUZZ_BUCKET, Key: `${X_FOLDER}data.csv`, Body: X_CSV }));
  const source = created(
    await api.call('createDataSource', {
      body: { name: 'soak x', type: 'bucket', connection_id: connectionId, path: `${FUZZ_BUCKET}/${X_FOLDER}` },
    }),
    'the x source',
  );
  const table = created(
    await api.call('createDataTable', { body: { name: 'soak x', data_source_id: source.id } }),
    'the x table',
  );
  const started = await api.call('batchCreateDataVersions', { body: { data_table_ids: [table.id] } });
  if (started.status !== 202) throw new Error(`soak hostile fixtures: the x import answered ${started.status}`);
  const deadline = Date.now() + IMPORT_WAIT_MS;
  while (Date.now() < deadline) {
    const version = await api.call('getDataVersion', { params: { data_table_id: table.id, version_number: 1 } });
    if (version.status === 200 && version.body.execution.status === 'COMPLETED') return table.id;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('soak hostile fixtures: the x import did not complete');
}

/** A dataset with one recipe node per row-costly statement, each over a table node of its own (a node feeds one other). */
async function expensiveNodes(api: ApiClient, tableId: number): Promise<RunNode[]> {
  const dataset = created(await api.call('createDataset', { body: { name: 'soak expensive runs' } }), 'the dataset');
  const graph = { dataset_id: dataset.id, version_number: 1 };
  const nodes: RunNode[] = [];
  for (const sql of EXPENSIVE_SQL.filter((candidate) => RUN_NAMES.includes(candidate.name))) {
    const tableNode = created(
      await api.call('addDatasetNode', {
        params: graph,
        body: { node_type: 'TABLE', dataset_id: dataset.id, data_table_id: tableId },
      }),
      'a table node',
    );
    const recipe = created(
      await api.call('createRecipe', {
        body: { name: `soak ${sql.name}`, aliases: ['t'], recipe_version: { code: sql.code } },
      }),
      `the recipe of ${sql.name}`,
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
      `the node of ${sql.name}`,
    );
    nodes.push({ sql, params: { ...graph, node_id: node.id } });
  }
  if (nodes.length !== RUN_NAMES.length) throw new Error(`the SQL corpus lacks one of ${RUN_NAMES.join(', ')}`);
  return nodes;
}

export class HostileTraffic {
  private constructor(
    private readonly api: () => ApiClient,
    private readonly tally: Tally,
    private readonly s3Endpoint: string,
    private readonly cases: readonly FuzzCase[],
    private readonly tableId: number,
    private readonly runNodes: readonly RunNode[],
  ) {}

  /**
   * Creates the hostile tenant's entities (the fuzz fixtures, a table of `x` and a dataset of
   * expensive recipe nodes over it) with `env.admin`, a client of that tenant; `api` is that
   * tenant's client as the soak renews it.
   */
  static async prepare(
    env: FuzzEnvironment,
    s3: S3Client,
    api: () => ApiClient,
    tally: Tally,
  ): Promise<HostileTraffic> {
    const { document, context } = await fuzzFixtures(env);
    const tableId = firstNumber(context.hints.data_table_id, 'data table');
    const connectionId = firstNumber(context.hints.connection_id, 'connection');
    const cases = fuzzCases(document, context).filter(({ mutation }) => mutation !== 'valid-shaped');
    return new HostileTraffic(
      api,
      tally,
      env.twin.s3.endpoint,
      cases,
      tableId,
      await expensiveNodes(env.admin, await xTable(env.admin, s3, connectionId)),
    );
  }

  /** Sends one hostile request of a random kind and records it. */
  async send(random: Random): Promise<void> {
    const kind = random.weighted(WEIGHTS);
    const api = this.api();
    const sql = random.pick(EXPENSIVE_SQL);
    switch (kind) {
      case 'fuzz':
        return this.fuzz(api, random);
      case 'analyse':
        await timed(this.tally, { kind: 'hostile SQL analyse', hostile: true, describe: sql.name }, () =>
          api.call('analyzeRecipe', { body: { code: sql.code, aliases: ['t'], tables: { t: T_COLUMNS } } }),
        );
        return;
      case 'create': {
        const { response } = await timed(
          this.tally,
          { kind: 'hostile SQL recipe', hostile: true, describe: sql.name },
          () =>
            api.call('createRecipe', {
              body: { name: `soak hostile ${random.below(1e9)}`, aliases: ['t'], recipe_version: { code: sql.code } },
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
            describe: `run of ${node.sql.name}`,
          },
          () => api.call('executeDatasetNode', { params: node.params, body: { use_sample: false } }),
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
