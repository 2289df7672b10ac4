import { join } from 'node:path';
import { quotedString } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeclaredColumn } from '../../../shared/engine/declared-columns';
import { importFiles } from '../../../shared/engine/file-import';
import { scratch, withPlainDuckDb, type Scratch } from './scratch';

let dir: Scratch;
beforeAll(async () => {
  dir = await scratch('declared-columns');
});
afterAll(async () => {
  await dir.remove();
});

const base64 = (text: string) => Buffer.from(text, 'latin1').toString('base64');

const DECLARED: DeclaredColumn[] = [
  { name: 'id', type: { kind: 'scalar', sql: 'BIGINT' } },
  { name: 'amount', type: { kind: 'scalar', sql: 'DECIMAL(38,9)' } },
  { name: 'note', type: { kind: 'scalar', sql: 'VARCHAR' } },
  { name: 'raw', type: { kind: 'blob' } },
  { name: 'chunks', type: { kind: 'list', element: { kind: 'blob' } } },
  {
    name: 'file',
    type: {
      kind: 'struct',
      fields: [
        { name: 'name', type: { kind: 'scalar', sql: 'VARCHAR' } },
        { name: 'body', type: { kind: 'blob' } },
      ],
    },
  },
];

describe('JSON Lines loaded with a declared schema', () => {
  it('reads each column as declared, decodes base64 BLOBs at any depth and keeps NULLs', async () => {
    const lines = [
      {
        id: '9007199254740993',
        amount: '12345678901234567890123456789.123456789',
        note: null,
        raw: base64('\u0000\u00ff'),
        chunks: [base64('ab')],
        file: { name: 'a', body: base64('\u0001') },
      },
      { id: null, amount: null, note: null, raw: null, chunks: null, file: null },
    ];
    const localPath = await dir.file('rows.jsonl', lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const result = await importFiles(
      [{ localPath, source: 'p.d.t' }],
      { outDir: join(dir.dir, 'out'), sampleRows: 10, previewRows: 10 },
      DECLARED,
    );
    expect(result.columns.map((column) => `${column.name} ${column.type}`)).toEqual([
      'id BIGINT',
      'amount DECIMAL(38,9)',
      'note VARCHAR',
      'raw BLOB',
      'chunks BLOB[]',
      'file STRUCT("name" VARCHAR, body BLOB)',
    ]);
    const rows = await withPlainDuckDb(async (connection) => {
      const reader = await connection.runAndReadAll(
        `SELECT id::VARCHAR, amount::VARCHAR, note, hex(raw), hex(chunks[1]), file.name, hex(file.body) FROM read_parquet(${quotedString(result.dataPath)})`,
      );
      return reader.getRows().map((cells) => cells.map((cell) => (cell === null ? null : String(cell))));
    });
    expect(rows).toEqual([
      ['9007199254740993', '12345678901234567890123456789.123456789', null, '00FF', '6162', 'a', '01'],
      [null, null, null, null, null, null, null],
    ]);
  });

  it('refuses a declared schema for a format other than JSON Lines: only our readers declare one', async () => {
    const localPath = await dir.file('rows.csv', 'id\n1\n');
    await expect(
      importFiles(
        [{ localPath, source: 'x' }],
        { outDir: join(dir.dir, 'out-csv'), sampleRows: 10, previewRows: 10 },
        DECLARED,
      ),
    ).rejects.toThrow(/JSON Lines, not CSV/);
  });
});
