/**
 * The answers of the Snowflake fake (snowflake.ts) as snowflake-sdk reads them: the
 * { data, code, message, success } envelope, Snowflake's default session parameters, a query
 * result (column metadata, the first rows inline and the rest in result chunks behind SSE-C
 * headers, as S3 serves them) and a compilation error.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { FakeTable, SessionState, SnowflakeSqlError } from './snowflake-sql';

/** The session parameters Snowflake sends with every login and result (its defaults). */
export const PARAMETERS = [
  { name: 'TIMEZONE', value: 'America/Los_Angeles' },
  { name: 'DATE_OUTPUT_FORMAT', value: 'YYYY-MM-DD' },
  { name: 'TIME_OUTPUT_FORMAT', value: 'HH24:MI:SS' },
  { name: 'TIMESTAMP_OUTPUT_FORMAT', value: 'YYYY-MM-DD HH24:MI:SS.FF3 TZHTZM' },
  { name: 'TIMESTAMP_NTZ_OUTPUT_FORMAT', value: 'YYYY-MM-DD HH24:MI:SS.FF3' },
  { name: 'TIMESTAMP_LTZ_OUTPUT_FORMAT', value: '' },
  { name: 'TIMESTAMP_TZ_OUTPUT_FORMAT', value: '' },
  { name: 'BINARY_OUTPUT_FORMAT', value: 'HEX' },
  { name: 'CLIENT_SESSION_KEEP_ALIVE', value: false },
  { name: 'CLIENT_RESULT_CHUNK_SIZE', value: 160 },
  { name: 'QUERY_CONTEXT_CACHE_SIZE', value: 5 },
];

/** A successful answer in the envelope snowflake-sdk reads. */
export const ok = (data: unknown, code: string | null = null) => ({ data, code, message: null, success: true });
/** A failed answer: Snowflake's error code and message, with the code repeated in data. */
export const failed = (code: string, message: string, data: Record<string, unknown> = {}) => ({
  data: { ...data, errorCode: code },
  code,
  message,
  success: false,
  headers: null,
});

/** Sends a JSON answer. */
export function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** The JSON request body, gunzipped when it is compressed. */
export async function readBody(request: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  let raw = Buffer.concat(parts);
  // The driver announces gzip and may or may not have compressed yet: trust the magic bytes.
  if (raw[0] === 0x1f && raw[1] === 0x8b) raw = gunzipSync(raw);
  return raw.length === 0 ? undefined : (JSON.parse(raw.toString('utf8')) as unknown);
}

/** How a result is split between the answer and its chunks, and where the chunks are fetched. */
export interface ResultLayout {
  readonly inlineRows: number;
  readonly chunkRows: number;
  /** The URL of the chunk holding `rowCount` rows of a query's result from row `start`. */
  chunkUrl(id: string, start: number, rowCount: number): string;
  /** The SSE-C key (base64) a chunk request must present. */
  readonly key: string;
}

/** The answer carrying a query's result: column metadata, the inline rows and the list of chunks. */
export function resultBody(layout: ResultLayout, id: string, table: FakeTable, session: SessionState) {
  const inline = Math.min(layout.inlineRows, table.rowCount);
  const chunkList = [];
  for (let start = inline; start < table.rowCount; start += layout.chunkRows) {
    const rowCount = Math.min(layout.chunkRows, table.rowCount - start);
    chunkList.push({
      url: layout.chunkUrl(id, start, rowCount),
      rowCount,
      uncompressedSize: 0,
      compressedSize: 0,
    });
  }
  return ok({
    parameters: PARAMETERS,
    rowtype: table.columns.map((column) => ({
      name: column.name,
      database: session.database ?? '',
      schema: session.schema ?? '',
      table: '',
      type: column.type,
      scale: column.scale ?? (column.type === 'fixed' ? 0 : null),
      precision: column.precision ?? (column.type === 'fixed' ? 38 : null),
      length: column.type === 'text' ? 16777216 : null,
      byteLength: column.type === 'text' ? 16777216 : null,
      nullable: column.nullable ?? true,
      collation: null,
    })),
    rowset: Array.from({ length: inline }, (_, index) => table.row(index)),
    total: table.rowCount,
    returned: table.rowCount,
    queryId: id,
    databaseProvider: null,
    finalDatabaseName: session.database,
    finalSchemaName: session.schema,
    finalWarehouseName: session.warehouse,
    finalRoleName: session.role,
    numberOfBinds: 0,
    arrayBindSupported: false,
    statementTypeId: 4096,
    version: 1,
    sendResultTime: Date.now(),
    queryResultFormat: 'json',
    ...(chunkList.length > 0
      ? {
          chunks: chunkList,
          qrmk: layout.key,
          chunkHeaders: {
            'x-amz-server-side-encryption-customer-algorithm': 'AES256',
            'x-amz-server-side-encryption-customer-key': layout.key,
            'x-amz-server-side-encryption-customer-key-md5': createHash('md5')
              .update(Buffer.from(layout.key, 'base64'))
              .digest('base64'),
          },
        }
      : {}),
  });
}

/** The answer to a query that failed to compile, with its code and SQL state. */
export const errorBody = (id: string, error: SnowflakeSqlError) =>
  failed(error.code, error.message, {
    internalError: false,
    age: 0,
    sqlState: error.sqlState,
    queryId: id,
    line: -1,
    pos: -1,
    type: 'COMPILATION',
  });
