/**
 * The shared tables of the Delta Sharing fake: each version of a table is a set of Parquet
 * files that DuckDB writes from SQL, as a Delta table's data files are. Partition columns are
 * not inside the files (Delta keeps them in the log's partitionValues), so a file's SQL selects
 * only the other columns.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, quotedString } from '@duckdb/node-api';

/** A field of a Delta schema (PROTOCOL.md "Schema Object"); `type` is a primitive name or a nested type object. */
export interface DeltaField {
  readonly name: string;
  readonly type: string | Readonly<Record<string, unknown>>;
  readonly nullable?: boolean;
}

/** One data file: its partition values (Delta's string serialisation) and the SQL of its other columns. */
export interface FakeFileSpec {
  readonly partitionValues?: Readonly<Record<string, string>>;
  readonly sql: string;
}

export interface FakeTableSpec {
  readonly share: string;
  readonly schema: string;
  readonly name: string;
  readonly fields: readonly DeltaField[];
  readonly partitionColumns?: readonly string[];
  /** The files of each version, version 0 first: every version is a snapshot. */
  readonly versions: readonly (readonly FakeFileSpec[])[];
  /** Reader features the table needs (e.g. deletionVectors): a client that does not say it reads them is refused. */
  readonly readerFeatures?: readonly string[];
}

export interface FakeFile {
  readonly id: string;
  readonly localPath: string;
  readonly size: number;
  readonly partitionValues: Readonly<Record<string, string>>;
}

export interface FakeVersion {
  readonly version: number;
  /** The commit time of the version, ms since the epoch. */
  readonly timestamp: number;
  readonly files: readonly FakeFile[];
}

export interface FakeTable extends FakeTableSpec {
  readonly id: string;
  readonly written: readonly FakeVersion[];
}

/** Version 0 is committed at this instant, each later version one day after the one before. */
export const FIRST_COMMIT = Date.parse('2024-01-01T00:00:00Z');
const DAY_MS = 86_400_000;

/** Writes every file of every table with one DuckDB instance into a fresh temporary folder. */
export async function writeTables(
  specs: readonly FakeTableSpec[],
): Promise<{ tables: FakeTable[]; remove(): Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'delta-sharing-fake-'));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const tables: FakeTable[] = [];
    for (const spec of specs) {
      const written: FakeVersion[] = [];
      for (const [version, files] of spec.versions.entries()) {
        const done: FakeFile[] = [];
        for (const file of files) {
          const id = randomUUID();
          const localPath = join(folder, `part-${id}.c000.snappy.parquet`);
          await connection.run(`COPY (${file.sql}) TO ${quotedString(localPath)} (FORMAT parquet)`);
          done.push({ id, localPath, size: (await stat(localPath)).size, partitionValues: file.partitionValues ?? {} });
        }
        written.push({ version, timestamp: FIRST_COMMIT + version * DAY_MS, files: done });
      }
      tables.push({ ...spec, id: randomUUID(), written });
    }
    return { tables, remove: () => rm(folder, { recursive: true, force: true }) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The table's metadata as the protocol's metaData action carries it. */
export function metaDataOf(table: FakeTable, version: number | undefined): Record<string, unknown> {
  const files = table.written[version ?? table.written.length - 1]?.files ?? [];
  return {
    id: table.id,
    name: table.name,
    format: { provider: 'parquet' },
    schemaString: JSON.stringify({
      type: 'struct',
      fields: table.fields.map((field) => ({
        name: field.name,
        type: field.type,
        nullable: field.nullable ?? true,
        metadata: {},
      })),
    }),
    partitionColumns: table.partitionColumns ?? [],
    configuration: {},
    ...(version === undefined ? {} : { version }),
    size: files.reduce((total, file) => total + file.size, 0),
    numFiles: files.length,
  };
}
