/**
 * The transfer core (shared/transfers/run.ts) against an in-memory pricing system: batches of
 * consecutive sequences, limits checked before anything is sent, a failure half-way that says
 * what the pricing system took and aborts the upload, and a retry after a transient failure
 * that resumes without sending a row twice.
 */
import { describe, expect, it } from 'vitest';
import type { PricingColumn } from '../../../shared/connectors/pricing/connector';
import { sendRows, type RowReader, type TransferCounts, type TransferPlan } from '../../../shared/transfers/run';
import { PricingDouble } from './pricing-double';

const COLUMNS: PricingColumn[] = [
  { name: 'sku', type: 'STRING' },
  { name: 'region', type: 'STRING' },
];

/** `count` source rows, as an engine would give them. */
function sourceRows(count: number): string[][] {
  return Array.from({ length: count }, (_, index) => [`sku-${index}`, index % 2 === 0 ? 'north' : 'south']);
}

/** The rows in memory, read from a row on like the engine reader; counts the rows it was asked for. */
function readerOf(rows: readonly (readonly string[])[]): RowReader & { readonly read: number[] } {
  const read: number[] = [];
  return {
    read,
    async *batches(offset, size) {
      for (let start = offset; start < rows.length; start += size) {
        read.push(start);
        yield await Promise.resolve(rows.slice(start, start + size));
      }
    },
  };
}

const plan = (rows: number, overrides: Partial<TransferPlan> = {}): TransferPlan => ({
  key: 'transfer-1',
  destination: { projectPath: '\\Pricing\\Europe', tablePath: 'Prices\\' },
  columns: COLUMNS,
  rows,
  batchRows: 4,
  ...overrides,
});

async function send(
  pricing: PricingDouble,
  rows: readonly (readonly string[])[],
  overrides: Partial<TransferPlan> = {},
): Promise<{ readonly result?: TransferCounts; readonly error?: unknown; readonly heard: TransferCounts[] }> {
  const heard: TransferCounts[] = [];
  try {
    const result = await sendRows(
      pricing,
      plan(rows.length, overrides),
      readerOf(rows),
      new AbortController().signal,
      (counts) => {
        heard.push(counts);
        return Promise.resolve();
      },
    );
    return { result, heard };
  } catch (error) {
    return { error, heard };
  }
}

