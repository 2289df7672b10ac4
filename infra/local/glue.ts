/**
 * Local Glue Data Catalog, as much of it as trino-sql runs use (CreateDatabase, GetDatabase,
 * CreateTable, GetTable, GetTables, DeleteTable, BatchDeleteTable) over the AWS JSON protocol, so the
 * workers' @aws-sdk/client-glue talks to it as to Glue. Databases keep their tags: the local
 * Athena (athena.ts) lets a workgroup read only the tables of databases of its own tenant, as
 * the run's role does in AWS. A request signed with a tenant role's session may act only on
 * what the role's policy names (iam.ts authorize): the catalogue, the database and the table,
 * as Glue asks of its callers. The catalogue lives in memory: runs register their tables anew.
 */
import { AccessDenied, LOCAL_ACCOUNT, type LocalAuthorizer } from './iam';
import {
  JsonProtocolError,
  startJsonProtocolServer,
  type JsonObject,
  type JsonProtocolServer,
  type JsonRequestContext,
} from './json-protocol';

export interface GlueTable {
  readonly Name: string;
  readonly DatabaseName: string;
  readonly TableType?: string;
  readonly Parameters?: Readonly<Record<string, string>>;
  readonly StorageDescriptor?: {
    readonly Columns?: readonly { readonly Name: string; readonly Type: string }[];
    readonly Location?: string;
    readonly InputFormat?: string;
    readonly OutputFormat?: string;
    readonly SerdeInfo?: { readonly SerializationLibrary?: string };
  };
  readonly CreateTime: number;
}

export interface GlueDatabase {
  readonly Name: string;
  readonly Description?: string;
  readonly Tags: Readonly<Record<string, string>>;
  readonly tables: Map<string, GlueTable>;
}

/** What the local Athena reads of the catalogue. */
export interface GlueCatalog {
  database(name: string): GlueDatabase | undefined;
  /** Registers a table (a CTAS's output). */
  putTable(table: Omit<GlueTable, 'CreateTime'>): void;
}

export interface LocalGlue extends JsonProtocolServer {
  readonly catalog: GlueCatalog;
}

/** Glue lowercases names, as Hive does. */
const lower = (value: unknown): string => String(value ?? '').toLowerCase();

/** The ARNs Glue authorizes an action on: the catalogue, the database and, for a table action, the table (or `*`). */
export function glueArns(database: string, table?: string): string[] {
  const arn = (resource: string) => `arn:aws:glue:us-east-1:${LOCAL_ACCOUNT}:${resource}`;
  return [
    arn('catalog'),
    arn(`database/${lower(database)}`),
    ...(table === undefined ? [] : [arn(`table/${lower(database)}/${lower(table)}`)]),
  ];
}

/** AccessDenied as Glue answers it. */
export function authorized(
  authorizer: LocalAuthorizer | undefined,
  request: JsonRequestContext,
  action: string,
  resources: readonly string[],
): void {
  try {
    authorizer?.authorize(request.accessKeyId, action, resources);
  } catch (error) {
    if (error instanceof AccessDenied) throw new JsonProtocolError('AccessDeniedException', error.message);
    throw error;
  }
}

