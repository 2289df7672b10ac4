/**
 * A protocol-level fake of the BigQuery REST API (v2) on 127.0.0.1, as @google-cloud/bigquery 8
 * speaks it: datasets.list and datasets.get (GET /bigquery/v2/projects/{p}/datasets[/{d}]),
 * tables.get (…/tables/{t}) and tabledata.list (…/tables/{t}/data: rows as `f`/`v` cells,
 * pages of at most maxResults and `pageRows` rows chained by pageToken). The Google token
 * services (google-auth.ts) are mounted on the same server. Access is per service account
 * and dataset (readers), and per table for its rows; a caller without access gets 403
 * accessDenied as BigQuery answers, a missing dataset or table 404 notFound, a listing of a
 * view 400 invalid. Views are read through query jobs (bigquery-jobs.ts). `inject` makes matching requests fail (503, 403 rateLimitExceeded, 404, hang).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { GoogleAuthFake, apiError, sendJson } from './google-auth';
import { FakeQueryJobs, type Resolved } from './bigquery-jobs';
import { encodeRow, type FakeField, type FakeTable } from './bigquery-tables';
import { freeLocalPort, listenLocally, type Listening } from '../../infra/local/fakes/local-server';

/** unavailable: 503 backendError; rateLimit: 403 rateLimitExceeded; gone: 404 notFound; hang: no answer. */
export type BigQueryFailure = 'unavailable' | 'rateLimit' | 'gone' | 'hang';

interface Dataset {
  readonly readers: Set<string>;
  readonly tables: Map<string, FakeTable>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export type { FakeField, FakeTable };

export class BigQueryFake {
  readonly auth: GoogleAuthFake;
  /** Paths of the API requests received, in order. */
  readonly requests: string[] = [];
  private readonly datasets = new Map<string, Dataset>();
  /** Project → service accounts that may list its datasets. */
  private readonly listers = new Map<string, Set<string>>();
  private readonly injections: { path: RegExp; failure: BigQueryFailure; remaining: number; skip: number }[] = [];
  /** Rows BigQuery puts in a page at most, whatever maxResults asks (its byte limit). */
  pageRows = 1000;
  /** Tables BigQuery puts in a page of tables.list at most, whatever maxResults asks. */
  tablePageSize = 1000;
  /** Query jobs; `jobs.allowJobs` lets an account run them. */
  readonly jobs = new FakeQueryJobs((project, dataset, table, principal) =>
    this.queried(project, dataset, table, principal),
  );
  private listening: Listening | undefined;
  private readonly server = createServer((request, response) => void this.serve(request, response));

  private constructor(private readonly port: number) {
    this.auth = new GoogleAuthFake(this.endpoint);
  }