describe('sendRows', () => {
  it('sends every row once, in batches of consecutive sequences, and commits', async () => {
    const pricing = new PricingDouble();
    const rows = sourceRows(10);
    const { result, heard } = await send(pricing, rows);
    expect(pricing.rows('transfer-1')).toEqual(rows);
    expect(pricing.uploads.get('transfer-1')?.state).toBe('COMMITTED');
    expect(pricing.calls.map((call) => [call.sequence, call.rows])).toEqual([
      [0, 4],
      [1, 4],
      [2, 2],
    ]);
    expect(heard.map((counts) => [counts.sent, counts.accepted])).toEqual([
      [4, 4],
      [8, 8],
      [10, 10],
    ]);
    expect(result).toMatchObject({ sent: 10, accepted: 10 });
    // The batches' request bodies, as the connector reports them.
    const body = (batch: readonly unknown[]) => Buffer.byteLength(JSON.stringify({ rows: batch }));
    expect(result?.bytes).toBe(body(rows.slice(0, 4)) + body(rows.slice(4, 8)) + body(rows.slice(8)));
  });

  it('commits an empty source as an empty upload', async () => {
    const pricing = new PricingDouble();
    const { result } = await send(pricing, []);
    expect(result).toEqual({ sent: 0, accepted: 0, bytes: 0 });
    expect(pricing.calls).toEqual([]);
    expect(pricing.uploads.get('transfer-1')?.state).toBe('COMMITTED');
  });

  it('fails half-way having reported what the pricing system took, and aborts the upload', async () => {
    const pricing = new PricingDouble();
    pricing.faults.set(2, 'refuse');
    const { error, heard } = await send(pricing, sourceRows(10));
    expect(error).toMatchObject({ code: '30-4007' });
    expect(heard.at(-1)).toMatchObject({ sent: 8, accepted: 8 });
    expect(pricing.aborts).toEqual(['transfer-1']);
    expect(pricing.uploads.get('transfer-1')?.state).toBe('ABORTED');
    expect(pricing.rows('transfer-1')).toEqual([]);
  });

  it('keeps the upload open after a failure the job’s runner tries again', async () => {
    const pricing = new PricingDouble();
    pricing.faults.set(1, 'transient');
    expect((await send(pricing, sourceRows(10))).error).toMatchObject({ code: '30-1110' });
    expect(pricing.aborts).toEqual([]);
    expect(pricing.uploads.get('transfer-1')?.state).toBe('OPEN');
    expect(pricing.rows('transfer-1')).toHaveLength(4);
  });

  it('reports the transfer’s own failure when the abort fails too', async () => {
    const pricing = new PricingDouble();
    pricing.faults.set(0, 'refuse');
    pricing.abortFails = true;
    expect((await send(pricing, sourceRows(10))).error).toMatchObject({ code: '30-4007' });
    expect(pricing.aborts).toEqual(['transfer-1']);
  });

  it('resumes a transfer after what the pricing system holds: no row is sent twice', async () => {
    const pricing = new PricingDouble();
    const rows = sourceRows(10);
    pricing.faults.set(1, 'transient');
    expect((await send(pricing, rows)).error).toMatchObject({ code: '30-1110' });
    const reader = readerOf(rows);
    const heard: TransferCounts[] = [];
    const result = await sendRows(pricing, plan(10), reader, new AbortController().signal, (counts) => {
      heard.push(counts);
      return Promise.resolve();
    });
    expect(reader.read).toEqual([4, 8]);
    expect(pricing.calls.map((call) => call.sequence)).toEqual([0, 1, 1, 2]);
    expect(pricing.rows('transfer-1')).toEqual(rows);
    expect(heard[0]).toMatchObject({ sent: 8, accepted: 8 });
    // Only what this attempt sent crossed the boundary now.
    expect(result).toEqual({
      sent: 10,
      accepted: 10,
      bytes:
        Buffer.byteLength(JSON.stringify({ rows: rows.slice(4, 8) })) +
        Buffer.byteLength(JSON.stringify({ rows: rows.slice(8) })),
    });
  });

  it('does not send again a batch the pricing system took when its answer was lost', async () => {
    const pricing = new PricingDouble();
    const rows = sourceRows(9);
    pricing.faults.set(1, 'lose-answer');
    expect((await send(pricing, rows)).error).toMatchObject({ code: '30-1110' });
    expect(pricing.rows('transfer-1')).toHaveLength(8);
    const { result } = await send(pricing, rows);
    expect(result).toMatchObject({ sent: 9, accepted: 9 });
    expect(pricing.calls.map((call) => call.sequence)).toEqual([0, 1, 2]);
    expect(pricing.rows('transfer-1')).toEqual(rows);
  });

  it('sends nothing again for an upload already whole, and commits it again', async () => {
    const pricing = new PricingDouble();
    const rows = sourceRows(5);
    await send(pricing, rows);
    const { result } = await send(pricing, rows);
    expect(result).toEqual({ sent: 5, accepted: 5, bytes: 0 });
    expect(pricing.calls).toHaveLength(2);
    expect(pricing.rows('transfer-1')).toEqual(rows);
  });

  it('keeps uploads of other transfers apart', async () => {
    const pricing = new PricingDouble();
    const rows = sourceRows(6);
    await send(pricing, rows);
    await send(pricing, rows, { key: 'transfer-2' });
    expect(pricing.rows('transfer-1')).toEqual(rows);
    expect(pricing.rows('transfer-2')).toEqual(rows);
  });

  it("refuses a source beyond the table's columns (30-6004) or rows (30-6003) before opening an upload", async () => {
    const narrow = new PricingDouble({ maxRows: 100, maxColumns: 1 });
    const columns = await send(narrow, sourceRows(3));
    expect(columns.error).toMatchObject({
      code: '30-6004',
      extraDetails: { columns: 2, max_columns: 1 },
    });
    expect((columns.error as Error).message).toBe(
      'Transfer failed due to pricing-system size limits (1 columns and 100 rows)',
    );
    expect(narrow.uploads.size).toBe(0);
    const short = new PricingDouble({ maxRows: 5, maxColumns: 10 });
    const rows = await send(short, sourceRows(6));
    expect(rows.error).toMatchObject({ code: '30-6003', extraDetails: { rows: 6, max_rows: 5 } });
    expect((rows.error as Error).message).toBe(
      'Transfer failed due to pricing-system size limits (6 rows; the table takes at most 5)',
    );
    expect(short.uploads.size).toBe(0);
    expect((await send(new PricingDouble({ maxRows: 6, maxColumns: 2 }), sourceRows(6))).result).toMatchObject({
      accepted: 6,
    });
  });

  it('does not commit when the pricing system holds another count than the source has', async () => {
    const pricing = new PricingDouble();
    const { error } = await send(pricing, sourceRows(5), { rows: 6 });
    expect(error).toMatchObject({ code: '10-500' });
    expect(pricing.uploads.get('transfer-1')?.state).toBe('ABORTED');
  });
});
