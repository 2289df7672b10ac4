/**
 * Local Athena, as much of it as trino-sql runs use: workgroups (CreateWorkGroup, GetWorkGroup,
 * UpdateWorkGroup) and queries (StartQueryExecution, GetQueryExecution, StopQueryExecution,
 * ListQueryExecutions) over the AWS JSON protocol. A query is a CTAS (athena-query.ts) that
 * DuckDB runs over the Parquet files its Glue tables' manifests list, read from the local S3;
 * its rows go to the CTAS's external location as one Parquet file. As in AWS, a workgroup
 * reads only the databases of its own tenant (their `tenant` tags: the run's role is scoped so),
 * stops a query past its BytesScannedCutoffPerQuery (here: the sizes of the files its tables
 * list, before it runs), and a stopped query ends CANCELLED. `queueMs` holds each query QUEUED
 * that long first, as Athena's queue does. A request signed with a tenant role's session may act
 * only on the workgroups its policy names, and its query reads and writes with its rights, as
 * Athena runs a query with its caller's (iam.ts authorize): each table read (glue:GetTable), each
 * manifest and file it lists (s3:GetObject), the CTAS's table (glue:CreateTable) and file
 * (s3:PutObject); a refusal fails the query with Athena's words for it. The workgroup's result
 * location is not written.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readFile, writeFile } from 'node:fs/promises';
import { AthenaQueryError, parseCtas } from './athena-query';
import { authorized, glueArns, startLocalGlue, type GlueCatalog } from './glue';
import { AccessDenied, LOCAL_ACCOUNT, type LocalAuthorizer } from './iam';
import {
  JsonProtocolError,
  startJsonProtocolServer,
  type JsonObject,
  type JsonProtocolServer,
  type JsonRequestContext,
} from './json-protocol';
import { LOCAL_S3_CREDENTIALS } from './s3';

export interface LocalAthenaOptions {
  readonly catalog: GlueCatalog;
  /** The local S3, where the tables' files are and the CTAS writes; made on first use (see startLocalAthenaAndGlue). */
  readonly s3: () => S3Client;
  readonly queueMs?: number;
  readonly port?: number;
  /** Who may do what (the local IAM); everyone may everything without one. */
  readonly authorizer?: LocalAuthorizer;
}

interface WorkGroup {
  readonly Name: string;
  Description?: string;
  Configuration: JsonObject & { BytesScannedCutoffPerQuery?: number };
  readonly Tags: Record<string, string>;
  readonly CreationTime: number;
}

