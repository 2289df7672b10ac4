/**
 * The request corpus of the contract test: for every operation of the route table, one valid
 * request and its variations (bad path values, query bounds and grammar, body members of the
 * wrong type, out of bounds, blank, padded, removed or unknown, wrong media types, malformed
 * JSON, wrong methods, missing tokens and idempotency keys). No case says what the answer
 * should be: the test compares what the document says with what the service does.
 */
import { routeTable, type OperationId } from '../../functions/routes';
import { adminBases } from './admin-bases';
import { appBases } from './app-bases';
import { connectionBases } from './connection-bases';
import { conversationBases } from './conversation-bases';
import { datasetBases, type DatasetFixtures } from './dataset-bases';
import { exportBases } from './export-bases';
import type { HttpRequest } from './openapi-validator';
import { qualityScheduleBases, type QualityScheduleFixtures } from './quality-schedule-bases';
import { quotaBases } from './quota-bases';
import { recipeBases } from './recipe-bases';
import { AUDIT_MEMBERS, echo, lockOf, type Base } from './request-base';
import { targetBases, type TargetFixtures } from './target-bases';
import { retentionBases } from './retention-bases';
import { transferBases } from './transfer-bases';
import { tokenBases, type TokenFixtures } from './token-bases';
import { bodyVariations, INTEGER_TEXTS, type JsonValue } from './variations';

/** The entities the corpus aims at, made beforehand in a fresh twin. */
export interface ContractFixtures {
  readonly endpoint: string;
  /** A folder of the twin's S3 with a CSV file: "<bucket>/<folder>/". */
  readonly folder: string;
  readonly connectionId: number;
  readonly sourceId: number;
  readonly tableId: number;
  readonly versionNumber: number;
  /** Entities nothing depends on, for the deletes. */
  readonly spare: {
    readonly connectionId: number;
    readonly sourceId: number;
    readonly tableId: number;
    readonly recipeId: number;
  };
  /** A recipe with version 1. */
  readonly recipeId: number;
  readonly client: { readonly id: string; readonly secret: string };
  /** The entities as GET answers them: the bases of full updates. */
  readonly current: {
    readonly connection: JsonValue;
    readonly source: JsonValue;
    readonly table: JsonValue;
    readonly recipe: JsonValue;
  };
  readonly datasets: DatasetFixtures;
  readonly targets: TargetFixtures;
  readonly tokens: TokenFixtures;
  readonly qualitySchedules: QualityScheduleFixtures;
}

export interface ContractCase {
  readonly operationId: OperationId;
  readonly label: string;
  readonly request: HttpRequest;
  /** Sent without the caller's token. */
  readonly anonymous?: boolean;
}

const DATA_SOURCE_TYPES = ['rdbms', 'delta_sharing', 'delta sharing', 'analytics_db', 'BUCKET'];

/** Filter fields by list operation, as docs/list-query.md lists them. */
const LIST_FIELDS: Readonly<
  Record<string, { readonly text: string; readonly integer: string; readonly list?: string }>
> = {
  listConnections: { text: 'name', integer: 'id', list: 'tags' },
  listDataSources: { text: 'name', integer: 'connection_id', list: 'tags' },
  listDataTables: { text: 'description', integer: 'data_source_id', list: 'tags' },
  listDataVersions: { text: 'status', integer: 'version_number' },
  listRecipes: { text: 'name', integer: 'latest_version_number', list: 'tags' },
  listRecipeVersionUsages: { text: 'dataset_name', integer: 'node_id' },
  listDatasets: { text: 'name', integer: 'id', list: 'tags' },
  listDatasetVersions: { text: 'version_display_name', integer: 'version_number' },
  listTargets: { text: 'name', integer: 'connection_id', list: 'tags' },
  listExports: { text: 'source_type', integer: 'target_id' },
  listTransfers: { text: 'source_type', integer: 'target_id' },
  // Tables have no integer field: the integer probes go to a text one, refused alike by both sides.
  listConnectionTables: { text: 'name', integer: 'schema' },
  // Tokens and roles have no integer field either.
  listTokens: { text: 'description', integer: 'client_id', list: 'role_ids' },
  listRoles: { text: 'name', integer: 'role_id', list: 'permissions' },
  listQuotaContracts: { text: 'name', integer: 'id', list: 'tags' },
  // Tenants have no integer or list field: the probes go to text ones.
  listTenants: { text: 'name', integer: 'tenant_id' },
  listQualityRules: { text: 'name', integer: 'data_table_id', list: 'tags' },
  listSchedules: { text: 'name', integer: 'dataset_id', list: 'tags' },
};

/**
 * The valid request of each operation. An operation missing here has no cases, and the
 * contract test's coverage check names it.
 */
