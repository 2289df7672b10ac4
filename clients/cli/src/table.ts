/**
 * The shape of the command table: groups of commands, each with its arguments, options, help
 * examples and action. main.ts turns it into commander commands; completion.ts into shell
 * completion; the README's examples are taken from the same words.
 */
import type { Action } from './spec';

export interface OptionSpec {
  /** commander's flags, e.g. `--name <name>`. */
  readonly flags: string;
  readonly description: string;
  readonly repeatable?: boolean;
}

export interface CommandSpec {
  /** The command and its arguments, e.g. `get <connection-id>`. */
  readonly name: string;
  readonly description: string;
  readonly options?: readonly OptionSpec[];
  readonly examples?: readonly string[];
  /** The command starts a job: it takes --wait/--no-wait and --interval. */
  readonly job?: boolean;
  /** The command lists: it takes --filter, --sort and --limit. */
  readonly list?: boolean;
  readonly run: Action;
}

export interface GroupSpec {
  readonly name: string;
  readonly description: string;
  readonly commands: readonly CommandSpec[];
}
