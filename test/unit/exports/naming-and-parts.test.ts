import { describe, expect, it } from 'vitest';
import { MIN_PART_BYTES, partRanges } from '../../../shared/connectors/presigned-parts';
import { AppError } from '../../../shared/errors/app-error';
import { exportKeys } from '../../../shared/exports/run';

describe('partRanges', () => {
  it('cuts into exactly the parts asked, consecutive, every part but the last at least 5 MiB', () => {
    for (const [bytes, parts] of [
      [3 * MIN_PART_BYTES, 3],
      [2 * MIN_PART_BYTES + 1, 3],
      [100 * MIN_PART_BYTES + 7, 9],
      [12_345, 1],
    ] as const) {
      const ranges = partRanges(bytes, parts);
      expect(ranges.map((range) => range.partNumber)).toEqual(Array.from({ length: parts }, (_, index) => index + 1));
      expect(ranges.reduce((sum, range) => sum + range.length, 0)).toBe(bytes);
      ranges.forEach((range, index) => {
        expect(range.start).toBe(index === 0 ? 0 : ranges[index - 1]!.start + ranges[index - 1]!.length);
        expect(range.length).toBeGreaterThanOrEqual(index === parts - 1 ? 1 : MIN_PART_BYTES);
      });
    }
  });

  it('refuses too few bytes for the parts asked with 10-1400 on parts_urls, saying how many are needed', () => {
    expect(partRanges(2 * MIN_PART_BYTES + 1, 3).at(-1)?.length).toBe(1);
    let refusal: unknown;
    try {
      partRanges(2 * MIN_PART_BYTES, 3);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({
      code: '10-1400',
      extraDetails: { parts_urls: expect.stringContaining(String(2 * MIN_PART_BYTES)) },
    });
  });
});

describe('exportKeys', () => {
  it('is the key itself for one file, numbered files beside it for several', () => {
    expect(exportKeys('out/sales.parquet', 1, 'parquet')).toEqual(['out/sales.parquet']);
    expect(exportKeys('out/sales.parquet', 2, 'parquet')).toEqual([
      'out/sales-00001-of-00002.parquet',
      'out/sales-00002-of-00002.parquet',
    ]);
    expect(exportKeys('out/SALES.CSV', 2, 'csv')).toEqual([
      'out/SALES-00001-of-00002.csv',
      'out/SALES-00002-of-00002.csv',
    ]);
    expect(exportKeys('out/sales', 2, 'csv')).toEqual(['out/sales-00001-of-00002.csv', 'out/sales-00002-of-00002.csv']);
  });
});