function bases(f: ContractFixtures): Partial<Readonly<Record<OperationId, Base>>> {
  const connectionId = { connection_id: String(f.connectionId) };
  const sourceId = { data_source_id: String(f.sourceId) };
  const tableId = { data_table_id: String(f.tableId) };
  const version = { ...tableId, version_number: String(f.versionNumber) };
  return {
    issueToken: {
      body: { grant_type: 'client_credentials', client_id: f.client.id, client_secret: f.client.secret },
      mediaType: 'application/json',
    },
    getOpenApiDocument: {},
    getErrorType: { params: { code: '10-400' } },
    getApiReference: {},
    getApiReferenceScript: {},
    ...connectionBases(f),
    createDataSource: {
      body: {
        type: 'bucket',
        name: 'contract source',
        description: null,
        tags: null,
        connection_id: f.connectionId,
        path: f.folder,
      },
      enums: { type: DATA_SOURCE_TYPES },
    },
    listDataSources: { query: {} },
    getDataSource: { params: sourceId },
    updateDataSource: { params: sourceId, body: echo(f.current.source, ...AUDIT_MEMBERS) },
    mergeDataSource: {
      params: sourceId,
      body: {
        id: f.sourceId,
        lock_version: lockOf(f.current.source),
        type: 'bucket',
        name: 'merged source',
        tags: ['t'],
      },
      mediaType: 'application/merge-patch+json',
      enums: { type: DATA_SOURCE_TYPES },
    },
    deleteDataSource: { params: { data_source_id: String(f.spare.sourceId) } },
    testRdbmsQuery: { params: connectionId, body: { query: 'SELECT 1', warehouse: 'w' } },
    createDataTable: {
      body: {
        name: 'contract table',
        description: 'd',
        tags: ['x', 'y'],
        data_source_id: f.sourceId,
        data_version_exist: false,
      },
    },
    listDataTables: { query: { offset: '0', limit: '1000' } },
    getDataTable: { params: tableId },
    updateDataTable: {
      params: tableId,
      body: echo(f.current.table, ...AUDIT_MEMBERS, 'connection_details', 'latest_data_version'),
    },
    deleteDataTable: { params: { data_table_id: String(f.spare.tableId) } },
    listDataVersions: { params: tableId },
    getDataVersion: { params: version },
    getDataVersionLineage: { params: version },
    batchCreateDataVersions: { body: { data_table_ids: [f.spare.tableId] } },
    batchDeleteDataVersions: { body: { data_versions: [{ data_table_id: f.spare.tableId, version_number: 99 }] } },
    previewDataVersion: { params: version },
    sampleDataVersion: { params: version, query: { offset: '1', limit: '2' } },
    analyseDataVersionSchema: {
      params: version,
      body: { depth: 'SHALLOW' },
      enums: { depth: ['FULL', 'shallow', 'DEEP'] },
    },
    getSchemaAnalysisStatus: { params: version },
    // A COMPLETED import and no running analysis: both refused (10-400, 20-1025).
    cancelDataVersionImport: { params: version },
    cancelSchemaAnalysis: { params: version },
    getSchemaAnalysisResult: { params: version },
    getSchemaAlerts: { params: version },
    ...recipeBases(f),
    ...datasetBases(f.datasets),
    ...exportBases(f),
    ...targetBases(f.targets),
    ...tokenBases(f.tokens),
    ...quotaBases(),
    ...adminBases(),
    ...retentionBases(),
    ...conversationBases(),
    ...transferBases(f),
    ...appBases(),
    ...qualityScheduleBases(f.qualitySchedules),
  };
}

