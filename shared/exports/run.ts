import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { NoSuchKey } from '@aws-sdk/client-s3';
import { downloadFile } from '../aws/data-bucket';
import { AppError } from '../errors/app-error';
import type { JobPulse } from '../jobs/pulse';
import type { ExportFormat } from '../model/export';
import { FORMAT_EXTENSIONS, writeExportFiles, type ExportFile } from './engine';
import type { ExportShape } from './jobs';
import { exportSourceAtRunTime } from './source';

/** Media type of each format's files, as the objects are stored. */
export const CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = {
  parquet: 'application/vnd.apache.parquet',
  csv: 'text/csv; charset=utf-8',
};

/**
 * The source of an export as it is now (30-6001 when it went away), its Parquet copied from
 * the data bucket into the scratch folder: answers the local copy's path.
 */
export async function downloadExportSource(
  tenantId: string,
  shape: ExportShape,
  workDir: string,
  signal?: AbortSignal,
): Promise<string> {
  const source = await exportSourceAtRunTime(tenantId, shape);
  const sourcePath = join(workDir, 'source.parquet');
  try {
    await downloadFile(source.dataKey, sourcePath, signal);
  } catch (error) {
    if (error instanceof NoSuchKey) throw new AppError('30-6001', { cause: error });
    throw error;
  }
  return sourcePath;
}

/** The folder of the scratch space an export's output is written to, created empty. */
export async function exportOutputFolder(workDir: string): Promise<string> {
  const outDir = join(workDir, 'out');
  await mkdir(outDir);
  return outDir;
}

/**
 * The first half of every export job: the source downloaded (downloadExportSource) and the
 * output written to the scratch folder as `files` files. Progress: READING, then WRITING at
 * 40 % with the rows written.
 */
export async function produceExport(
  tenantId: string,
  shape: ExportShape,
  files: number,
  pulse: JobPulse,
  workDir: string,
): Promise<ExportFile[]> {
  const sourcePath = await downloadExportSource(tenantId, shape, workDir, pulse.signal);
  const written = await writeExportFiles(sourcePath, shape, files, await exportOutputFolder(workDir), workDir, {
    signal: pulse.signal,
  });
  await pulse.stage({ stage: 'WRITING', percent: 40, rows: written.reduce((sum, file) => sum + file.rows, 0) });
  return written;
}

/**
 * The keys of a direct export's objects: `key` itself for one file; for several,
 * `<stem>-<n>-of-<total><extension>` where the stem is `key` without the format's extension
 * (sales.parquet → sales-00001-of-00003.parquet), numbers zero-padded to five digits.
 */
export function exportKeys(key: string, total: number, format: ExportFormat): string[] {
  if (total === 1) return [key];
  const extension = FORMAT_EXTENSIONS[format];
  const stem = key.toLowerCase().endsWith(extension) ? key.slice(0, -extension.length) : key;
  const pad = (n: number) => String(n).padStart(5, '0');
  return Array.from({ length: total }, (_, index) => `${stem}-${pad(index + 1)}-of-${pad(total)}${extension}`);
}
