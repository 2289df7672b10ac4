/**
 * `npm start`'s command line (infra/local/main.ts): its options read and checked before
 * anything of the stack is loaded, so that a mistake is told in a line at once.
 */
import { createServer, isIPv6 } from 'node:net';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { FEATURE_NAMES, isFeatureName, type FeatureName } from '../../shared/features/catalogue';

/** Every port the stack listens on: its option, its environment setting and its default. */
const PORTS = {
  api: { option: 'port', variable: 'PORT', fallback: 3000, serves: 'the HTTP API' },
  s3: { option: 's3-port', variable: 'S3_PORT', fallback: 4569, serves: 'the local S3' },
  dynamodb: { option: 'dynamodb-port', variable: 'DYNAMODB_PORT', fallback: 4570, serves: 'the local DynamoDB' },
  kms: { option: 'kms-port', variable: 'KMS_PORT', fallback: 4571, serves: 'the local KMS' },
  stepFunctions: {
    option: 'stepfunctions-port',
    variable: 'STEPFUNCTIONS_PORT',
    fallback: 4572,
    serves: 'the local Step Functions',
  },
  deltaSharing: {
    option: 'delta-sharing-port',
    variable: 'DELTA_SHARING_PORT',
    fallback: 4573,
    serves: 'the demo Delta Sharing server',
  },
  pricing: { option: 'pricing-port', variable: 'PRICING_PORT', fallback: 4574, serves: 'the demo pricing DIM' },
  pricingToken: {
    option: 'pricing-token-port',
    variable: 'PRICING_TOKEN_PORT',
    fallback: 4575,
    serves: "the demo pricing DIM's token server",
  },
} as const;
type PortName = keyof typeof PORTS;