function pathOf(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

function queryText(query: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(query).map(
    ([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
  );
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

/** Sort and filter texts over a resource's fields: valid ones, and each way of breaking the grammar. */
function listQueries(fields: {
  readonly text: string;
  readonly integer: string;
  readonly list?: string;
}): Record<string, string>[] {
  const { text, integer, list } = fields;
  const sorts = [
    text,
    `-${integer}`,
    `+${text}`,
    `${text},-${integer},created_date`,
    `${text},${integer},created_date,-${text}`,
    ` ${text} `,
    `${text},`,
    ',',
    `${text};${integer}`,
    '-',
    '',
    'bogus',
    text.toUpperCase(),
    'x'.repeat(201),
  ];
  if (list) sorts.push(list);
  const filters = [
    `${text} eq 'a'`,
    `${text} co 'a' and not (${integer} ge 2) or ${integer} lt 0`,
    `${text} EQ 'it''s' OR ${integer} eq -1.5`,
    `${text} eq null`,
    `${integer} ne null`,
    `${integer} gt null`,
    `created_date gt '2020-01-01T00:00:00Z'`,
    `created_date gt '2020-01-01'`,
    `created_date gt 'yesterday'`,
    `created_date gt 'March 7, 2026'`,
    `created_date lt '2020-01-01T00:00:00.123456+05:30'`,
    `created_date co '2020'`,
    `${integer} eq 'x'`,
    `${integer} co 1`,
    `${text} eq 1`,
    `${text} eq abc`,
    `${text} eq`,
    `${text} eq 'unterminated`,
    `bogus eq 1`,
    `${text.toUpperCase()} eq 'a'`,
    `(${text} eq 'a'`,
    `${text} eq 'a')`,
    `${'('.repeat(16)}${text} eq 'a'${')'.repeat(16)}`,
    `${'('.repeat(17)}${text} eq 'a'${')'.repeat(17)}`,
    `${'not '.repeat(20)}${text} eq 'a'`,
    Array.from({ length: 50 }, () => `${integer} eq 1`).join(' or '),
    Array.from({ length: 51 }, () => `${integer} eq 1`).join(' or '),
    `${text} eq 'a' #`,
    '',
    '   ',
    'x'.repeat(2001),
    ...(list ? [`${list} co 'a'`, `${list} eq 'a'`, `${list} co 1`] : []),
  ];
  return [...sorts.map((sort) => ({ sort })), ...filters.map((filter) => ({ filter }))];
}

const INTEGER_QUERY: Readonly<Record<string, readonly string[]>> = {
  offset: INTEGER_TEXTS,
  limit: INTEGER_TEXTS,
  lock_version: INTEGER_TEXTS,
};
const IDEMPOTENCY_KEYS = ['', ' ', 'a b', 'é', 'k'.repeat(255), 'k'.repeat(256), 'contract-key'];
const MEDIA_TYPES = [
  'text/plain',
  'application/xml',
  'application/vnd.api+json',
  'application/json-patch+json',
  'multipart/form-data',
  '',
];
const METHODS = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'];

/** Every case of the corpus; deletes come last, so the entities they remove serve the rest first. */
export function contractCorpus(fixtures: ContractFixtures): ContractCase[] {
  const cases: ContractCase[] = [];
  const all = bases(fixtures);
  for (const [operationId, base] of Object.entries(all) as [OperationId, Base][]) {
    const route = routeTable[operationId];
    const mediaType =
      base.mediaType ??
      (route.request as { bodyTypes?: readonly string[] }).bodyTypes?.[0]?.replace(/^json$/, 'application/json') ??
      'application/json';
    const make = (
      label: string,
      parts: {
        params?: Readonly<Record<string, string>>;
        query?: Readonly<Record<string, string>>;
        body?: JsonValue | undefined;
        text?: string;
        contentType?: string;
        headers?: Record<string, string>;
        method?: string;
      },
      anonymous = false,
    ): void => {
      const method = parts.method ?? route.method;
      const body =
        method === 'GET'
          ? undefined
          : (parts.text ?? (parts.body === undefined ? undefined : JSON.stringify(parts.body)));
      const request: HttpRequest = {
        method,
        path: pathOf(route.path, parts.params ?? base.params ?? {}) + queryText(parts.query ?? base.query ?? {}),
        ...(body === undefined ? {} : { body, contentType: parts.contentType ?? mediaType }),
        ...(parts.headers ? { headers: parts.headers } : {}),
      };
      cases.push({ operationId, label: `${operationId}: ${label}`, request, ...(anonymous ? { anonymous } : {}) });
    };
    const body = base.body;
    make('valid', { body });

    for (const name of Object.keys(base.params ?? {})) {
      const values = name === 'code' ? ['1-400', '10-40', '10-400000', 'ab-cde', '99-9999', '10-400 '] : INTEGER_TEXTS;
      for (const value of values)
        make(`path ${name} = ${JSON.stringify(value)}`, { params: { ...base.params, [name]: value }, body });
    }

    const query = route.request as { query?: { shape: Record<string, unknown> } };
    for (const name of Object.keys(query.query?.shape ?? {})) {
      for (const value of INTEGER_QUERY[name] ?? [])
        make(`query ${name} = ${JSON.stringify(value)}`, { query: { ...base.query, [name]: value }, body });
    }
    const fields = LIST_FIELDS[operationId];
    if (fields)
      for (const extra of listQueries(fields))
        make(`query ${JSON.stringify(extra)}`, { query: { ...base.query, ...extra } });
    make('unknown query parameter', { query: { ...base.query, bogus: '1' }, body });

    if (body !== undefined) {
      for (const variation of bodyVariations(body, base.enums))
        make(`body ${variation.label}`, { body: variation.value });
      for (const [label, value] of Object.entries(base.bodies ?? {})) make(`body ${label}`, { body: value });
      for (const contentType of MEDIA_TYPES) make(`media type ${JSON.stringify(contentType)}`, { body, contentType });
      make('malformed JSON', { text: JSON.stringify(body).slice(0, -1) });
      make('empty body', { text: '' });
      make('oversize body', { body: { ...(body as object), padding: 'x'.repeat(300 * 1024) } });
    }

    if ((route.request as { idempotent?: boolean }).idempotent) {
      for (const key of IDEMPOTENCY_KEYS)
        make(`Idempotency-Key ${JSON.stringify(key)}`, { body, headers: { 'idempotency-key': key } });
    }
    const others = METHODS.filter(
      (method) => !Object.values(routeTable).some((other) => other.path === route.path && other.method === method),
    );
    if (others[0]) make(`method ${others[0]}`, { method: others[0], body });
    if (route.permission !== null) make('no token', { body }, true);
  }
  const deletes = cases.filter(
    (item) => routeTable[item.operationId].method === 'DELETE' && !item.label.includes(': method '),
  );
  return [...cases.filter((item) => !deletes.includes(item)), ...deletes];
}
