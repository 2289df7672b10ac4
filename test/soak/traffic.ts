/**
 * The soak's ordinary traffic: one client's life cycle, repeated until the soak ends. Each
 * cycle creates a connection, a data source over the soak's CSV, a table, imports it, analyses
 * its schema, builds a dataset (table node and recipe node) and runs the recipe, exports the
 * version directly and through a target, reads lists, previews and status along the way, then
 * deletes all it created (and what its exports wrote), so the table's item count stays in a band.
 * Before each request, a hostile one may go first (HostileTraffic).
 */
import { DeleteObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';
import { SOURCE_BUCKET } from '../../bench/import-protocol';
import type { ApiClient, ApiResponse } from '../support/api-client';
import { timed } from './caller';
import type { HostileTraffic } from './hostile-traffic';
import type { Random } from './random';
import type { Tally } from './tally';

/** Where the soak's source CSV lives in the twin's S3, and where its exports go. */
export const SOAK_CSV_KEY = 'soak/orders/data.csv';
const SOURCE_PATH = `${SOURCE_BUCKET}/soak/orders/`;
const OUTPUT_PREFIX = 'soak-out';

/** A small CSV: the import, the run and the exports are quick, so the soak measures what stays, not what works. */
export function soakCsv(rows = 500): string {
  const lines = ['id,customer_id,amount'];
  for (let id = 1; id <= rows; id += 1) lines.push(`${id},${(id % 7) + 1},${(id * 13) % 100}`);
  return `${lines.join('\n')}\n`;
}

const RECIPE_SQL = 'SELECT id, amount * 2 AS doubled FROM orders WHERE amount > 10';
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'ABORTED']);
/** Longest wait for one job of a cycle, and the pause between polls of its status. */
const JOB_WAIT_MS = 90_000;
const POLL_MS = 250;

export interface ClientSetup {
  readonly index: number;
  /** The client to send with: its token is renewed while the soak runs (tokens last 15 minutes). */
  readonly api: () => ApiClient;
  readonly s3: S3Client;
  readonly s3Endpoint: string;
  readonly tally: Tally;
  readonly random: Random;
  readonly hostile: HostileTraffic;
  /** Share of all requests that are hostile (0.05). */
  readonly hostileShare: number;
  /** True once no further cycle should start. */
  readonly ending: () => boolean;
  /** True once nothing more should be sent at all (the twin stopped). */
  readonly aborted: () => boolean;
}

