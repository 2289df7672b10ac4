import { rm } from 'node:fs/promises';
import { MIN_PART_BYTES, PartUploads, partRanges, type PutPart } from '../connectors/presigned-parts';
import type { JobPulse } from '../jobs/pulse';
import { writeExportFiles } from './engine';
import type { ExportShape } from './jobs';
import { downloadExportSource, exportOutputFolder } from './run';

/**
 * A multi-part export's output, PUT to the caller's pre-signed part URLs (one per part, in
 * part order). CSV is written as the parts themselves, one DuckDB COPY per part over
 * consecutive row slices (the header in the first alone), and each part travels as soon as it
 * is written while DuckDB writes the next: conversion and upload overlap. Parquet (its files
 * cannot be laid end to end), or CSV whose slices come out too small for S3, is written as one
 * file cut into byte ranges. docs/decisions.md, "Multi-part export: parts written as slices".
 */

/** Parts in flight at once. */
const CONCURRENT_PARTS = 4;

/** What a multi-part export sent: its parts in order, and the rows they hold. */
export interface PartsSent {
  readonly parts: readonly PutPart[];
  readonly rows: number;
}

/** The uploads of a job: each part taken is progress, the watchdog watches only while parts travel. */
function jobUploads(urls: readonly string[], pulse: JobPulse, onPut: (part: PutPart) => void): PartUploads {
  return new PartUploads(urls, CONCURRENT_PARTS, pulse.signal, { onPut, onBusy: (busy) => pulse.watch(busy) });
}

/**
 * CSV as slices of rows, each PUT as its part once written. Answers undefined, having sent
 * nothing that counts, when a slice other than the last comes out under MIN_PART_BYTES (S3
 * refuses such a part): the caller then cuts one file instead. Rows spread evenly give parts
 * of about even size, so the first slice almost always decides, before any PUT.
 */
async function sliceParts(
  sourcePath: string,
  shape: ExportShape,
  urls: readonly string[],
  pulse: JobPulse,
  workDir: string,
  outDir: string,
): Promise<PartsSent | undefined> {
  const total = urls.length;
  let rows = 0;
  let taken = 0;
  let tooSmall = false;
  const progress = () => pulse.progress({ stage: 'WRITING', percent: 40 + Math.floor((60 * taken) / total), rows });
  const uploads = jobUploads(urls, pulse, () => {
    taken += 1;
    progress();
  });
  let written;
  try {
    written = await writeExportFiles(sourcePath, shape, total, outDir, workDir, {
      signal: pulse.signal,
      continued: true,
      onFile: (file, index) => {
        if (index < total - 1 && file.bytes < MIN_PART_BYTES) {
          tooSmall = true;
          return false;
        }
        rows += file.rows;
        uploads.add(file.localPath, { partNumber: index + 1, start: 0, length: file.bytes });
        progress();
        return !uploads.failed;
      },
    });
  } catch (error) {
    await uploads.cancel(error);
    throw error;
  }
  // A failed part fails the job here, whether or not the slices were big enough.
  const parts = await uploads.finish();
  if (!tooSmall) return { parts, rows };
  // The parts already PUT are replaced by those of the one file: a part number PUT again keeps the last bytes.
  await Promise.all(written.map((file) => rm(file.localPath, { force: true })));
  return undefined;
}

/** One file cut into byte ranges (partRanges: 10-1400 when it is too small for the parts asked). */
async function cutParts(
  sourcePath: string,
  shape: ExportShape,
  urls: readonly string[],
  pulse: JobPulse,
  workDir: string,
  outDir: string,
): Promise<PartsSent> {
  const [file] = await writeExportFiles(sourcePath, shape, 1, outDir, workDir, { signal: pulse.signal });
  if (!file) throw new Error('the export wrote no file');
  await pulse.stage({ stage: 'WRITING', percent: 40, rows: file.rows });
  const ranges = partRanges(file.bytes, urls.length);
  let sent = 0;
  const uploads = jobUploads(urls, pulse, (part) => {
    sent += part.bytes;
    pulse.progress({ stage: 'WRITING', percent: 40 + Math.floor((60 * sent) / file.bytes), rows: file.rows });
  });
  for (const range of ranges) uploads.add(file.localPath, range);
  return { parts: await uploads.finish(), rows: file.rows };
}

/**
 * The work of a multi-part export step: the source downloaded (30-6001 when it went away), the
 * output written in the export's shape and PUT to `urls`, one part per URL, every part but the
 * last at least MIN_PART_BYTES. The first part that fails fails the whole.
 */
export async function exportInParts(
  tenantId: string,
  shape: ExportShape,
  urls: readonly string[],
  pulse: JobPulse,
  workDir: string,
): Promise<PartsSent> {
  const sourcePath = await downloadExportSource(tenantId, shape, workDir, pulse.signal);
  const outDir = await exportOutputFolder(workDir);
  const sliced = shape.format === 'csv' ? await sliceParts(sourcePath, shape, urls, pulse, workDir, outDir) : undefined;
  return sliced ?? (await cutParts(sourcePath, shape, urls, pulse, workDir, outDir));
}
