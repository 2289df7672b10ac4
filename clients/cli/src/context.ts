/**
 * What a running command needs, loaded only when one runs (not for --help): the client made
 * from the resolved profile, secrets read without the command line, printing, and waiting for
 * a job with a progress bar on a terminal and plain lines otherwise.
 */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createDpsClient, type DpsClient } from '../../typescript/src/client';
import { waitForJob, type JobProgressEvent, type JobRef } from '../../typescript/src/jobs';
import { resolve } from './config';
import { followCommand } from './commands-misc';
import { UsageError, type ActionResult, type Context } from './spec';

export interface GlobalOptions {
  readonly profile?: string;
  readonly baseUrl?: string;
  readonly json?: boolean;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A line typed at the terminal without echoing it. */
async function prompt(label: string): Promise<string> {
  const output = process.stderr;
  const lines = createInterface({ input: process.stdin, output, terminal: true });
  const write = output.write.bind(output);
  output.write(`${label}: `);
  // Echo nothing of what is typed: readline writes through _writeToOutput.
  (lines as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = () => undefined;
  try {
    return await new Promise<string>((done) => lines.question('', done));
  } finally {
    lines.close();
    write('\n');
  }
}

export async function readSecret(label: string, envName: string, file: unknown): Promise<string> {
  const fromEnv = process.env[envName];
  if (fromEnv) return fromEnv;
  if (typeof file === 'string' && file !== '') return (await readFile(file, 'utf8')).trim();
  if (!process.stdin.isTTY) {
    const text = (await readStdin()).trim();
    if (text !== '') return text;
  } else return prompt(label);
  throw new UsageError(`no ${label}: set ${envName}, give a file, or pipe it on stdin`);
}

export async function makeContext(
  global: GlobalOptions,
): Promise<Context & { fetchRaw(request: Request): Promise<Response> }> {
  const resolved = await resolve(global);
  const client: DpsClient = createDpsClient({
    baseUrl: resolved.baseUrl,
    credentials: { clientId: resolved.clientId, clientSecret: resolved.clientSecret },
  });
  const readText = (path: string) => (path === '-' ? readStdin() : readFile(path, 'utf8'));
  return {
    client,
    readText,
    readJson: async (path) => {
      const text = await readText(path);
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw new UsageError(`${path} is not JSON: ${(error as Error).message}`);
      }
    },
    secret: readSecret,
    fetchRaw: client.fetch,
  };
}

const PREFERRED_COLUMNS = [
  'id',
  'client_id',
  'name',
  'type',
  'description',
  'version_number',
  'status',
  'created_date',
];

/** Prints an answer: JSON with --json, else a table for a list and indented JSON for the rest. */
export function print(body: unknown, json: boolean): void {
  if (json || typeof body !== 'object' || body === null) {
    process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    return;
  }
  const items = (body as { items?: unknown }).items;
  if (Array.isArray(items) && items.every((item) => typeof item === 'object' && item !== null)) {
    const rows = items as Record<string, unknown>[];
    const columns = PREFERRED_COLUMNS.filter((column) => rows.some((row) => column in row));
    const cells = rows.map((row) => columns.map((column) => String(row[column] ?? '')));
    const widths = columns.map((column, index) => Math.max(column.length, ...cells.map((row) => row[index]!.length)));
    const line = (values: readonly string[]) => values.map((value, index) => value.padEnd(widths[index]!)).join('  ');
    process.stdout.write(`${[line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n')}\n`);
    const total = (body as { total?: number }).total;
    if (typeof total === 'number' && total > rows.length)
      process.stdout.write(`(${rows.length} of ${total}; --all for every one)\n`);
    return;
  }
  process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
}

function bytesText(bytes: number | undefined): string {
  if (bytes === undefined) return '-';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

function describe(event: JobProgressEvent): string {
  const rows =
    event.rows === undefined ? '' : ` rows ${event.rows}${event.rowsTotal === undefined ? '' : `/${event.rowsTotal}`}`;
  const bytes = event.bytes === undefined ? '' : ` ${bytesText(event.bytes)}`;
  const percent = event.percent === undefined ? '' : ` ${Math.round(event.percent)}%`;
  return `${event.status}${event.stage ? ` ${event.stage}` : ''}${percent}${rows}${bytes}`;
}

/** Where the job stands when the wait stopped, and how to follow it. */
export class WaitStopped extends Error {
  override readonly name = 'WaitStopped';
  constructor(readonly job: JobRef) {
    super(`Stopped waiting; the job goes on. Follow it with: ${followCommand(job)}`);
  }
}

/** Waits for the job an action started, showing its progress; Ctrl-C stops the wait, not the job. */
export async function waitWithProgress(
  client: DpsClient,
  result: ActionResult & { job: JobRef },
  options: { json: boolean; intervalMs: number },
): Promise<unknown> {
  const label = followCommand(result.job).replace(/^dps wait /, '');
  const abort = new AbortController();
  const onSigint = () => abort.abort(new WaitStopped(result.job));
  process.once('SIGINT', onSigint);
  let onProgress: (event: JobProgressEvent) => void;
  let stop: () => void = () => undefined;
  if (process.stderr.isTTY && !options.json) {
    const { SingleBar, Presets } = (await import('cli-progress')).default;
    const bar = new SingleBar(
      { format: `${label} {stage} [{bar}] {percentage}% | {rows} | {bytes}`, stream: process.stderr, hideCursor: true },
      Presets.shades_classic,
    );
    bar.start(100, 0, { stage: 'QUEUED', rows: 'rows -', bytes: '-' });
    onProgress = (event) =>
      bar.update(Math.round(event.percent ?? 0), {
        stage: event.stage ?? event.status,
        rows: `rows ${event.rows ?? '-'}${event.rowsTotal === undefined ? '' : `/${event.rowsTotal}`}`,
        bytes: bytesText(event.bytes),
      });
    stop = () => bar.stop();
  } else {
    onProgress = (event) => process.stderr.write(`${label}: ${describe(event)}\n`);
  }
  try {
    const outcome = await waitForJob(client, result.job, {
      onProgress,
      signal: abort.signal,
      intervalMs: options.intervalMs,
    });
    return outcome.resource;
  } finally {
    stop();
    process.off('SIGINT', onSigint);
  }
}
