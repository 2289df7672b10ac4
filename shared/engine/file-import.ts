import { basename } from 'node:path';
import { importCsvFiles } from './csv-import';
import type { DeclaredColumn } from './declared-columns';
import { engineError } from './engine-errors';
import { dataFileExtension, FORMAT_NAMES, formatOfExtension, type DataFormat } from './file-signatures';
import { importJsonLinesFiles } from './jsonl-import';
import { importParquetFiles } from './parquet-import';
import type { SourceFile, TableImportOptions, TableImportResult } from './table-import';

/**
 * The import of a data source's files, whatever their format. The format of each file comes
 * from the extension of its local name (workers keep the data file's extension:
 * bucket-download.ts; any other name is CSV, as the warehouse's query result), and each
 * format's reader checks the leading and trailing bytes against it (file-signatures.ts).
 *
 * One import reads one format: a folder mixing formats is refused with 10-1002 ("error while
 * parsing file") before any file is read, naming one file of each format. CSV and
 * gzip-compressed CSV are one format and may be mixed.
 *
 * `declared` is the schema a source system declares for the rows its reader wrote as JSON
 * Lines (the analytics_db reader): they are loaded with those types (declared-columns.ts).
 */
export async function importFiles(
  files: readonly SourceFile[],
  options: TableImportOptions,
  declared?: readonly DeclaredColumn[],
): Promise<TableImportResult> {
  const formats = new Map<DataFormat, SourceFile>();
  for (const file of files) {
    const format = formatOf(file);
    if (!formats.has(format)) formats.set(format, file);
  }
  if (formats.size > 1) {
    const named = [...formats].map(([format, file]) => `${file.source} is ${FORMAT_NAMES[format]}`).join(', ');
    throw engineError(
      '10-1002',
      undefined,
      `the folder mixes file formats (${named}); an import reads files of one format`,
    );
  }
  const format = formats.keys().next().value ?? 'csv';
  // Only a reader of ours declares a schema, and it writes JSON Lines: anything else is a bug.
  if (declared && format !== 'jsonl')
    throw new Error(`a declared schema is read from JSON Lines, not ${FORMAT_NAMES[format]}`);
  switch (format) {
    case 'csv':
      return importCsvFiles(files, options);
    case 'parquet':
      return importParquetFiles(files, options);
    case 'jsonl':
      return importJsonLinesFiles(files, options, declared);
  }
}

function formatOf(file: SourceFile): DataFormat {
  const extension = dataFileExtension(basename(file.localPath));
  return (extension && formatOfExtension(extension)) || 'csv';
}