/** The ids a cycle created, deleted at its end in the reverse order of their dependencies. */
interface Created {
  connection?: number;
  source?: number;
  table?: number;
  recipe?: number;
  dataset?: number;
  target?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class SoakClient {
  private cycle = 0;
  /** Chance that a hostile request goes before an ordinary one, so that `hostileShare` of all requests are hostile. */
  private readonly hostileChance: number;

  constructor(private readonly setup: ClientSetup) {
    this.hostileChance =
      setup.hostileShare >= 1 ? Number.POSITIVE_INFINITY : setup.hostileShare / (1 - setup.hostileShare);
  }

  async run(): Promise<void> {
    while (!this.setup.ending() && !this.setup.aborted()) {
      this.cycle += 1;
      const created: Created = {};
      try {
        await this.build(created);
      } finally {
        await this.remove(created);
      }
    }
  }

  /** One request: maybe a hostile one first, then this one, recorded; its body when it succeeded. */
  private async send<T>(
    kind: string,
    describe: string,
    request: () => Promise<ApiResponse<T>>,
  ): Promise<T | undefined> {
    if (this.setup.aborted()) return undefined;
    // More than one hostile request may go first when the share is over a half.
    for (let chance = this.hostileChance; chance > 0 && this.setup.random.next() < chance; chance -= 1)
      await this.setup.hostile.send(this.setup.random);
    const { response } = await timed(this.setup.tally, { kind, hostile: false, describe }, request);
    if (response === undefined || response.status >= 300) return undefined;
    try {
      return response.body;
    } catch (error) {
      this.setup.tally.violation(kind, 'breaks its response schema', `${describe}: ${String(error).slice(0, 300)}`);
      return undefined;
    }
  }

  /** Polls a job's status until it ends (or JOB_WAIT_MS); answers its last status. */
  private async poll<T>(
    kind: string,
    read: () => Promise<ApiResponse<T>>,
    status: (body: T) => string,
  ): Promise<string> {
    const deadline = Date.now() + JOB_WAIT_MS;
    let last = 'UNKNOWN';
    while (Date.now() < deadline && !this.setup.aborted()) {
      const body = await this.send(kind, `poll ${kind}`, read);
      if (body !== undefined) last = status(body);
      if (TERMINAL.has(last)) return last;
      await sleep(POLL_MS);
    }
    return last;
  }

  private name(what: string): string {
    return `soak ${what} c${this.setup.index}-${this.cycle}`;
  }

  private async build(created: Created): Promise<void> {
    const { s3Endpoint } = this.setup;
    const api = this.setup.api();
    const auth = {
      auth_type: 'secret_key',
      access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
      secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
      endpoint: s3Endpoint,
    } as const;
    const connection = await this.send('createConnection', 'object_store connection', () =>
      api.call('createConnection', { body: { name: this.name('s3'), type: 'object_store', auth, write: true } }),
    );
    if (!connection) return;
    created.connection = connection.id;
    const source = await this.send('createDataSource', 'bucket source', () =>
      api.call('createDataSource', {
        body: { name: this.name('source'), type: 'bucket', connection_id: connection.id, path: SOURCE_PATH },
      }),
    );
    if (!source) return;
    created.source = source.id;
    const table = await this.send('createDataTable', 'table', () =>
      api.call('createDataTable', { body: { name: this.name('table'), data_source_id: source.id } }),
    );
    if (!table) return;
    created.table = table.id;
    const version = { data_table_id: table.id, version_number: 1 };
    await this.send('batchCreateDataVersions', 'import', () =>
      api.call('batchCreateDataVersions', { body: { data_table_ids: [table.id] } }),
    );
    const imported = await this.poll(
      'getDataVersion',
      () => api.call('getDataVersion', { params: version }),
      (body) => body.execution.status,
    );
    await this.reads();
    if (imported !== 'COMPLETED') return;
    await this.send('previewDataVersion', 'preview', () => api.call('previewDataVersion', { params: version }));
    await this.analyseSchema(version);
    await this.runRecipe(created, table.id);
    await this.exportDirectly(table.id);
    await this.exportToTarget(created, connection.id, table.id);
  }

  /** Lists and an analysis without a job: what a UI polls while the user looks around. */
  private async reads(): Promise<void> {
    const api = this.setup.api();
    const query = { limit: 10 };
    await this.send('listConnections', 'list', () => api.call('listConnections', { query }));
    await this.send('listDataTables', 'list', () => api.call('listDataTables', { query }));
    await this.send('listRecipes', 'list', () => api.call('listRecipes', { query }));
    await this.send('listDatasets', 'list', () => api.call('listDatasets', { query }));
    await this.send('listTargets', 'list', () => api.call('listTargets', { query }));
    await this.send('listExports', 'list', () => api.call('listExports', { query }));
    await this.send('analyzeRecipe', 'valid SQL with table columns', () =>
      api.call('analyzeRecipe', {
        body: {
          code: RECIPE_SQL,
          aliases: ['orders'],
          tables: {
            orders: [
              { name: 'id', type: 'BIGINT' },
              { name: 'amount', type: 'BIGINT' },
            ],
          },
        },
      }),
    );
  }

  private async analyseSchema(version: { data_table_id: number; version_number: number }): Promise<void> {
    const api = this.setup.api();
    const started = await this.send('analyseDataVersionSchema', 'FULL', () =>
      api.call('analyseDataVersionSchema', { params: version, body: { depth: 'FULL' } }),
    );
    if (!started) return;
    const ended = await this.poll(
      'getSchemaAnalysisStatus',
      () => api.call('getSchemaAnalysisStatus', { params: version }),
      (body) => body.execution.status,
    );
    if (ended === 'COMPLETED')
      await this.send('getSchemaAnalysisResult', 'result', () =>
        api.call('getSchemaAnalysisResult', { params: version }),
      );
  }

  private async runRecipe(created: Created, tableId: number): Promise<void> {
    const api = this.setup.api();
    const recipe = await this.send('createRecipe', 'recipe', () =>
      api.call('createRecipe', {
        body: { name: this.name('recipe'), aliases: ['orders'], recipe_version: { code: RECIPE_SQL } },
      }),
    );
    if (!recipe) return;
    created.recipe = recipe.id;
    const dataset = await this.send('createDataset', 'dataset', () =>
      api.call('createDataset', { body: { name: this.name('dataset') } }),
    );
    if (!dataset) return;
    created.dataset = dataset.id;
    const graph = { dataset_id: dataset.id, version_number: 1 };
    const tableNode = await this.send('addDatasetNode', 'table node', () =>
      api.call('addDatasetNode', {
        params: graph,
        body: { node_type: 'TABLE', dataset_id: dataset.id, data_table_id: tableId },
      }),
    );
    if (!tableNode) return;
    const recipeNode = await this.send('addDatasetNode', 'recipe node', () =>
      api.call('addDatasetNode', {
        params: graph,
        body: {
          node_type: 'RECIPE',
          dataset_id: dataset.id,
          recipe_id: recipe.id,
          recipe_version_number: 1,
          source_node_definitions: [{ source_node_id: tableNode.id, alias: 'orders' }],
        },
      }),
    );
    if (!recipeNode) return;
    const node = { ...graph, node_id: recipeNode.id };
    await this.send('getDatasetGraphMermaid', 'graph', () => api.call('getDatasetGraphMermaid', { params: graph }));
    const started = await this.send('executeDatasetNode', 'run', () =>
      api.call('executeDatasetNode', { params: node, body: { use_sample: false } }),
    );
    if (!started) return;
    const ended = await this.poll(
      'getDatasetNodeRunStatus',
      () => api.call('getDatasetNodeRunStatus', { params: node }),
      (body) => body.execution?.status ?? 'PENDING',
    );
    if (ended === 'COMPLETED')
      await this.send('previewDatasetNode', 'preview', () => api.call('previewDatasetNode', { params: node }));
  }

  private outputPrefix(): string {
    return `${OUTPUT_PREFIX}/c${this.setup.index}/`;
  }

  private async exportDirectly(tableId: number): Promise<void> {
    const { s3Endpoint } = this.setup;
    const api = this.setup.api();
    const started = await this.send('startDirectExport', 'direct export', () =>
      api.call('startDirectExport', {
        body: {
          source_type: 'datatable',
          source_id: tableId,
          source_version: 1,
          bucket: SOURCE_BUCKET,
          key: `${this.outputPrefix()}direct-${this.cycle}.parquet`,
          endpoint: s3Endpoint,
          access_key: LOCAL_S3_CREDENTIALS.accessKeyId,
          secret_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
        },
      }),
    );
    if (!started) return;
    await this.poll(
      'getDirectExport',
      () => api.call('getDirectExport', { params: { job_id: started.job_id } }),
      (body) => body.status.status,
    );
  }

  private async exportToTarget(created: Created, connectionId: number, tableId: number): Promise<void> {
    const api = this.setup.api();
    const target = await this.send('createTarget', 'bucket target', () =>
      api.call('createTarget', {
        body: {
          name: this.name('target'),
          type: 'bucket',
          connection_id: connectionId,
          path: `${SOURCE_BUCKET}/${this.outputPrefix()}{date}/`,
        },
      }),
    );
    if (!target) return;
    created.target = target.id;
    const started = await this.send('createExport', 'export to target', () =>
      api.call('createExport', {
        body: { target_id: target.id, source_type: 'datatable', source_id: tableId, source_version: 1 },
      }),
    );
    if (!started) return;
    await this.poll(
      'getExport',
      () => api.call('getExport', { params: { export_id: started.export_id } }),
      (body) => body.execution.status,
    );
  }

  /** Deletes what the cycle created, dependents first, and the objects its exports wrote. */
  private async remove(created: Created): Promise<void> {
    const api = this.setup.api();
    const removals: [keyof Created, (id: number) => Promise<ApiResponse<undefined>>][] = [
      ['dataset', (id) => api.call('deleteDataset', { params: { dataset_id: id } })],
      ['recipe', (id) => api.call('deleteRecipe', { params: { recipe_id: id } })],
      ['target', (id) => api.call('deleteTarget', { params: { target_id: id } })],
      ['table', (id) => api.call('deleteDataTable', { params: { data_table_id: id } })],
      ['source', (id) => api.call('deleteDataSource', { params: { data_source_id: id } })],
      ['connection', (id) => api.call('deleteConnection', { params: { connection_id: id } })],
    ];
    for (const [what, remove] of removals) {
      const id = created[what];
      if (id !== undefined) await this.send(`delete ${what}`, `${what} ${id}`, () => remove(id));
    }
    await this.removeOutputs();
  }

  private async removeOutputs(): Promise<void> {
    const { s3 } = this.setup;
    try {
      const listing = await s3.send(new ListObjectsV2Command({ Bucket: SOURCE_BUCKET, Prefix: this.outputPrefix() }));
      for (const { Key } of listing.Contents ?? [])
        if (Key !== undefined) await s3.send(new DeleteObjectCommand({ Bucket: SOURCE_BUCKET, Key }));
    } catch (error) {
      // The twin may be gone; the report says so.
      if (!this.setup.aborted()) throw error;
    }
  }
}

/** Runs one client's cycles until `ending()` (it finishes the cycle it is in) or `aborted()`. */
export function runClient(setup: ClientSetup): Promise<void> {
  return new SoakClient(setup).run();
}
