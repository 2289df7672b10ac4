/**
 * The upload part of the pricing system's protocol (docs/pricing.md, "The calls"), shared by the
 * DIM and SDK fakes: GET /ping, GET /import, uploads, batches, commit and abort, in memory. It
 * keeps what it received (uploads, every batch, the rows with their column types, committed
 * tables) and can be told to fail the ways a real system does.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PricingColumn } from '../../../shared/connectors/pricing/connector';
import { PRICING_TYPES, type PricingType } from '../../../shared/model/transfer';

export type PricingScalar = string | number | boolean | null;

export interface FakeTable {
  readonly state: 'READY' | 'NEW' | 'LOCKED';
  readonly maxRows: number;
  readonly maxColumns: number;
}

export interface FakeUpload {
  readonly uploadId: string;
  readonly key: string;
  readonly project: string;
  readonly table: string;
  readonly columns: readonly PricingColumn[];
  state: 'OPEN' | 'COMMITTED' | 'ABORTED';
  /** Rows taken, in order (batches it ignored are not here). */
  readonly rows: PricingScalar[][];
  /** Every batch sequence it heard, repeats included. */
  readonly sequences: number[];
}

export interface CommittedTable {
  readonly columns: readonly PricingColumn[];
  readonly rows: PricingScalar[][];
}

export interface PricingReceived {
  readonly uploads: FakeUpload[];
  /** Calls heard at the host, as "METHOD /path" (query left out). */
  readonly calls: string[];
  /** Committed tables by "project|table". */
  readonly tables: Map<string, CommittedTable>;
  /** The Authorization headers the upload calls carried. */
  readonly authorizations: string[];
}

/**
 * How the host fails: `unauthorized` (401 to every call), `server-error` (500), `bad-json` (200
 * that is not JSON), `transient` (the next `times` batches answer `status`, 429 with Retry-After
 * `retryAfter` seconds, then it works), `reset` (the next `times` batches lose their connection).
 */
export type HostFailure =
  | { readonly kind: 'unauthorized' }
  | { readonly kind: 'server-error' }
  | { readonly kind: 'bad-json' }
  | {
      readonly kind: 'transient';
      readonly status: 429 | 500 | 502 | 503;
      readonly times: number;
      readonly retryAfter?: number;
    }
  | { readonly kind: 'reset'; readonly times: number };

const MAX_BATCH_ROWS = 10_000;
const DEFAULT_TABLE: FakeTable = { state: 'NEW', maxRows: 1_000_000, maxColumns: 200 };

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    request.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether a value is what the protocol sends for a column of `type`. */
function isValueOf(type: PricingType, value: unknown): boolean {
  if (value === null) return true;
  switch (type) {
    case 'STRING':
      return typeof value === 'string';
    case 'INTEGER':
      return (
        (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value))
      );
    case 'DECIMAL':
      return (
        (typeof value === 'number' && Number.isFinite(value)) ||
        (typeof value === 'string' && /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(value))
      );
    case 'BOOLEAN':
      return typeof value === 'boolean';
    case 'DATE':
      return typeof value === 'string' && /^\d{4}-\d\d-\d\d$/.test(value);
    case 'DATETIME':
      return typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?$/.test(value);
  }
}

function isColumns(value: unknown): value is PricingColumn[] {
  return (
    Array.isArray(value) &&
    value.every(
      (column: { name?: unknown; type?: unknown }) =>
        typeof column?.name === 'string' && (PRICING_TYPES as readonly unknown[]).includes(column.type),
    )
  );
}

const tableKey = (project: string, table: string) => `${project}|${table}`;

/** The pricing system's upload side, answering requests its host server hands it. */
export class PricingUploads {
  readonly received: PricingReceived = { uploads: [], calls: [], tables: new Map(), authorizations: [] };
  private readonly limits = new Map<string, FakeTable>();
  private failure: HostFailure | undefined;
  /** Batches still to fail for a `transient` or `reset` failure. */
  private remaining = 0;