interface Query {
  readonly QueryExecutionId: string;
  readonly Query: string;
  readonly WorkGroup: string;
  readonly database: string | undefined;
  /** The key that started it: the query reads and writes with its rights. */
  readonly accessKeyId: string | undefined;
  Status: JsonObject & { State: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED' };
  Statistics: { DataScannedInBytes: number; EngineExecutionTimeInMillis: number };
  connection?: DuckDBConnection;
}

const now = () => Date.now() / 1000;
const FINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

function s3Location(uri: string): { Bucket: string; Key: string } {
  const match = /^s3:\/\/([^/]+)\/(.*)$/.exec(uri);
  if (!match) throw new AthenaQueryError(`INVALID_TABLE_PROPERTY: ${uri} is not an s3:// location`);
  return { Bucket: match[1]!, Key: match[2]! };
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** DuckDB's failures in Trino's words, where Trino has them (the service reads Athena's). */
function trinoMessage(message: string): string {
  const column = /Referenced column "([^"]+)" not found|does not have a column named "([^"]+)"/.exec(message);
  if (column) return `COLUMN_NOT_FOUND: line 1:1: Column '${column[1] ?? column[2]}' cannot be resolved`;
  if (/^Conversion Error/.test(message)) return `INVALID_CAST_ARGUMENT: ${message}`;
  if (/^Out of Range Error/.test(message)) return `NUMERIC_VALUE_OUT_OF_RANGE: ${message}`;
  if (/^(Binder|Catalog|Parser) Error/.test(message)) return `SYNTAX_ERROR: ${message}`;
  return message;
}

const s3Arn = (uri: string) => {
  const { Bucket, Key } = s3Location(uri);
  return `arn:aws:s3:::${Bucket}/${Key}`;
};
const workgroupArn = (name: string) => `arn:aws:athena:us-east-1:${LOCAL_ACCOUNT}:workgroup/${name}`;

export async function startLocalAthena(options: LocalAthenaOptions): Promise<JsonProtocolServer> {
  const workgroups = new Map<string, WorkGroup>();
  const queries = new Map<string, Query>();
  const allow = (request: JsonRequestContext, action: string, workgroupName: unknown) =>
    authorized(options.authorizer, request, `athena:${action}`, [workgroupArn(String(workgroupName ?? 'primary'))]);

  /** What the query's caller may not do fails the query, in Athena's words. */
  function mayQuery(query: Query, action: string, resources: readonly string[], what: string): void {
    try {
      options.authorizer?.authorize(query.accessKeyId, action, resources);
    } catch (error) {
      if (!(error instanceof AccessDenied)) throw error;
      throw new AthenaQueryError(
        action.startsWith('s3:')
          ? `Permission denied on S3 path: ${what}`
          : `Insufficient permissions to execute the query. ${error.message}`,
      );
    }
  }

  const workgroup = (name: unknown): WorkGroup => {
    const found = workgroups.get(String(name ?? 'primary'));
    if (!found) throw new JsonProtocolError('InvalidRequestException', `WorkGroup ${String(name)} is not found.`);
    return found;
  };

  async function getObject(uri: string): Promise<Buffer> {
    const result = await options.s3().send(new GetObjectCommand(s3Location(uri)));
    return Buffer.from(await result.Body!.transformToByteArray());
  }

  /** The files a table reads: its manifest's lines (symlink tables), or the Parquet objects under its folder. */
  async function tableFiles(query: Query, location: string): Promise<string[]> {
    const uri = `${location.replace(/\/?$/, '/')}symlink.txt`;
    mayQuery(query, 's3:GetObject', [s3Arn(uri)], uri);
    const manifest = (await getObject(uri)).toString('utf8');
    return manifest.split('\n').filter((line) => line.trim() !== '');
  }

  async function run(query: Query, group: WorkGroup): Promise<void> {
    const ctas = parseCtas(query.Query);
    const tenant = group.Tags.tenant;
    const dir = await mkdtemp(join(tmpdir(), 'dps-athena-'));
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    query.connection = connection;
    try {
      // Trino divides integers as integers.
      await connection.run('SET integer_division = true');
      let scanned = 0;
      const files: { path: string; database: string; table: string }[] = [];
      for (const [databaseName, tableName] of ctas.reads) {
        const name = databaseName ?? query.database ?? 'default';
        const database = options.catalog.database(name);
        if (!database || tenant === undefined || database.Tags.tenant !== tenant)
          throw new AthenaQueryError(
            `PERMISSION_DENIED: workgroup ${group.Name} may not read ${name}.${tableName} (its role reaches only its tenant's database)`,
          );
        mayQuery(query, 'glue:GetTable', glueArns(database.Name, tableName), `${name}.${tableName}`);
        const table = database.tables.get(tableName.toLowerCase());
        if (!table?.StorageDescriptor?.Location)
          throw new AthenaQueryError(`TABLE_NOT_FOUND: Table '${name}.${tableName}' does not exist`);
        const paths: string[] = [];
        for (const [index, uri] of (await tableFiles(query, table.StorageDescriptor.Location)).entries()) {
          mayQuery(query, 's3:GetObject', [s3Arn(uri)], uri);
          const path = join(dir, `${database.Name}.${table.Name}.${index}.parquet`);
          await writeFile(path, await getObject(uri));
          scanned += (await stat(path)).size;
          paths.push(path);
        }
        await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quoted(database.Name)}`);
        await connection.run(
          `CREATE OR REPLACE VIEW ${quoted(database.Name)}.${quoted(table.Name)} AS SELECT * FROM read_parquet([${paths.map((path) => `'${path.replace(/'/g, "''")}'`).join(', ')}])`,
        );
        files.push(...paths.map((path) => ({ path, database: database.Name, table: table.Name })));
      }
      query.Statistics.DataScannedInBytes = scanned;
      const cutoff = group.Configuration.BytesScannedCutoffPerQuery;
      if (cutoff !== undefined && scanned > cutoff) {
        Object.assign(query.Status, {
          State: 'CANCELLED',
          StateChangeReason: 'Bytes scanned limit was exceeded',
          CompletionDateTime: now(),
        });
        return;
      }
      const location = ctas.properties.external_location;
      if (!location || (ctas.properties.format ?? '').toUpperCase() !== 'PARQUET')
        throw new AthenaQueryError(
          "NOT_SUPPORTED: the local Athena writes CTAS with format = 'PARQUET' and an external_location only",
        );
      await connection.run(`CREATE TEMP VIEW "ctas query" AS ${ctas.query}`);
      const described = (await connection.runAndReadAll('DESCRIBE "ctas query"')).getRowObjects();
      const seen = new Set<string>();
      // Trino names columns in lowercase and sums BIGINTs into BIGINT (DuckDB: HUGEINT).
      const select = described.map((row) => {
        const name = String(row.column_name).toLowerCase();
        if (seen.has(name))
          throw new AthenaQueryError(`DUPLICATE_COLUMN_NAME: Column name '${name}' specified more than once`);
        seen.add(name);
        const type = String(row.column_type);
        const value =
          type === 'HUGEINT' ? `CAST(${quoted(String(row.column_name))} AS BIGINT)` : quoted(String(row.column_name));
        return `${value} AS ${quoted(name)}`;
      });
      const out = join(dir, 'out.parquet');
      await connection.run(`COPY (SELECT ${select.join(', ')} FROM "ctas query") TO '${out}' (FORMAT parquet)`);
      if (query.Status.State === 'CANCELLED') return;
      const target = s3Location(location.replace(/\/?$/, '/'));
      const outputKey = `s3://${target.Bucket}/${target.Key}${query.QueryExecutionId}_00000`;
      mayQuery(query, 's3:PutObject', [s3Arn(outputKey)], outputKey);
      const ctasDatabase = ctas.database ?? query.database ?? 'default';
      mayQuery(query, 'glue:CreateTable', glueArns(ctasDatabase, ctas.table), `${ctasDatabase}.${ctas.table}`);
      await options.s3().send(
        new PutObjectCommand({
          Bucket: target.Bucket,
          Key: `${target.Key}${query.QueryExecutionId}_00000`,
          Body: await readFile(out),
        }),
      );
      const columns = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM '${out}'`)).getRowObjects();
      options.catalog.putTable({
        Name: ctas.table,
        DatabaseName: ctasDatabase,
        TableType: 'EXTERNAL_TABLE',
        StorageDescriptor: {
          Location: location,
          Columns: columns.map((row) => ({
            Name: String(row.column_name),
            Type: String(row.column_type).toLowerCase(),
          })),
        },
      });
      Object.assign(query.Status, { State: 'SUCCEEDED', CompletionDateTime: now() });
    } finally {
      query.connection = undefined;
      connection.closeSync();
      instance.closeSync();
      await rm(dir, { recursive: true, force: true });
    }
  }

  function begin(query: Query, group: WorkGroup): void {
    const started = Date.now();
    setTimeout(() => {
      if (query.Status.State !== 'QUEUED') return;
      query.Status.State = 'RUNNING';
      run(query, group)
        .catch((error: unknown) => {
          if (query.Status.State === 'CANCELLED') return;
          const athena = error instanceof AthenaQueryError;
          const message = trinoMessage(error instanceof Error ? error.message : String(error));
          Object.assign(query.Status, {
            State: 'FAILED',
            StateChangeReason: message,
            AthenaError: {
              ErrorCategory: athena ? error.category : /^[A-Z_]+: /.test(message) ? 2 : 1,
              ErrorType: 1000,
              Retryable: false,
              ErrorMessage: message,
            },
            CompletionDateTime: now(),
          });
        })
        .finally(() => (query.Statistics.EngineExecutionTimeInMillis = Date.now() - started));
    }, options.queueMs ?? 0).unref();
  }

  const server = await startJsonProtocolServer({
    name: 'Athena',
    targetPrefix: 'AmazonAthena',
    jsonVersion: '1.1',
    internalErrorType: 'InternalServerException',
    port: options.port,
    operations: {
      CreateWorkGroup(input, request) {
        const name = String(input.Name ?? '');
        allow(request, 'CreateWorkGroup', name);
        if (workgroups.has(name))
          throw new JsonProtocolError('InvalidRequestException', `WorkGroup ${name} is already created`);
        const tags = Object.fromEntries(
          ((input.Tags as { Key: string; Value: string }[] | undefined) ?? []).map((tag) => [tag.Key, tag.Value]),
        );
        workgroups.set(name, {
          Name: name,
          Description: input.Description as string | undefined,
          Configuration: (input.Configuration as JsonObject | undefined) ?? {},
          Tags: tags,
          CreationTime: now(),
        });
        return {};
      },
      GetWorkGroup(input, request) {
        allow(request, 'GetWorkGroup', input.WorkGroup);
        const { Tags: _tags, ...visible } = workgroup(input.WorkGroup);
        return { WorkGroup: { ...visible, State: 'ENABLED' } };
      },
      UpdateWorkGroup(input, request) {
        allow(request, 'UpdateWorkGroup', input.WorkGroup);
        const group = workgroup(input.WorkGroup);
        const updates = (input.ConfigurationUpdates as JsonObject | undefined) ?? {};
        if (typeof updates.BytesScannedCutoffPerQuery === 'number')
          group.Configuration.BytesScannedCutoffPerQuery = updates.BytesScannedCutoffPerQuery;
        return {};
      },
      StartQueryExecution(input, request) {
        allow(request, 'StartQueryExecution', input.WorkGroup);
        const group = workgroup(input.WorkGroup);
        const id = randomUUID();
        const context = input.QueryExecutionContext as { Database?: string } | undefined;
        const query: Query = {
          QueryExecutionId: id,
          Query: String(input.QueryString ?? ''),
          WorkGroup: group.Name,
          database: context?.Database,
          accessKeyId: request.accessKeyId,
          Status: { State: 'QUEUED', SubmissionDateTime: now() },
          Statistics: { DataScannedInBytes: 0, EngineExecutionTimeInMillis: 0 },
        };
        queries.set(id, query);
        begin(query, group);
        return { QueryExecutionId: id };
      },
      GetQueryExecution(input, request) {
        const query = queries.get(String(input.QueryExecutionId));
        if (!query)
          throw new JsonProtocolError(
            'InvalidRequestException',
            `QueryExecution ${String(input.QueryExecutionId)} was not found`,
          );
        allow(request, 'GetQueryExecution', query.WorkGroup);
        const { connection: _connection, database, accessKeyId: _key, ...visible } = query;
        return {
          QueryExecution: {
            ...visible,
            StatementType: 'DDL',
            QueryExecutionContext: { Database: database, Catalog: 'AwsDataCatalog' },
          },
        };
      },
      StopQueryExecution(input, request) {
        const query = queries.get(String(input.QueryExecutionId));
        if (!query)
          throw new JsonProtocolError(
            'InvalidRequestException',
            `QueryExecution ${String(input.QueryExecutionId)} was not found`,
          );
        allow(request, 'StopQueryExecution', query.WorkGroup);
        if (!FINAL.has(query.Status.State)) {
          Object.assign(query.Status, {
            State: 'CANCELLED',
            StateChangeReason: 'Query was cancelled by the user',
            CompletionDateTime: now(),
          });
          query.connection?.interrupt();
        }
        return {};
      },
      ListQueryExecutions(input) {
        const ids = [...queries.values()]
          .filter((query) => input.WorkGroup === undefined || query.WorkGroup === input.WorkGroup)
          .map((query) => query.QueryExecutionId);
        return { QueryExecutionIds: ids.reverse() };
      },
    },
  });
  return server;
}

/** The local Glue and the local Athena over it, reading and writing the local S3 at `s3Endpoint`. */
export async function startLocalAthenaAndGlue(options: {
  readonly s3Endpoint: string;
  readonly queueMs?: number;
  /** The local IAM (iam.ts): what a tenant role's session may do. */
  readonly authorizer?: LocalAuthorizer;
}): Promise<{ readonly athena: string; readonly glue: string; close(): Promise<void> }> {
  const glue = await startLocalGlue({ authorizer: options.authorizer });
  // Made at the first query, not at start: an SDK client made before the twin's environment
  // is set prints the SDK's Node version warning to every `npm start`.
  let client: S3Client | undefined;
  const s3 = () =>
    (client ??= new S3Client({
      endpoint: options.s3Endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: LOCAL_S3_CREDENTIALS,
    }));
  const athena = await startLocalAthena({
    catalog: glue.catalog,
    s3,
    queueMs: options.queueMs,
    authorizer: options.authorizer,
  }).catch(async (error: unknown) => {
    await glue.close();
    throw error;
  });
  return {
    athena: athena.endpoint,
    glue: glue.endpoint,
    async close() {
      await athena.close();
      await glue.close();
      client?.destroy();
    },
  };
}
