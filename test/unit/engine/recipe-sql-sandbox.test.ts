import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxedDuckDb, withSandboxedDuckDb } from '../../../shared/engine/duckdb';
import { analyseRecipeSql } from '../../../shared/engine/recipe-sql';
import { refusal } from './recipe-sql-support';
import { scratch, type Scratch } from './scratch';

/**
 * Defence in depth: each query below is refused by the analyzer, and would fail anyway in the
 * engine that runs recipe SQL, which has no external access and a locked configuration.
 */

let dir: Scratch;
let secret: string;
let engine: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  dir = await scratch('recipe-sandbox');
  secret = await dir.file('secret.csv', 'password\nhunter2\n');
  engine = await createSandboxedDuckDb();
  connection = await engine.connect();
  await connection.run('CREATE TABLE orders AS SELECT 1 AS id');
});
afterAll(async () => {
  connection?.closeSync();
  engine?.closeSync();
  await dir.remove();
});

const PERMISSION = /Permission Error: .*disabled (by|through) configuration/;
const LOCKED = /the configuration has been locked/;

describe('the sandboxed engine, with what the analyzer refuses', () => {
  // $DIR is the test's scratch folder, $SECRET a file in it.
  const cases: [string, string, string, RegExp][] = [
    ['reading a local file', "SELECT * FROM read_csv('$SECRET')", '40-50005', PERMISSION],
    ['reading /etc/passwd', "SELECT * FROM read_csv('/etc/passwd')", '40-50005', PERMISSION],
    ['reading a file as text', "SELECT * FROM read_text('/etc/passwd')", '40-50005', PERMISSION],
    ['listing files', "SELECT * FROM glob('/etc/*')", '40-50005', PERMISSION],
    ['reading a URL', "SELECT * FROM read_json('http://169.254.169.254/latest/meta-data/')", '40-50005', PERMISSION],
    ['a file as a table name', "SELECT * FROM '$SECRET', orders", '40-50006', PERMISSION],
    ['writing a file', "COPY orders TO '$DIR/out.csv'", '40-50002', PERMISSION],
    ['attaching a database', "ATTACH '$DIR/other.duckdb' AS other", '40-50002', PERMISSION],
    ['exporting the database', "EXPORT DATABASE '$DIR/export'", '40-50002', PERMISSION],
    ['installing an extension', 'INSTALL httpfs', '40-50002', PERMISSION],
    ['loading an extension', 'LOAD httpfs', '40-50002', PERMISSION],
    ['loading an extension file', "LOAD '$DIR/evil.duckdb_extension'", '40-50002', PERMISSION],
    ['turning external access back on', 'SET enable_external_access = true', '40-50002', LOCKED],
    ['unlocking the configuration', 'SET lock_configuration = false', '40-50002', LOCKED],
    ['resetting a setting', 'RESET enable_external_access', '40-50002', LOCKED],
    ['changing a setting by PRAGMA', 'PRAGMA threads = 64', '40-50002', LOCKED],
    ['raising the memory limit', "SET memory_limit = '1TB'", '40-50002', LOCKED],
  ];

  it.each(cases)('%s: the analyzer refuses it, the engine fails it', async (_name, template, code, engineError) => {
    const sql = template.replaceAll('$SECRET', secret).replaceAll('$DIR', dir.dir);
    expect((await refusal(analyseRecipeSql(sql, ['orders']))).code).toBe(code);
    await expect(connection.run(sql)).rejects.toThrow(engineError);
  });

  it('wrote nothing and kept its settings', async () => {
    expect(existsSync(join(dir.dir, 'out.csv'))).toBe(false);
    expect(existsSync(join(dir.dir, 'other.duckdb'))).toBe(false);
    expect(existsSync(join(dir.dir, 'export'))).toBe(false);
    const settings = await connection.runAndReadAll(
      "SELECT current_setting('enable_external_access'), current_setting('lock_configuration'), current_setting('threads'), current_setting('TimeZone')",
    );
    expect(settings.getRows()).toEqual([[false, true, 1n, 'UTC']]);
  });

  it('locks every connection of the instance, not only the first', async () => {
    const other = await engine.connect();
    try {
      await expect(other.run("SELECT * FROM read_csv('/etc/passwd')")).rejects.toThrow(PERMISSION);
      await expect(other.run('SET enable_external_access = true')).rejects.toThrow(LOCKED);
    } finally {
      other.closeSync();
    }
  });
});

describe('withSandboxedDuckDb with directories', () => {
  it('reads inside the directories it is given and nowhere else', async () => {
    const inside = await scratch('recipe-sandbox-inside');
    try {
      const input = await inside.file('input.csv', 'a\n1\n');
      const rows = await withSandboxedDuckDb({ directories: [inside.dir] }, async (sandboxed) => {
        const read = (await sandboxed.runAndReadAll(`SELECT a FROM read_csv('${input}')`)).getRows();
        await expect(sandboxed.run("SELECT * FROM read_csv('$SECRET')")).rejects.toThrow(PERMISSION);
        await expect(sandboxed.run(`SELECT * FROM read_csv('${join(inside.dir, '..', 'x.csv')}')`)).rejects.toThrow(
          PERMISSION,
        );
        await expect(sandboxed.run("SET allowed_directories = ['/']")).rejects.toThrow(LOCKED);
        return read;
      });
      expect(rows).toEqual([[1n]]);
    } finally {
      await inside.remove();
    }
  });
});
