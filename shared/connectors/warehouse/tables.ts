import { config } from '../../config';
import { AppError, validationError } from '../../errors/app-error';
import { MAX_LISTED_TABLES, type TableDetails } from '../../model/table';
import { withWarehouseSession, type WarehouseTarget } from './client';

/**
 * The tables and views of a warehouse connection, as its role sees them: `SHOW TERSE OBJECTS`
 * lists exactly the tables and views the role has privileges on, and Snowflake answers SHOW
 * commands from its cloud services, so no warehouse runs or is billed (a connection without
 * one can list). The scope is the connection's schema, else its database, else the account;
 * INFORMATION_SCHEMA (Snowflake's own views, in every database) is left out unless it is the
 * connection's schema. A missing database or schema is 30-1010 naming it, as Snowflake
 * reports it; other failures map as in a connection test (errors.ts).
 */

/**
 * A database or schema as the connection names it: a plain name (or a quoted one) goes into
 * the statement as written, so Snowflake resolves it as it resolved the login's; anything
 * else is quoted.
 */
function settingIdentifier(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_$]*$/.test(name) || /^"(?:[^"]|"")+"$/.test(name) ? name : quoted(name);
}

/** A name exactly as Snowflake stores it (from a listing): always quoted. */
const quoted = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * A LIKE pattern matching at least `name` (case-insensitively, `%` and `_` as wildcards, a
 * backslash as any one character): the caller keeps the exact match.
 */
const likeAtLeast = (name: string): string => `'${name.replace(/\\/g, '_').replace(/'/g, "''")}'`;

/** Runs one SHOW TERSE OBJECTS statement and reads its rows by column name. */
async function showObjects(target: WarehouseTarget, statement: string): Promise<TableDetails[]> {
  return withWarehouseSession(target, { timeoutMs: config.connectorTimeoutMs }, async (session) => {
    const executed = await session.execute(statement);
    const columns = (executed.getColumns() ?? []).map((column) => column.getName().toLowerCase());
    const at = (row: unknown[], column: string): string | null => {
      const value = row[columns.indexOf(column)];
      return typeof value === 'string' ? value : null;
    };
    const rows = await session.rows(executed);
    return rows.flatMap((row) => {
      const name = at(row, 'name');
      return name === null
        ? []
        : [
            {
              name,
              database: at(row, 'database_name'),
              schema: at(row, 'schema_name'),
              type: at(row, 'kind') ?? 'TABLE',
            },
          ];
    });
  });
}

/** The connection's tables and views, at most MAX_LISTED_TABLES, in Snowflake's order. */
export async function listWarehouseTables(target: WarehouseTarget): Promise<TableDetails[]> {
  const database = target.database ? settingIdentifier(target.database) : null;
  const scope = target.schema
    ? `SCHEMA ${database ? `${database}.` : ''}${settingIdentifier(target.schema)}`
    : database
      ? `DATABASE ${database}`
      : 'ACCOUNT';
  const objects = await showObjects(target, `SHOW TERSE OBJECTS IN ${scope} LIMIT ${MAX_LISTED_TABLES}`);
  return target.schema ? objects : objects.filter((object) => object.schema !== 'INFORMATION_SCHEMA');
}

export interface WarehouseTableInput {
  readonly name: string;
  /** The database and schema as listed; the connection's (or the session's) when undefined. */
  readonly database: string | undefined;
  readonly schema: string | undefined;
}

/** One table's or view's details; one the role cannot see, or that does not exist, is 30-1010. */
export async function warehouseTable(target: WarehouseTarget, input: WarehouseTableInput): Promise<TableDetails> {
  const database =
    input.database !== undefined ? quoted(input.database) : target.database ? settingIdentifier(target.database) : null;
  const schema =
    input.schema !== undefined ? quoted(input.schema) : target.schema ? settingIdentifier(target.schema) : null;
  // Without a schema Snowflake would search the current one, which the caller did not choose.
  if (schema === null) throw validationError({ schema: 'required: the connection names no schema' });
  const objects = await showObjects(
    target,
    `SHOW TERSE OBJECTS LIKE ${likeAtLeast(input.name)} IN SCHEMA ${database ? `${database}.` : ''}${schema}`,
  );
  const found = objects.find((object) => object.name === input.name);
  if (!found) {
    const shown = [input.database ?? target.database, input.schema ?? target.schema, input.name]
      .filter((part) => part)
      .join('.');
    throw new AppError('30-1010', { params: [shown] });
  }
  return found;
}
