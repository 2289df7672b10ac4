/**
 * The engine step of a recipe run (shared/engine/recipe-run.ts): aliases as views over their
 * Parquet files, the code as written (a trailing semicolon and comment included), the output
 * and its preview, and the codes of failures at run time. The engine is the sandboxed one: a
 * file outside the run's folders cannot be read even by code the analyzer never saw.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors/app-error';
import { runRecipeSql, type RecipeSource } from '../../../shared/engine/recipe-run';
import { analyseParquet } from '../../../shared/engine/schema-analysis';
import type { SchemaAnalysisDepth } from '../../../shared/model/columns';
import { scratch, withPlainDuckDb, type Scratch } from './scratch';

let dir: Scratch;
let inDir: string;
let sources: RecipeSource[];
let secret: string;

beforeAll(async () => {
  dir = await scratch('recipe-run');
  inDir = join(dir.dir, 'in');
  await mkdir(inDir);
  const orders = join(inDir, 'orders.parquet');
  const customers = join(inDir, 'customers.parquet');
  await withPlainDuckDb(async (connection) => {
    await connection.run(
      `COPY (SELECT * FROM (VALUES (1, 1, 10.5), (2, 2, 4.0), (3, 1, 1.5)) t(id, customer_id, amount)) TO ${quotedString(orders)} (FORMAT parquet)`,
    );
    await connection.run(
      `COPY (SELECT * FROM (VALUES (1, 'ada'), (2, 'bob')) t(id, name)) TO ${quotedString(customers)} (FORMAT parquet)`,
    );
  });
  secret = await dir.file('secret.csv', 'password\nhunter2\n');
  sources = [
    { alias: 'orders', path: orders },
    { alias: 'customers', path: customers },
  ];
});
afterAll(async () => {
  await dir?.remove();
});

let runs = 0;
async function run(code: string, analysisDepth: SchemaAnalysisDepth = 'SHALLOW') {
  const outDir = join(dir.dir, `out-${(runs += 1)}`);
  await mkdir(outDir);
  return runRecipeSql(
    code,
    Promise.resolve(sources),
    { inDir, outDir, spillDir: join(dir.dir, `spill-${runs}`) },
    { previewRows: 100, analysisDepth },
  );
}

async function failure(code: string): Promise<AppError> {
  const error = await run(code).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('running recipe SQL', () => {
  it('starts before its sources are there, and runs once they are', async () => {
    const outDir = join(dir.dir, 'out-late-sources');
    await mkdir(outDir);
    const late = new Promise<RecipeSource[]>((resolve) => setTimeout(() => resolve(sources), 50));
    const result = await runRecipeSql(
      'SELECT count(*)::INTEGER AS n FROM orders',
      late,
      { inDir, outDir, spillDir: join(dir.dir, 'spill-late') },
      { previewRows: 10, analysisDepth: 'SHALLOW' },
    );
    expect(result.previewRows).toEqual([{ n: 3 }]);
  });

  it('fails with its sources’ own error when they cannot be had', async () => {
    const outDir = join(dir.dir, 'out-no-sources');
    await mkdir(outDir);
    const missing = new AppError('20-1059', { params: [7, 1] });
    const refused = Promise.reject(missing);
    const run = runRecipeSql(
      'SELECT * FROM orders',
      refused,
      { inDir, outDir, spillDir: join(dir.dir, 'spill-none') },
      { previewRows: 10, analysisDepth: 'SHALLOW' },
    );
    await expect(run).rejects.toBe(missing);
  });

  it('spills into the run’s own folder, not the process’s working directory', async () => {
    const result = await run("SELECT current_setting('temp_directory') AS spill FROM customers LIMIT 1");
    expect(result.previewRows).toEqual([{ spill: join(dir.dir, `spill-${runs}`) }]);
  });

  it.each(['SHALLOW', 'FULL'] as const)(
    'analyses its output in the same engine as a separate %s analysis of the written file does',
    async (depth) => {
      const result = await run('SELECT o.*, c.name FROM orders o LEFT JOIN customers c ON c.id = o.customer_id', depth);
      expect(result.analysis.depth).toBe(depth);
      expect(result.analysis.row_count).toBe(result.rowCount);
      expect(result.analysis).toEqual(await analyseParquet(result.dataPath, depth));
    },
  );

  it('reads each alias as its file and writes every row, with columns and a preview', async () => {
    const result = await run(
      'SELECT c.name, count(*)::INTEGER AS orders, sum(o.amount)::DOUBLE AS total FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.name ORDER BY c.name; -- per customer',
    );
    expect(result.rowCount).toBe(2);
    expect(result.columns.map((column) => [column.name, column.type])).toEqual([
      ['name', 'VARCHAR'],
      ['orders', 'INTEGER'],
      ['total', 'DOUBLE'],
    ]);
    expect(result.previewRows).toEqual([
      { name: 'ada', orders: 2, total: 12 },
      { name: 'bob', orders: 1, total: 4 },
    ]);
    const written = await withPlainDuckDb(async (connection) =>
      (
        await connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM ${quotedString(result.dataPath)}`)
      ).getRowObjectsJS(),
    );
    expect(written).toEqual([{ n: 2 }]);
  });

  it('a column the source does not have is 20-1031 naming it, qualified or not', async () => {
    expect((await failure('SELECT nosuch FROM orders JOIN customers USING (id)')).message).toContain('nosuch');
    const qualified = await failure('SELECT o.missing FROM orders o JOIN customers c ON c.id = o.id');
    expect([qualified.code, qualified.extraDetails?.cause]).toEqual(['20-1031', expect.stringContaining('missing')]);
  });

  it('other binding errors are 40-50001, values that do not convert 10-1002, with DuckDB’s reason and no local path', async () => {
    const binding = await failure("SELECT id + 'x' FROM orders JOIN customers USING (id)");
    expect(binding.code).toBe('40-50001');
    const conversion = await failure('SELECT CAST(name AS INTEGER) AS n FROM customers JOIN orders USING (id)');
    expect(conversion.code).toBe('10-1002');
    expect(JSON.stringify([binding.extraDetails, conversion.extraDetails])).not.toContain(dir.dir);
  });

  it('cannot read a file outside its folders, and says nothing of the worker when it fails that way (10-500, no cause)', async () => {
    const outside = await failure(`SELECT * FROM read_csv(${quotedString(secret)}), orders, customers`);
    expect(outside.code).toBe('10-500');
    expect(outside.extraDetails).toBeUndefined();
  });
});