export async function startLocalGlue(
  options: { readonly port?: number; readonly authorizer?: LocalAuthorizer } = {},
): Promise<LocalGlue> {
  const allow = (request: JsonRequestContext, action: string, database: unknown, table?: unknown) =>
    authorized(
      options.authorizer,
      request,
      `glue:${action}`,
      glueArns(String(database ?? ''), table === undefined ? undefined : String(table)),
    );
  const databases = new Map<string, GlueDatabase>();
  const databaseNamed = (name: unknown): GlueDatabase => {
    const database = databases.get(lower(name));
    if (!database) throw new JsonProtocolError('EntityNotFoundException', `Database ${String(name)} not found.`);
    return database;
  };
  const catalog: GlueCatalog = {
    database: (name) => databases.get(lower(name)),
    putTable(table) {
      databaseNamed(table.DatabaseName).tables.set(lower(table.Name), {
        ...table,
        Name: lower(table.Name),
        CreateTime: Date.now() / 1000,
      });
    },
  };
  const table = (input: JsonObject): GlueTable => {
    const found = databaseNamed(input.DatabaseName).tables.get(lower(input.Name));
    if (!found) throw new JsonProtocolError('EntityNotFoundException', `Table ${String(input.Name)} not found.`);
    return found;
  };
  const server = await startJsonProtocolServer({
    name: 'Glue',
    targetPrefix: 'AWSGlue',
    jsonVersion: '1.1',
    internalErrorType: 'InternalServiceException',
    port: options.port,
    operations: {
      CreateDatabase(input, request) {
        const database = input.DatabaseInput as { Name?: string; Description?: string } | undefined;
        allow(request, 'CreateDatabase', database?.Name);
        const name = lower(database?.Name);
        if (!name) throw new JsonProtocolError('InvalidInputException', 'DatabaseInput.Name is required');
        if (databases.has(name))
          throw new JsonProtocolError('AlreadyExistsException', `Database ${name} already exists.`);
        databases.set(name, {
          Name: name,
          Description: database?.Description,
          Tags: (input.Tags as Record<string, string> | undefined) ?? {},
          tables: new Map(),
        });
        return {};
      },
      GetDatabase(input, request) {
        allow(request, 'GetDatabase', input.Name);
        const { Name, Description } = databaseNamed(input.Name);
        return { Database: { Name, Description } };
      },
      CreateTable(input, request) {
        const tableInput = input.TableInput as Omit<GlueTable, 'DatabaseName' | 'CreateTime'> | undefined;
        allow(request, 'CreateTable', input.DatabaseName, tableInput?.Name ?? '');
        const database = databaseNamed(input.DatabaseName);
        const name = lower(tableInput?.Name);
        if (!name) throw new JsonProtocolError('InvalidInputException', 'TableInput.Name is required');
        if (database.tables.has(name))
          throw new JsonProtocolError('AlreadyExistsException', `Table ${name} already exists.`);
        catalog.putTable({ ...tableInput!, DatabaseName: database.Name });
        return {};
      },
      GetTable(input, request) {
        allow(request, 'GetTable', input.DatabaseName, input.Name);
        return { Table: table(input) };
      },
      GetTables(input, request) {
        allow(request, 'GetTables', input.DatabaseName, '*');
        // Expression is a regular expression over the whole name; pages are offsets.
        const pattern = input.Expression === undefined ? undefined : new RegExp(`^(?:${String(input.Expression)})$`);
        const matching = [...databaseNamed(input.DatabaseName).tables.values()]
          .filter((candidate) => pattern?.test(candidate.Name) ?? true)
          .sort((a, b) => a.Name.localeCompare(b.Name));
        const from = Number(input.NextToken ?? 0);
        const to = from + Math.min(Number(input.MaxResults ?? 100), 100);
        return { TableList: matching.slice(from, to), ...(to < matching.length ? { NextToken: String(to) } : {}) };
      },
      DeleteTable(input, request) {
        allow(request, 'DeleteTable', input.DatabaseName, input.Name);
        table(input);
        databaseNamed(input.DatabaseName).tables.delete(lower(input.Name));
        return {};
      },
      BatchDeleteTable(input, request) {
        const names = (input.TablesToDelete as string[] | undefined) ?? [];
        for (const name of names) allow(request, 'BatchDeleteTable', input.DatabaseName, name);
        const database = databaseNamed(input.DatabaseName);
        const errors = [];
        for (const name of names) {
          if (!database.tables.delete(lower(name)))
            errors.push({
              TableName: name,
              ErrorDetail: { ErrorCode: 'EntityNotFoundException', ErrorMessage: `Table ${name} not found.` },
            });
        }
        return { Errors: errors };
      },
    },
  });
  return { ...server, catalog };
}
