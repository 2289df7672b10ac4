/**
 * Runs one retention sweep now (docs/retention.md), in this process, the way the scheduled
 * function does: against the stack `npm start` runs (default), or a deployed stage's table
 * and data bucket with the caller's AWS credentials. Prints what it deleted as JSON.
 *
 *   npm run sweep [-- --data-dir .local] [--at 2030-01-01T00:00:00Z]
 *   TABLE_NAME=<table> DATA_BUCKET=<bucket> npm run sweep -- --deployed
 *
 * --at sweeps as of that moment instead of now (what GET /retention-policy/preview?as_of= lists).
 */
import { parseArgs } from 'node:util';
import { sweepToEnd } from '../../shared/retention/sweep-run';
import { useStack } from './stack';

function fail(message: string, exitCode = 2): never {
  process.stderr.write(`sweep: ${message}\n`);
  process.exit(exitCode);
}

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    deployed: { type: 'boolean', default: false },
    at: { type: 'string' },
  },
});
const asOf = values.at === undefined ? new Date() : new Date(values.at);
if (Number.isNaN(asOf.getTime())) fail('--at takes an ISO 8601 date-time, such as 2030-01-01T00:00:00Z');
useStack({ local: !values.deployed, dataDir: values['data-dir'] }, fail);
if (values.deployed && !process.env.DATA_BUCKET) fail('DATA_BUCKET must name the stage’s data bucket (stack outputs)');
const result = await sweepToEnd(asOf).catch((error: unknown) =>
  fail(`the sweep failed (${String(error)}); is the stack still running?`, 1),
);
process.stdout.write(`${JSON.stringify({ as_of: asOf.toISOString(), ...result }, null, 2)}\n`);
