/**
 * What the bench's twin process and the engine processes it watches share
 * (bench/engine-process-watch.ts, bench/engine-child-timing.ts): the message that carries an
 * engine process's span, and the short names of DuckDB statements, the twin's own and the
 * engine's alike. Kept apart from both so that the engine process loads nothing of the twin's.
 */
import type { Span } from './import-protocol';

/** The kind of message an engine process sends with one of its spans. */
export const ENGINE_SPAN = 'bench-engine-span';

export interface EngineSpanMessage {
  readonly kind: typeof ENGINE_SPAN;
  readonly span: Span;
}

/** A short name for a statement: the SQL holds local paths, which say nothing here; its first words do. */
export function statementLabel(sql: string): string {
  const text = sql.replace(/\s+/g, ' ').trim();
  if (/^COPY \(SELECT \* FROM read_csv\(/i.test(text)) return 'COPY read_csv → parquet (all rows)';
  if (/^COPY \(SELECT \* FROM read_parquet\(.*\) LIMIT/i.test(text)) return 'COPY parquet → sample parquet';
  if (/^COPY .*FORMAT json/i.test(text)) return 'COPY sample → JSON lines';
  if (/^COPY \(SELECT \* FROM "recipe output"\)/i.test(text)) return 'COPY recipe output → parquet';
  if (/^DESCRIBE /i.test(text)) return 'DESCRIBE parquet';
  if (/^SELECT .* LIMIT \d+$/i.test(text)) return 'SELECT preview rows';
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