  /** Sets a table's limits and state (a table not set is NEW with 1 000 000 rows and 200 columns). */
  setTable(project: string, table: string, limits: Partial<FakeTable>): void {
    this.limits.set(tableKey(project, table), { ...this.tableOf(project, table), ...limits });
  }

  /** Makes the host fail (undefined: works again). */
  fail(failure: HostFailure | undefined): void {
    this.failure = failure;
    this.remaining = failure && 'times' in failure ? failure.times : 0;
  }

  /** The rows of a committed table, or undefined. */
  committed(project: string, table: string): CommittedTable | undefined {
    return this.received.tables.get(tableKey(project, table));
  }

  private tableOf(project: string, table: string): FakeTable {
    return this.limits.get(tableKey(project, table)) ?? DEFAULT_TABLE;
  }

  /** Answers one upload-side request whose credential the host already checked; `url` is relative to the host. */
  async handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const body = parseJson(await readBody(request));
    this.received.calls.push(`${request.method} ${url.pathname}`);
    this.received.authorizations.push(request.headers.authorization ?? '');
    const failure = this.failure;
    const batch = /^\/uploads\/([^/]+)\/batches\/(\d+)$/.exec(url.pathname);
    if (failure?.kind === 'unauthorized') return sendJson(response, 401, { error: 'unauthorized', message: 'no' });
    if (failure?.kind === 'server-error') return sendJson(response, 500, { error: 'internal', message: 'boom' });
    if (failure?.kind === 'bad-json') {
      response.writeHead(200, { 'content-type': 'text/html' });
      return void response.end('<html>maintenance</html>');
    }
    if (batch && failure && (failure.kind === 'transient' || failure.kind === 'reset') && this.remaining > 0) {
      this.remaining--;
      if (failure.kind === 'reset') return void request.socket.destroy();
      const headers: Record<string, string> =
        failure.retryAfter === undefined ? {} : { 'retry-after': String(failure.retryAfter) };
      return sendJson(response, failure.status, { error: 'busy', message: 'try again' }, headers);
    }
    if (request.method === 'GET' && url.pathname === '/ping') return sendJson(response, 200, { status: 'ok' });
    if (request.method === 'GET' && url.pathname === '/import') return this.describe(response, url);
    if (request.method === 'POST' && url.pathname === '/uploads') return this.open(response, body);
    if (request.method === 'PUT' && batch) return this.batch(response, batch[1]!, Number(batch[2]), body);
    const closing = /^\/uploads\/([^/]+)\/(commit|abort)$/.exec(url.pathname);
    if (request.method === 'POST' && closing)
      return this.close(response, closing[1]!, closing[2] as 'commit' | 'abort');
    return sendJson(response, 404, { error: 'not_found', message: `no ${request.method} ${url.pathname}` });
  }

  private describe(response: ServerResponse, url: URL) {
    const project = url.searchParams.get('project');
    const table = url.searchParams.get('table');
    if (!project || !table) return sendJson(response, 400, { error: 'invalid_request', message: 'project and table' });
    if (!project.startsWith('\\')) return sendJson(response, 404, { error: 'project_not_found', message: project });
    return sendJson(response, 200, { project, table, ...this.tableOf(project, table) });
  }

  private open(response: ServerResponse, body: unknown) {
    const { key, project, table, columns } = (body ?? {}) as Record<string, unknown>;
    if (typeof key !== 'string' || typeof project !== 'string' || typeof table !== 'string' || !isColumns(columns))
      return sendJson(response, 400, { error: 'invalid_request', message: 'key, project, table, columns' });
    const existing = this.received.uploads.find((upload) => upload.key === key);
    if (existing) {
      const same =
        existing.project === project &&
        existing.table === table &&
        JSON.stringify(existing.columns) === JSON.stringify(columns);
      if (!same || existing.state === 'ABORTED')
        return sendJson(response, 409, { error: 'key_conflict', message: key });
      return sendJson(response, 200, this.countsOf(existing));
    }
    if (columns.length > this.tableOf(project, table).maxColumns)
      return sendJson(response, 400, { error: 'too_many_columns', message: String(columns.length) });
    const upload: FakeUpload = {
      uploadId: `u-${randomUUID()}`,
      key,
      project,
      table,
      columns,
      state: 'OPEN',
      rows: [],
      sequences: [],
    };
    this.received.uploads.push(upload);
    return sendJson(response, 201, this.countsOf(upload));
  }

  private countsOf(upload: FakeUpload) {
    return {
      uploadId: upload.uploadId,
      state: upload.state,
      acceptedRows: upload.rows.length,
      nextSequence: new Set(upload.sequences).size,
    };
  }

  private batch(response: ServerResponse, uploadId: string, sequence: number, body: unknown) {
    const upload = this.received.uploads.find((candidate) => candidate.uploadId === uploadId);
    if (!upload) return sendJson(response, 404, { error: 'upload_not_found', message: uploadId });
    const nextSequence = new Set(upload.sequences).size;
    const counts = () => ({ acceptedRows: upload.rows.length, nextSequence: new Set(upload.sequences).size });
    if (sequence < nextSequence) {
      upload.sequences.push(sequence);
      return sendJson(response, 200, counts());
    }
    if (upload.state !== 'OPEN') return sendJson(response, 409, { error: 'upload_closed', message: upload.state });
    if (sequence > nextSequence) return sendJson(response, 409, { error: 'sequence_gap', nextSequence });
    const rows = (body as { rows?: unknown } | undefined)?.rows;
    if (!Array.isArray(rows)) return sendJson(response, 400, { error: 'invalid_request', message: 'rows' });
    if (rows.length > MAX_BATCH_ROWS) return sendJson(response, 413, { error: 'batch_too_large', message: '' });
    if (upload.rows.length + rows.length > this.tableOf(upload.project, upload.table).maxRows)
      return sendJson(response, 400, { error: 'too_many_rows', message: '' });
    for (const [index, row] of rows.entries()) {
      if (!Array.isArray(row) || row.length !== upload.columns.length)
        return sendJson(response, 400, { error: 'invalid_row', row: index, message: 'length' });
      const wrong = upload.columns.find((column, position) => !isValueOf(column.type, row[position]));
      if (wrong) return sendJson(response, 400, { error: 'invalid_row', row: index, column: wrong.name, message: '' });
    }
    upload.sequences.push(sequence);
    upload.rows.push(...(rows as PricingScalar[][]));
    return sendJson(response, 200, counts());
  }

  private close(response: ServerResponse, uploadId: string, action: 'commit' | 'abort') {
    const upload = this.received.uploads.find((candidate) => candidate.uploadId === uploadId);
    if (!upload) return sendJson(response, 404, { error: 'upload_not_found', message: uploadId });
    const target = action === 'commit' ? 'COMMITTED' : 'ABORTED';
    if (upload.state !== 'OPEN' && upload.state !== target)
      return sendJson(response, 409, { error: 'upload_closed', message: upload.state });
    if (upload.state === 'OPEN' && action === 'commit') {
      const key = tableKey(upload.project, upload.table);
      const held = this.received.tables.get(key);
      this.received.tables.set(key, { columns: upload.columns, rows: [...(held?.rows ?? []), ...upload.rows] });
      // A NEW table exists once something is committed into it.
      if (this.tableOf(upload.project, upload.table).state === 'NEW')
        this.setTable(upload.project, upload.table, { state: 'READY' });
    }
    upload.state = target;
    return sendJson(response, 200, {
      state: target,
      ...(action === 'commit' ? { committedRows: upload.rows.length } : {}),
    });
  }
}