  static async start(): Promise<BigQueryFake> {
    const fake = new BigQueryFake(await freeLocalPort());
    fake.listening = await listenLocally(fake.server, fake.port);
    return fake;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The settings that point the connectors at this fake. */
  get environment(): Record<string, string> {
    return {
      BIGQUERY_API_ENDPOINT: this.endpoint,
      GOOGLE_STS_ENDPOINT: `${this.endpoint}/v1/token`,
      GOOGLE_IAM_CREDENTIALS_ENDPOINT: this.endpoint,
    };
  }

  get allowOutbound(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** A dataset `project.dataset` that the `readers` (service-account e-mails) may read. */
  addDataset(project: string, dataset: string, readers: readonly string[]): void {
    this.datasets.set(`${project}.${dataset}`, { readers: new Set(readers), tables: new Map() });
  }

  /** A table (or view) of an existing dataset; its readers are the dataset's unless `table.dataReaders` narrows them. */
  addTable(project: string, dataset: string, name: string, table: FakeTable): void {
    const holder = this.datasets.get(`${project}.${dataset}`);
    if (!holder) throw new Error(`no dataset ${project}.${dataset}`);
    holder.tables.set(name, table);
  }

  /** Removes a table, as a DROP TABLE would. */
  dropTable(project: string, dataset: string, name: string): void {
    this.datasets.get(`${project}.${dataset}`)?.tables.delete(name);
  }

  /** Lets a service account list the project's datasets (bigquery.datasets.list on the project). */
  allowDatasetListing(project: string, email: string): void {
    this.listers.set(project, new Set([...(this.listers.get(project) ?? []), email]));
  }

  /** After `skip` (0) requests whose path matches, the next `times` (1) fail with `failure`. */
  inject(failure: BigQueryFailure, path: RegExp, times = 1, skip = 0): void {
    this.injections.push({ path, failure, remaining: times, skip });
  }

  async close(): Promise<void> {
    await this.listening?.close();
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', this.endpoint);
    const body = await readBody(request);
    if (this.auth.handle(method, url.pathname, request.headers, body, response)) return;
    this.requests.push(url.pathname);
    if (this.injected(url.pathname, response)) return;
    const principal = this.auth.principalOf(request.headers.authorization);
    if (!principal)
      return apiError(
        response,
        401,
        'unauthorized',
        'Request is missing required authentication credential.',
        'UNAUTHENTICATED',
      );
    if (
      this.jobs.handle(
        method,
        url.pathname,
        url.searchParams,
        body,
        { principal, scopes: this.auth.scopesOf(request.headers.authorization) },
        response,
      )
    )
      return;
    const tablePath = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)\/tables\/([^/]+)(\/data)?$/.exec(
      url.pathname,
    );
    if (method === 'GET' && tablePath) {
      const [project, datasetId, tableId] = [1, 2, 3].map((index) => decodeURIComponent(tablePath[index]!)) as [
        string,
        string,
        string,
      ];
      return this.serveTable(
        project,
        datasetId,
        tableId,
        tablePath[4] !== undefined,
        url.searchParams,
        principal,
        response,
      );
    }
    const tableListing = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)\/tables$/.exec(url.pathname);
    if (method === 'GET' && tableListing) {
      return this.listTables(
        decodeURIComponent(tableListing[1]!),
        decodeURIComponent(tableListing[2]!),
        url.searchParams,
        principal,
        response,
      );
    }
    const listing = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets$/.exec(url.pathname);
    if (method === 'GET' && listing) return this.listDatasets(decodeURIComponent(listing[1]!), principal, response);
    const match = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)$/.exec(url.pathname);
    if (method !== 'GET' || !match) return apiError(response, 404, 'notFound', 'Not found', 'NOT_FOUND');
    const [project, datasetId] = [decodeURIComponent(match[1]!), decodeURIComponent(match[2]!)];
    const dataset = this.datasets.get(`${project}.${datasetId}`);
    if (!dataset) return apiError(response, 404, 'notFound', `Not found: Dataset ${project}:${datasetId}`, 'NOT_FOUND');
    if (!dataset.readers.has(principal)) {
      return apiError(
        response,
        403,
        'accessDenied',
        `Access Denied: Dataset ${project}:${datasetId}: Permission bigquery.datasets.get denied`,
        'PERMISSION_DENIED',
      );
    }
    sendJson(response, 200, {
      kind: 'bigquery#dataset',
      id: `${project}:${datasetId}`,
      datasetReference: { projectId: project, datasetId },
      location: 'US',
    });
  }

  /** Answers with an injected failure when one matches; true when it did. */
  private injected(path: string, response: ServerResponse): boolean {
    const injected = this.injections.find((candidate) => candidate.remaining > 0 && candidate.path.test(path));
    if (!injected) return false;
    if (injected.skip > 0) {
      injected.skip -= 1;
      return false;
    }
    injected.remaining -= 1;
    switch (injected.failure) {
      case 'hang':
        return true;
      case 'rateLimit':
        apiError(
          response,
          403,
          'rateLimitExceeded',
          'Exceeded rate limits: too many api requests per user per method for this user_method.',
          'PERMISSION_DENIED',
        );
        return true;
      case 'gone':
        apiError(response, 404, 'notFound', `Not found: ${path}`, 'NOT_FOUND');
        return true;
      case 'unavailable':
        apiError(
          response,
          503,
          'backendError',
          'Error encountered during execution. Retrying may solve the problem.',
          'UNAVAILABLE',
        );
        return true;
    }
  }

  /** What a query job reading `project.dataset.table` sees, as `principal`. */
  private queried(project: string, dataset: string, name: string, principal: string): Resolved {
    const table = this.datasets.get(`${project}.${dataset}`)?.tables.get(name);
    if (!table)
      return {
        error: {
          reason: 'notFound',
          message: `Not found: Table ${project}:${dataset}.${name} was not found in location US`,
        },
      };
    if (!this.datasets.get(`${project}.${dataset}`)?.readers.has(principal)) {
      return {
        error: {
          reason: 'accessDenied',
          message: `Access Denied: Table ${project}:${dataset}.${name}: User does not have permission to query table ${project}:${dataset}.${name}.`,
        },
      };
    }
    return table.queryError ? { error: table.queryError } : { table };
  }

