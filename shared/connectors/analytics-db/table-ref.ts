import { AppError } from '../../errors/app-error';

/** An analytics-database table reference, unquoted. */
export interface TableRef {
  readonly project: string;
  readonly dataset: string;
  readonly table: string;
}

/** An unquoted identifier: letters, digits, underscores and hyphens (project ids have hyphens). */
const BARE = /[A-Za-z0-9_-]*/y;
/** Inside backticks anything but a backtick or a control character, spaces included. */
const QUOTED = /`([^`\u0000-\u001f\u007f]*)`/y;

/** The dot-separated parts of `ref`, or undefined when it does not split cleanly. */
function partsOf(ref: string): string[] | undefined {
  const parts: string[] = [];
  let at = 0;
  for (;;) {
    QUOTED.lastIndex = at;
    BARE.lastIndex = at;
    const quoted = QUOTED.exec(ref);
    const match = quoted ?? (ref[at] === '`' ? null : BARE.exec(ref));
    if (!match) return undefined;
    parts.push(quoted ? quoted[1]! : match[0]);
    at += match[0].length;
    if (at === ref.length) return parts;
    if (ref[at] !== '.') return undefined;
    at += 1;
  }
}

/**
 * Parses `[projectId].[datasetId].[tableName]` (spec 2.5), e.g. `my project`.sales.`daily totals`:
 * 30-1419 unless it has exactly three parts with a project and a dataset, 30-1420 when the
 * table name is empty.
 */
export function parseTableRef(ref: string): TableRef {
  const parts = partsOf(ref);
  if (!parts || parts.length !== 3) throw new AppError('30-1419', { params: [ref] });
  const [project, dataset, table] = parts as [string, string, string];
  if (project.trim() === '' || dataset.trim() === '') throw new AppError('30-1419', { params: [ref] });
  if (table.trim() === '') throw new AppError('30-1420', { params: [ref] });
  return { project, dataset, table };
}
