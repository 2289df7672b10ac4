/**
 * Sets the table counter (`ref_tables`, 30-1507) of every connection stored before it existed
 * to the number of tables that read the connection through its data sources
 * (shared/data-sources/connection-tables-backfill.ts). Run it once per stage right after the
 * deploy that brings the counter; it is safe to run again and beside live traffic. Prints a
 * JSON report; exits 1 if a connection could not be recounted (it names them; run it again).
 *
 *   TABLE_NAME=<table from the stack outputs> npm run backfill-connection-tables
 *   npm run backfill-connection-tables -- --local [--data-dir .local]
 */
import { parseArgs } from 'node:util';
import { backfillConnectionTables } from '../../shared/data-sources/connection-tables-backfill';
import { useStack } from './stack';

const { values } = parseArgs({
  options: { local: { type: 'boolean', default: false }, 'data-dir': { type: 'string' } },
});

function fail(message: string, exitCode = 2): never {
  process.stderr.write(`backfill-connection-tables: ${message}\n`);
  process.exit(exitCode);
}

useStack({ local: values.local, dataDir: values['data-dir'] }, fail);
const report = await backfillConnectionTables();
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
if (report.skipped.length > 0) process.exit(1);
