import { quotedString } from '@duckdb/node-api';

/** Characters DuckDB's file readers expand as a glob pattern; there is no way to escape them. */
const GLOB_CHARACTERS = /[*?[{]/;

/**
 * A local file path as a SQL string literal for DuckDB's readers and COPY. Workers choose
 * local names themselves, so a glob character is a programming error, not a user's: it
 * would silently read other files.
 */
export function fileLiteral(path: string): string {
  if (GLOB_CHARACTERS.test(path)) throw new Error('A local path must not contain glob characters (* ? [ {)');
  return quotedString(path);
}
