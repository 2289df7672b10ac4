/**
 * What a command's action is given and returns. Kept free of runtime imports: the command table
 * is loaded for `dps --help`, which must start fast; the client and the progress bar are loaded
 * only when a command runs (context.ts).
 */
import type { DpsClient, JobRef } from '../../typescript/src/index';

/** A command's parsed options, as commander gives them. */
export type Options = Readonly<Record<string, unknown>>;

/** What an action hands back: the answer to print and, for a job, which job to wait for. */
export interface ActionResult {
  readonly body: unknown;
  readonly job?: JobRef;
}

/** The running command's means: the client, and reading files and secrets. */
export interface Context {
  readonly client: DpsClient;
  /** A file's text; `-` reads standard input. */
  readText(path: string): Promise<string>;
  /** A JSON file's value; `-` reads standard input. */
  readJson(path: string): Promise<unknown>;
  /**
   * A secret: from the environment variable `envName`, else the file `--<name>-file`, else
   * standard input when it is not a terminal, else a prompt that does not echo.
   */
  secret(label: string, envName: string, file: unknown): Promise<string>;
}

export type Action = (context: Context, args: readonly string[], options: Options) => Promise<ActionResult>;

/** A usage error: exit code 2, with this message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A positive integer argument or option, or a usage error naming it. */
export function id(value: unknown, what: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 0)
    throw new UsageError(`${what} must be a whole number, not ${String(value)}`);
  return number;
}

/** A text option, or a usage error when it is required and missing. */
export function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`${what} is required`);
  return value;
}

/** An optional text option. */
export function maybe(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A list query's filter and sort options, as the API takes them. */
export function listQuery(options: Options): { filter?: string; sort?: string } {
  const filter = maybe(options.filter);
  const sort = maybe(options.sort);
  return { ...(filter ? { filter } : {}), ...(sort ? { sort } : {}) };
}

/** Collects a repeatable option's values. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
