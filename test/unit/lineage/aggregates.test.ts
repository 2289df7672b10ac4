/** The tracer's aggregate list is the pinned DuckDB's: an upgrade that adds one fails here, not in a lineage. */
import { DuckDBInstance } from '@duckdb/node-api';
import { expect, it } from 'vitest';
import { AGGREGATE_FUNCTIONS } from '../../../shared/engine/lineage/aggregate-functions';

it('AGGREGATE_FUNCTIONS lists exactly the engine’s aggregate functions', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(
      "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type = 'aggregate' ORDER BY 1",
    );
    expect([...AGGREGATE_FUNCTIONS].sort()).toEqual(
      reader
        .getRows()
        .map((row) => String(row[0]))
        .sort(),
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});