/** A mistake the user can fix from the message alone: printed as one line, no stack trace. */
export class StartError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export interface FeatureSetting {
  readonly name: FeatureName;
  readonly state: 'on' | 'off';
}

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--sweep-every` as milliseconds: a positive number and a unit. */
function durationMs(text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : 0;
  // setInterval takes at most 2^31-1 ms (24.8 days).
  if (ms <= 0 || ms > 2 ** 31 - 1)
    throw new StartError(`--sweep-every takes a duration such as 30s, 10m, 6h or 1d (at most 24d), not "${text}"`, 2);
  return ms;
}

/** `--feature name=on|off` values, each checked against the toggle catalogue. */
function featureSettings(values: readonly string[]): FeatureSetting[] {
  return values.map((value) => {
    const match = /^([^=]+)=(on|off)$/.exec(value);
    if (match === null) throw new StartError(`--feature takes <toggle>=on or <toggle>=off, not "${value}"`, 2);
    const name = match[1]!;
    if (!isFeatureName(name))
      throw new StartError(`--feature: no toggle "${name}"; toggles are ${FEATURE_NAMES.join(', ')}`, 2);
    return { name, state: match[2] as 'on' | 'off' };
  });
}

/**
 * `--allow-outbound host:port` values: a name, an IPv4 address or a bracketed IPv6 address, and
 * a port. The outbound guard compares the host as written, so `localhost:9000` does not cover
 * `127.0.0.1:9000` (shared/connectors/outbound-guard.ts).
 */
function outboundEntries(values: readonly string[]): string[] {
  return values.map((value) => {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/.exec(value);
    const port = Number(match?.[2] ?? 0);
    if (match === null || (match[1] !== undefined && !isIPv6(match[1])) || port < 1 || port > 65_535)
      throw new StartError(
        `--allow-outbound takes host:port with a port from 1 to 65535, such as 127.0.0.1:9000 or [::1]:9000, not "${value}"`,
        2,
      );
    return value;
  });
}

/** The assistant's model as the options name it: a chat-completions endpoint, a Bedrock endpoint, or none. */
export type AssistantModelOption =
  | { readonly kind: 'chat'; readonly endpoint: string; readonly model: string }
  | { readonly kind: 'bedrock'; readonly endpoint: string; readonly model: string }
  | undefined;

const DEFAULT_CHAT_MODEL = 'llama3.1';
const DEFAULT_DATA_DIR = '.local';
const DEFAULT_SWEEP_EVERY = '1d';
const DEFAULT_BEDROCK_MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';

function assistantModelOption(values: Readonly<Record<string, string | undefined>>): AssistantModelOption {
  const text = (name: string) => values[name];
  const chat = text('assistant-endpoint');
  const bedrock = text('bedrock-endpoint');
  if (chat !== undefined && bedrock !== undefined)
    throw new StartError('give --assistant-endpoint or --bedrock-endpoint, not both', 2);
  for (const [option, url] of [
    ['--assistant-endpoint', chat],
    ['--bedrock-endpoint', bedrock],
  ] as const)
    if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url))
      throw new StartError(`${option} takes an http(s) URL, not "${url}"`, 2);
  if (chat !== undefined) return { kind: 'chat', endpoint: chat, model: text('assistant-model') ?? DEFAULT_CHAT_MODEL };
  if (bedrock !== undefined)
    return { kind: 'bedrock', endpoint: bedrock, model: text('bedrock-model') ?? DEFAULT_BEDROCK_MODEL };
  return undefined;
}

/** What `npm start` was asked for: its options, else their environment settings, else the defaults. */
export interface StartOptions {
  readonly dataDir: string;
  readonly ports: Record<PortName, number>;
  readonly features: readonly FeatureSetting[];
  readonly sweepEveryMs: number;
  readonly assistant: AssistantModelOption;
  /** `host:port` entries the connectors may reach although loopback or private (OUTBOUND_ALLOW_LIST). */
  readonly allowOutbound: readonly string[];
  /** OPENLINEAGE_URL: where the jobs' OpenLineage run events go (docs/lineage.md); absent: none. */
  readonly openLineageUrl?: string;
  /** FARGATE_ABOVE_BYTES for the jobs: from this input size their worker runs as a local ECS task; the default when absent. */
  readonly fargateAboveBytes?: number;
  /** Whether the local EventBridge Scheduler fires schedules (infra/local/scheduler.ts); on unless --no-scheduler. */
  readonly scheduler: boolean;
}

/** One option of `npm start`: how it is parsed, and its line in `--help`. */
interface OptionSpec {
  /** What its value looks like, as --help shows it; a flag has none. */
  readonly value?: string;
  /** Whether it may be given more than once. */
  readonly multiple?: boolean;
  /** A one-letter alias. */
  readonly short?: string;
  /** The environment setting read when the option is not given. */
  readonly variable?: string;
  /** Its value when neither the option nor its setting is given. */
  readonly fallback?: string;
  /** One line: what it does. */
  readonly describe: string;
}

/**
 * Every option `npm start` takes. The parser and `--help` both read this table, so the help
 * cannot name an option the parser refuses, nor leave out one it accepts.
 */
const START_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  ...Object.fromEntries(
    Object.values(PORTS).map(({ option, variable, fallback, serves }) => [
      option,
      { value: '<port>', variable, fallback: String(fallback), describe: `the port of ${serves}; 0 takes a free one` },
    ]),
  ),
  'data-dir': {
    value: '<folder>',
    variable: 'DATA_DIR',
    fallback: DEFAULT_DATA_DIR,
    describe: 'where the stack keeps its state across restarts',
  },
  feature: {
    value: '<toggle>=on|off',
    multiple: true,
    describe: "sets a feature toggle's default before the API serves, kept in the data folder",
  },
  'sweep-every': {
    value: '<duration>',
    variable: 'SWEEP_EVERY',
    fallback: DEFAULT_SWEEP_EVERY,
    describe: 'how often the retention sweep runs: a number and ms, s, m, h or d',
  },
  scheduler: {
    describe:
      "the local EventBridge Scheduler fires schedules on the twin's clock, as the deployed one does (on by default; --no-scheduler turns it off)",
  },
  'no-scheduler': {
    describe: 'the local EventBridge Scheduler answers the service but fires no schedule',
  },
  'allow-outbound': {
    value: '<host:port>',
    multiple: true,
    describe:
      'lets connections reach a server on this machine or network, such as a MinIO at 127.0.0.1:9000, past the outbound guard',
  },
  'fargate-above': {
    value: '<bytes>',
    variable: 'FARGATE_ABOVE_BYTES',
    describe:
      'jobs whose inputs weigh this many bytes or more run their worker as a Fargate task, a process of its own (0: every job; default 6 GiB)',
  },
  'openlineage-url': {
    value: '<url>',
    variable: 'OPENLINEAGE_URL',
    describe:
      "where the jobs' OpenLineage run events go, such as Marquez's http://127.0.0.1:5000/api/v1/lineage (needs the openlineage toggle on)",
  },
  'assistant-endpoint': {
    value: '<url>',
    describe: "the assistant's model: an OpenAI-compatible chat-completions API, such as http://127.0.0.1:11434/v1",
  },
  'assistant-model': { value: '<name>', fallback: DEFAULT_CHAT_MODEL, describe: 'the model at --assistant-endpoint' },
  'bedrock-endpoint': {
    value: '<url>',
    describe: "the assistant's model: a Bedrock Converse endpoint, called with the AWS credentials of the usual chain",
  },
  'bedrock-model': {
    value: '<model id>',
    fallback: DEFAULT_BEDROCK_MODEL,
    describe: 'the model at --bedrock-endpoint',
  },
  help: { short: 'h', describe: 'prints these options and exits' },
};

/** What parseArgs is given: START_OPTIONS, each a string (repeatable or not) or a flag. */
export const PARSER_OPTIONS: NonNullable<ParseArgsConfig['options']> = Object.fromEntries(
  Object.entries(START_OPTIONS).map(([name, { value, multiple = false, short }]) => [
    name,
    { type: value === undefined ? 'boolean' : 'string', multiple, ...(short === undefined ? {} : { short }) },
  ]),
);

/** `npm start -- --help`: every option of START_OPTIONS, one line each. */
export function startHelp(): string {
  const rows = Object.entries(START_OPTIONS).map(([name, { value, multiple, short, variable, fallback, describe }]) => {
    const usage = `${short === undefined ? '    ' : `-${short}, `}--${name}${value === undefined ? '' : ` ${value}`}`;
    const notes = [fallback && `default ${fallback}`, variable && `env ${variable}`, multiple && 'repeatable']
      .filter(Boolean)
      .join('; ');
    return [usage, `${describe}${notes === '' ? '' : ` (${notes})`}`] as const;
  });
  const width = Math.max(...rows.map(([usage]) => usage.length)) + 2;
  return [
    'Usage: npm start -- [options]',
    '',
    'Runs the whole service on this machine (README, "The local stack"). An option given wins over its environment setting.',
    '',
    ...rows.map(([usage, text]) => `  ${usage.padEnd(width)}${text}`),
    '',
  ].join('\n');
}

/**
 * The command line (`args`) and environment read as StartOptions, or 'help' when --help is
 * given (nothing else is checked then); a StartError (exit code 2) names what is wrong.
 */
export function startOptions(
  args: readonly string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): StartOptions | 'help' {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({ args: [...args], options: PARSER_OPTIONS, strict: true }));
  } catch (error) {
    throw new StartError(`${(error as Error).message}; npm start -- --help lists the options`, 2);
  }
  if (values.help === true) return 'help';
  const port = (name: PortName): number => {
    const { option, variable, fallback } = PORTS[name];
    const fromOption = values[option] as string | undefined;
    const raw = fromOption ?? env[variable];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value > 65_535) {
      throw new StartError(
        `${fromOption === undefined ? variable : `--${option}`} must be a port number from 0 to 65535, not "${raw}"`,
        2,
      );
    }
    return value;
  };
  const ports = Object.fromEntries(Object.keys(PORTS).map((name) => [name, port(name as PortName)])) as Record<
    PortName,
    number
  >;
  return {
    dataDir: (values['data-dir'] as string | undefined) ?? env.DATA_DIR ?? DEFAULT_DATA_DIR,
    ports,
    features: featureSettings((values.feature as string[] | undefined) ?? []),
    sweepEveryMs: durationMs((values['sweep-every'] as string | undefined) ?? env.SWEEP_EVERY ?? DEFAULT_SWEEP_EVERY),
    assistant: assistantModelOption(values as Record<string, string | undefined>),
    allowOutbound: outboundEntries((values['allow-outbound'] as string[] | undefined) ?? []),
    scheduler: schedulerOn(values.scheduler === true, values['no-scheduler'] === true),
    ...fargateAbove((values['fargate-above'] as string | undefined) ?? env.FARGATE_ABOVE_BYTES),
    ...openLineageUrl((values['openlineage-url'] as string | undefined) ?? env.OPENLINEAGE_URL),
  };
}

/** `--scheduler` (the default) or `--no-scheduler`; both at once is a mistake. */
function schedulerOn(on: boolean, off: boolean): boolean {
  if (on && off) throw new StartError('give --scheduler or --no-scheduler, not both', 2);
  return !off;
}

/** `--fargate-above` as a whole number of bytes, 0 or more; nothing when not given. */
function fargateAbove(text: string | undefined): { fargateAboveBytes?: number } {
  if (text === undefined || text === '') return {};
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new StartError(`--fargate-above takes a whole number of bytes, 0 for every job, not "${text}"`, 2);
  return { fargateAboveBytes: Number(text) };
}

/** `--openlineage-url` as an http(s) URL without credentials; nothing when not given. */
function openLineageUrl(text: string | undefined): { openLineageUrl?: string } {
  if (text === undefined || text === '') return {};
  if (!/^https?:\/\/[^\s@]+$/.test(text))
    throw new StartError(`--openlineage-url takes an http(s) URL without credentials, not "${text}"`, 2);
  return { openLineageUrl: text };
}

/** A listen error for a taken port, as the one line that says which port and how to change it. */
export function portInUse(error: unknown, ports: Record<PortName, number>): StartError | undefined {
  const { code, port } = error as { code?: unknown; port?: unknown };
  if (code !== 'EADDRINUSE') return undefined;
  const name = (Object.keys(PORTS) as PortName[]).find((candidate) => ports[candidate] === port);
  if (name === undefined) return new StartError(`port ${String(port)} is already in use; stop what holds it`, 1);
  const { option, variable, serves } = PORTS[name];
  return new StartError(
    `port ${ports[name]} (${serves}) is already in use: stop what holds it, or start on another with npm start -- --${option} <port> (or ${variable}=<port>)`,
    1,
  );
}

/**
 * Rejects with the listen error when `port` is taken. Checked before anything starts, because
 * s3rver does not report a taken port: the error escapes it and ends the process with a stack
 * trace. The other stand-ins report theirs, which covers a port taken in between.
 */
export async function assertFree(port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}
