/**
 * File formats recognised by their first (and last) bytes, and the data file extensions an
 * import reads. Each format's reader checks a file's bytes against the format its extension
 * names: a Parquet file named .csv, or a zip named .parquet, is refused as "file type not
 * supported" (10-1000), which tells the user more than "corrupted". Signatures that are plain
 * text ("PAR1", "%PDF-", "BZh?1AY&SY") are long or paired with a footer check so that a CSV
 * header cannot match them.
 */
interface FileSignature {
  readonly format: string;
  /** Leading bytes; ANY matches every byte. */
  readonly head: readonly number[];
  /** Bytes the file must also end with. */
  readonly tail?: readonly number[];
}

const ANY = -1;
const bytes = (...values: number[]) => values;
const ascii = (text: string) => Array.from(text, (character) => (character === '?' ? ANY : character.charCodeAt(0)));

const SIGNATURES: readonly FileSignature[] = [
  { format: 'Parquet', head: ascii('PAR1'), tail: ascii('PAR1') },
  { format: 'gzip', head: bytes(0x1f, 0x8b) },
  { format: 'zip (xlsx, docx…)', head: bytes(0x50, 0x4b, 0x03, 0x04) },
  { format: 'zip (xlsx, docx…)', head: bytes(0x50, 0x4b, 0x05, 0x06) },
  { format: 'Microsoft Office 97–2003 (xls, doc)', head: bytes(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1) },
  { format: 'bzip2', head: ascii('BZh?1AY&SY') },
  { format: 'xz', head: bytes(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00) },
  { format: 'zstd', head: bytes(0x28, 0xb5, 0x2f, 0xfd) },
  { format: '7z', head: bytes(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c) },
  { format: 'PDF', head: ascii('%PDF-') },
];

const startsWith = (data: Uint8Array, prefix: readonly number[]) =>
  data.length >= prefix.length && prefix.every((byte, index) => byte === ANY || data[index] === byte);
const endsWith = (data: Uint8Array, suffix: readonly number[]) =>
  startsWith(data.subarray(data.length - suffix.length), suffix);

/** The format `head` (and `tail`, the file's last bytes) belongs to, if it is a known non-CSV one. */
export function recognisedFormat(head: Uint8Array, tail: Uint8Array): string | undefined {
  return SIGNATURES.find(
    (signature) => startsWith(head, signature.head) && (!signature.tail || endsWith(tail, signature.tail)),
  )?.format;
}

/** How many trailing bytes recognisedFormat needs. */
export const SIGNATURE_TAIL_BYTES = 4;

/** The file formats an import reads. CSV may be gzip-compressed (".csv.gz"). */
export type DataFormat = 'csv' | 'parquet' | 'jsonl';

/** Data file extensions, longest first, with the format each names. */
const DATA_EXTENSIONS: readonly (readonly [string, DataFormat])[] = [
  ['.csv.gz', 'csv'],
  ['.csv', 'csv'],
  ['.parquet', 'parquet'],
  ['.jsonl', 'jsonl'],
  ['.ndjson', 'jsonl'],
];

/** The data file extension `name` ends with (any case), lower-cased; undefined for any other file. */
export function dataFileExtension(name: string): string | undefined {
  const lower = name.toLowerCase();
  return DATA_EXTENSIONS.find(([extension]) => lower.endsWith(extension))?.[0];
}

/** The format a data file extension (dataFileExtension) names. */
export function formatOfExtension(extension: string): DataFormat | undefined {
  return DATA_EXTENSIONS.find(([known]) => known === extension)?.[1];
}

/** Shown in messages. */
export const FORMAT_NAMES: Readonly<Record<DataFormat, string>> = {
  csv: 'CSV',
  parquet: 'Parquet',
  jsonl: 'JSON Lines',
};
