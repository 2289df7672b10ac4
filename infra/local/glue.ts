/**
 * Local Glue Data Catalog, as much of it as trino-sql runs use (CreateDatabase, GetDatabase,
 * CreateTable, GetTable, GetTables, DeleteTable, BatchDeleteTable) over the AWS JSON protocol, so the
 * workers' @aws-sdk/client-glue talks to it as to Glue. Databases keep their tags: the local
 * Athena (athena.ts) lets a workgroup read only the tables of databases of its own tenant, as
 * the run's role does in AWS. The catalogue lives in memory: runs register their tables anew.
 */
import { JsonProtocolError, startJsonProtocolServer, type JsonObject, type JsonProtocolServer } from './json-protocol';

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

export async function startLocalGlue(options: { readonly port?: number } = {}): Promise<LocalGlue> {
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
      CreateDatabase(input) {
        const database = input.DatabaseInput as { Name?: string; Description?: string } | undefined;
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
      GetDatabase(input) {
        const { Name, Description } = databaseNamed(input.Name);
        return { Database: { Name, Description } };
      },
      CreateTable(input) {
        const database = databaseNamed(input.DatabaseName);
        const tableInput = input.TableInput as Omit<GlueTable, 'DatabaseName' | 'CreateTime'> | undefined;
        const name = lower(tableInput?.Name);
        if (!name) throw new JsonProtocolError('InvalidInputException', 'TableInput.Name is required');
        if (database.tables.has(name))
          throw new JsonProtocolError('AlreadyExistsException', `Table ${name} already exists.`);
        catalog.putTable({ ...tableInput!, DatabaseName: database.Name });
        return {};
      },
      GetTable: (input) => ({ Table: table(input) }),
      GetTables(input) {
        // Expression is a regular expression over the whole name; pages are offsets.
        const pattern = input.Expression === undefined ? undefined : new RegExp(`^(?:${String(input.Expression)})$`);
        const matching = [...databaseNamed(input.DatabaseName).tables.values()]
          .filter((candidate) => pattern?.test(candidate.Name) ?? true)
          .sort((a, b) => a.Name.localeCompare(b.Name));
        const from = Number(input.NextToken ?? 0);
        const to = from + Math.min(Number(input.MaxResults ?? 100), 100);
        return { TableList: matching.slice(from, to), ...(to < matching.length ? { NextToken: String(to) } : {}) };
      },
      DeleteTable(input) {
        table(input);
        databaseNamed(input.DatabaseName).tables.delete(lower(input.Name));
        return {};
      },
      BatchDeleteTable(input) {
        const database = databaseNamed(input.DatabaseName);
        const errors = [];
        for (const name of (input.TablesToDelete as string[] | undefined) ?? []) {
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