  /** tables.get (`data` false) and tabledata.list (`data` true). */
  private serveTable(
    project: string,
    datasetId: string,
    tableId: string,
    data: boolean,
    query: URLSearchParams,
    principal: string,
    response: ServerResponse,
  ): void {
    const dataset = this.datasets.get(`${project}.${datasetId}`);
    if (!dataset) return apiError(response, 404, 'notFound', `Not found: Dataset ${project}:${datasetId}`, 'NOT_FOUND');
    const table = dataset.tables.get(tableId);
    const name = `${project}:${datasetId}.${tableId}`;
    if (!table) return apiError(response, 404, 'notFound', `Not found: Table ${name}`, 'NOT_FOUND');
    const permission = data ? 'bigquery.tables.getData' : 'bigquery.tables.get';
    const readers = data ? (table.dataReaders ?? dataset.readers) : dataset.readers;
    if (!readers.has(principal))
      return apiError(
        response,
        403,
        'accessDenied',
        `Access Denied: Table ${name}: Permission ${permission} denied on table ${name} (or it may not exist).`,
        'PERMISSION_DENIED',
      );
    const type = table.type ?? 'TABLE';
    const rows = table.rows;
    if (!data) {
      return sendJson(response, 200, {
        kind: 'bigquery#table',
        id: name,
        tableReference: { projectId: project, datasetId, tableId },
        type,
        schema: { fields: table.schema },
        numRows: String(rows.length),
        location: 'US',
      });
    }
    if (type !== 'TABLE')
      return apiError(response, 400, 'invalid', `Cannot list a table of type ${type}.`, 'INVALID_ARGUMENT');
    const token = query.get('pageToken');
    const start = token === null ? 0 : Number(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Number.isSafeInteger(start) || start < 0 || start > rows.length)
      return apiError(response, 400, 'invalid', 'Invalid page token.', 'INVALID_ARGUMENT');
    const asked = Number(query.get('maxResults') ?? rows.length);
    const end = Math.min(rows.length, start + Math.min(asked, this.pageRows));
    const int64Timestamps = query.get('formatOptions.useInt64Timestamp') === 'true';
    sendJson(response, 200, {
      kind: 'bigquery#tableDataList',
      etag: `"${rows.length}"`,
      totalRows: String(rows.length),
      rows: rows.slice(start, end).map((row) => encodeRow(table.schema, row, int64Timestamps)),
      ...(end < rows.length ? { pageToken: Buffer.from(String(end)).toString('base64url') } : {}),
    });
  }

  /** tables.list: tables and views by id, with their type; needs bigquery.tables.list on the dataset (its readers). */
  private listTables(
    project: string,
    datasetId: string,
    query: URLSearchParams,
    principal: string,
    response: ServerResponse,
  ): void {
    const dataset = this.datasets.get(`${project}.${datasetId}`);
    if (!dataset) return apiError(response, 404, 'notFound', `Not found: Dataset ${project}:${datasetId}`, 'NOT_FOUND');
    if (!dataset.readers.has(principal)) {
      return apiError(
        response,
        403,
        'accessDenied',
        `Access Denied: Dataset ${project}:${datasetId}: Permission bigquery.tables.list denied`,
        'PERMISSION_DENIED',
      );
    }
    const ids = [...dataset.tables.keys()].sort();
    const token = query.get('pageToken');
    const start = token === null ? 0 : ids.indexOf(Buffer.from(token, 'base64url').toString('utf8'));
    if (start < 0) return apiError(response, 400, 'invalid', 'Invalid page token.', 'INVALID_ARGUMENT');
    const end = Math.min(ids.length, start + Math.min(Number(query.get('maxResults') ?? 50), this.tablePageSize));
    sendJson(response, 200, {
      kind: 'bigquery#tableList',
      etag: `"${ids.length}"`,
      tables: ids.slice(start, end).map((tableId) => ({
        kind: 'bigquery#table',
        id: `${project}:${datasetId}.${tableId}`,
        tableReference: { projectId: project, datasetId, tableId },
        type: dataset.tables.get(tableId)?.type ?? 'TABLE',
      })),
      totalItems: ids.length,
      ...(end < ids.length ? { nextPageToken: Buffer.from(ids[end]!).toString('base64url') } : {}),
    });
  }

  private listDatasets(project: string, principal: string, response: ServerResponse): void {
    if (!this.listers.get(project)?.has(principal)) {
      return apiError(
        response,
        403,
        'accessDenied',
        `Access Denied: Project ${project}: Permission bigquery.datasets.list denied`,
        'PERMISSION_DENIED',
      );
    }
    // Without all=true BigQuery lists only the datasets the caller may read.
    const datasets = [...this.datasets.entries()]
      .filter(([key, dataset]) => key.startsWith(`${project}.`) && dataset.readers.has(principal))
      .map(([key]) => key)
      .map((key) => ({
        kind: 'bigquery#dataset',
        id: key.replace('.', ':'),
        datasetReference: { projectId: project, datasetId: key.slice(project.length + 1) },
      }));
    sendJson(response, 200, { kind: 'bigquery#datasetList', datasets });
  }
}
