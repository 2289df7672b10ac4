import type { DuckDBInstance } from '@duckdb/node-api';
import * as z from 'zod';
import { createSandboxedDuckDb } from './duckdb';
import type { Json } from './recipe-sql-tree';

/**
 * Recipe SQL parsed by DuckDB's own parser (json_serialize_sql), in a sandboxed engine shared
 * by every analysis of the process: parsing reads nothing and changes nothing, so one engine
 * serves all callers, each on a connection of its own. The engine is created on first use,
 * once per (warm) function instance.
 */

/** What json_serialize_sql answers: the statements' trees, or why DuckDB could not parse. */
const SerializedSql = z.discriminatedUnion('error', [
  z.object({ error: z.literal(false), statements: z.array(z.custom<Json>(() => true)) }),
  z.object({
    error: z.literal(true),
    error_type: z.string(),
    error_message: z.string(),
    // A character offset into the code, as text; absent when DuckDB cannot place the error.
    position: z.string().regex(/^\d+$/).transform(Number).optional(),
  }),
]);
export type SerializedSql = z.infer<typeof SerializedSql>;

let engine: Promise<DuckDBInstance> | undefined;

function sharedEngine(): Promise<DuckDBInstance> {
  engine ??= createSandboxedDuckDb().catch((error: unknown) => {
    // The next analysis tries again rather than failing forever.
    engine = undefined;
    throw error;
  });
  return engine;
}

/** The code as DuckDB's parser reads it; never runs or binds it. */
export async function serializeSql(code: string): Promise<SerializedSql> {
  const connection = await (await sharedEngine()).connect();
  try {
    const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [code]);
    const serialized = reader.getRows()[0]?.[0];
    if (typeof serialized !== 'string') throw new Error('json_serialize_sql answered no text');
    return SerializedSql.parse(JSON.parse(serialized));
  } finally {
    connection.closeSync();
  }
}
