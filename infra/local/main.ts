/**
 * `npm start`: the whole service on this machine, no AWS account and no network. State is
 * kept under .local/ (git-ignored), so connections and credentials survive a restart; the
 * endpoints of the running stack are in .local/endpoints.json while it runs.
 *
 *   npm start -- [--port 3000] [--s3-port 4569] [--dynamodb-port 4570] [--kms-port 4571]
 *                [--stepfunctions-port 4572] [--delta-sharing-port 4573] [--pricing-port 4574]
 *                [--pricing-token-port 4575] [--data-dir .local]
 *                [--feature <toggle>=on|off ...] [--sweep-every 1d]
 *                [--assistant-endpoint <url> [--assistant-model <name>]]
 *                [--bedrock-endpoint <url> [--bedrock-model <model id>]]
 *
 * `--feature` sets a feature toggle's default before the API serves, as PUT
 * /admin/feature-toggles/{name}/default does (so it is kept in the data folder); it may be
 * given once per toggle. The banner says which toggles are on. `--sweep-every` (SWEEP_EVERY)
 * is how often the retention sweep runs, as the deployed schedule does (docs/retention.md): a
 * number and a unit, ms, s, m, h or d; once a day by default; `npm run sweep` runs one now.
 * Each option has an environment setting (PORT, S3_PORT, DYNAMODB_PORT, KMS_PORT,
 * STEPFUNCTIONS_PORT, DELTA_SHARING_PORT, PRICING_PORT, PRICING_TOKEN_PORT, DATA_DIR); an option
 * given on the command line wins. The demo servers (Delta Sharing, the pricing DIM and its token
 * server) listen on 127.0.0.1 only.
 *
 * The AI assistant (docs/assistant.md) needs a model, which the project does not ship:
 * `--assistant-endpoint` names an OpenAI-compatible chat-completions API (a local Ollama:
 * http://127.0.0.1:11434/v1) and `--assistant-model` its model (llama3.1); `--bedrock-endpoint`
 * a Converse-compatible endpoint (https://bedrock-runtime.<region>.amazonaws.com) and
 * `--bedrock-model` the model id, called with the AWS credentials of the usual chain, resolved
 * at start, before the twin sets its stand-ins' keys. Without either, ai_assistant is unavailable. Port 0 takes a
 * free port. The ports are fixed by default so that a restart keeps every endpoint: stored
 * connections name the S3 endpoint, and AWS CLI profiles or scripts name the others.
 */
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { FEATURE_NAMES, isFeatureName, type FeatureName } from '../../shared/features/catalogue';
import { setToggleDefault, toggleViews } from '../../shared/features/store';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { useBedrockCredentials } from '../../shared/assistant/bedrock-model';
import { isAppError } from '../../shared/errors/app-error';
import type { FeatureToggleResponse } from '../../shared/model/feature-toggle';
import { DEMO_BUCKET, DEMO_OBJECTS, seedDemoBucket } from './demo';
import { DEMO_SHARED_TABLE_NAMES, DEMO_SHARING_TOKEN, startDeltaSharingDemo } from './delta-sharing-demo';
import type { PricingDimFake } from './fakes/pricing-dim';
import { DEMO_PRICING_CLIENT, startPricingDemo } from './pricing-demo';
import { removeEndpointsFile, writeEndpointsFile, type LocalEndpoints } from './endpoints-file';
import { LOCAL_S3_CREDENTIALS } from './s3';
import { DATA_BUCKET, startTwin, TABLE_NAME, type Twin } from './twin';

const REGION = 'us-east-1';

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
class StartError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

interface FeatureSetting {
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

/** The assistant's model as the options name it: a chat-completions endpoint, a Bedrock endpoint, or none. */
type AssistantModelOption =
  | { readonly kind: 'chat'; readonly endpoint: string; readonly model: string }
  | { readonly kind: 'bedrock'; readonly endpoint: string; readonly model: string }
  | undefined;

const DEFAULT_CHAT_MODEL = 'llama3.1';
const DEFAULT_BEDROCK_MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';

function assistantModelOption(values: Record<string, string | string[] | undefined>): AssistantModelOption {
  const text = (name: string) => values[name] as string | undefined;
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

/** The functions' environment for the assistant's model; Bedrock gets the caller's credentials, resolved now. */
async function assistantEnvironment(option: AssistantModelOption): Promise<Record<string, string>> {
  if (option === undefined) return {};
  if (option.kind === 'chat') return { ASSISTANT_CHAT_ENDPOINT: option.endpoint, ASSISTANT_CHAT_MODEL: option.model };
  const probe = new BedrockRuntimeClient({ region: process.env.AWS_REGION ?? REGION });
  try {
    const credentials = await probe.config.credentials();
    useBedrockCredentials(async () => credentials);
  } catch (error) {
    throw new StartError(`--bedrock-endpoint: no AWS credentials in the usual chain (${String(error)})`, 2);
  } finally {
    probe.destroy();
  }
  return { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: option.endpoint, ASSISTANT_BEDROCK_MODEL_ID: option.model };
}

function assistantLine(option: AssistantModelOption): string {
  if (option === undefined)
    return '  AI assistant    unavailable: no model (npm start -- --assistant-endpoint http://127.0.0.1:11434/v1, or --bedrock-endpoint <url>; docs/assistant.md)';
  return `  AI assistant    ${option.model} at ${option.endpoint}   (needs the ai_assistant toggle on)`;
}

function settings(): {
  readonly dataDir: string;
  readonly ports: Record<PortName, number>;
  readonly features: readonly FeatureSetting[];
  readonly sweepEveryMs: number;
  readonly assistant: AssistantModelOption;
} {
  let values: Record<string, string | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        ...Object.fromEntries(Object.values(PORTS).map(({ option }) => [option, { type: 'string' }] as const)),
        'data-dir': { type: 'string' },
        feature: { type: 'string', multiple: true },
        'sweep-every': { type: 'string' },
        'assistant-endpoint': { type: 'string' },
        'assistant-model': { type: 'string' },
        'bedrock-endpoint': { type: 'string' },
        'bedrock-model': { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    throw new StartError(
      `${(error as Error).message}; options are ${Object.values(PORTS)
        .map(({ option }) => `--${option}`)
        .join(
          ', ',
        )}, --data-dir, --feature, --sweep-every, --assistant-endpoint, --assistant-model, --bedrock-endpoint, --bedrock-model`,
      2,
    );
  }
  const port = (name: PortName): number => {
    const { option, variable, fallback } = PORTS[name];
    const fromOption = values[option] as string | undefined;
    const raw = fromOption ?? process.env[variable];
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
    dataDir: (values['data-dir'] as string | undefined) ?? process.env.DATA_DIR ?? '.local',
    ports,
    features: featureSettings((values.feature as string[] | undefined) ?? []),
    sweepEveryMs: durationMs((values['sweep-every'] as string | undefined) ?? process.env.SWEEP_EVERY ?? '1d'),
    assistant: assistantModelOption(values),
  };
}

/** A listen error for a taken port, as the one line that says which port and how to change it. */
function portInUse(error: unknown, ports: Record<PortName, number>): StartError | undefined {
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
async function assertFree(port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

function endpointsOf(twin: Twin, deltaSharing: string, pricing: PricingDimFake): LocalEndpoints {
  return {
    pid: process.pid,
    api: twin.apiUrl,
    apiReference: `${twin.apiUrl}/docs`,
    openApi: `${twin.apiUrl}/openapi.json`,
    ...twin.endpoints,
    deltaSharing,
    pricingDim: pricing.host,
    pricingTokenUrl: pricing.tokenUrl,
    region: REGION,
    accessKeyId: LOCAL_S3_CREDENTIALS.accessKeyId,
    secretAccessKey: LOCAL_S3_CREDENTIALS.secretAccessKey,
    tableName: TABLE_NAME,
    dataBucket: DATA_BUCKET,
  };
}

/** Toggles by their default, as the banner lists them; tenant overrides are counted. */
function toggleLines(toggles: readonly FeatureToggleResponse[]): string[] {
  const describe = (toggle: FeatureToggleResponse) => {
    const overrides = toggle.overrides.length > 0 ? ` (${toggle.overrides.length} tenant override(s))` : '';
    const share = toggle.default.strategy === 'percentage' ? ` ${toggle.default.percentage}% of tenants` : '';
    return `${toggle.name}${share}${overrides}`;
  };
  const on = toggles.filter((toggle) => toggle.default.strategy !== 'off');
  const off = toggles.filter((toggle) => toggle.default.strategy === 'off');
  return [
    `  Features on     ${on.map(describe).join(', ') || 'none'}`,
    `  Features off    ${off.map(describe).join(', ') || 'none'}   (npm start -- --feature <name>=on|off)`,
  ];
}

function banner(
  twin: Twin,
  endpoints: LocalEndpoints,
  dataDir: string,
  endpointsFile: string,
  toggles: readonly FeatureToggleResponse[],
  sweepEvery: string,
  assistant: AssistantModelOption,
): string {
  const demo = Object.keys(DEMO_OBJECTS).join(', ');
  return [
    '',
    'Data Preparation Service — local twin',
    '',
    `  API             ${endpoints.api}`,
    `  API reference   ${endpoints.apiReference}   (OpenAPI document: ${endpoints.openApi})`,
    '',
    `  Admin of tenant "${twin.admin.tenant_id}" (the README's walkthrough takes these two lines as they are):`,
    `    CLIENT_ID=${twin.admin.client_id}`,
    `    CLIENT_SECRET=${twin.admin.client_secret}`,
    '  Another tenant: npm run create-client -- --local --tenant acme --roles admin',
    '',
    '  Platform admin (the admin plane, /admin/...; no tenant data):',
    `    PLATFORM_CLIENT_ID=${twin.platformAdmin.client_id}`,
    `    PLATFORM_CLIENT_SECRET=${twin.platformAdmin.client_secret}`,
    '',
    ...toggleLines(toggles),
    `  Retention sweep every ${sweepEvery}   (npm start -- --sweep-every <duration>; npm run sweep runs one now)`,
    assistantLine(assistant),
    '',
    `  AWS stand-ins (region ${endpoints.region}, access key ${endpoints.accessKeyId}, secret ${endpoints.secretAccessKey}):`,
    `    S3              ${endpoints.s3}   (bucket ${DEMO_BUCKET}: ${demo}; data bucket ${endpoints.dataBucket})`,
    `    DynamoDB        ${endpoints.dynamodb}   (table ${endpoints.tableName})`,
    `    KMS             ${endpoints.kms}`,
    `    Step Functions  ${endpoints.stepFunctions}`,
    `  Delta Sharing   ${endpoints.deltaSharing}   (profile endpoint; bearer token ${DEMO_SHARING_TOKEN}; tables ${DEMO_SHARED_TABLE_NAMES.join(', ')}; needs the delta_sharing toggle on)`,
    `  Pricing DIM     ${endpoints.pricingDim}   (token URL ${endpoints.pricingTokenUrl}; client id ${DEMO_PRICING_CLIENT.clientId}; secret ${DEMO_PRICING_CLIENT.clientSecret}; scope ${DEMO_PRICING_CLIENT.scope}; needs the transfers toggle on)`,
    `    e.g. AWS_ACCESS_KEY_ID=${endpoints.accessKeyId} AWS_SECRET_ACCESS_KEY=${endpoints.secretAccessKey} aws --region ${endpoints.region} --endpoint-url ${endpoints.dynamodb} dynamodb scan --table-name ${endpoints.tableName}`,
    '',
    `  Jobs resumed    ${twin.resumedJobs}${twin.resumedJobs > 0 ? ' (interrupted by the previous stop; each runs again from its start)' : ''}`,
    `  State is kept in ${dataDir}/; these endpoints are in ${endpointsFile} while the stack runs. Ctrl-C stops.`,
    '',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  const { dataDir, ports, features, sweepEveryMs, assistant } = settings();
  const assistantSettings = await assistantEnvironment(assistant);
  let twin: Twin;
  let sharing: Awaited<ReturnType<typeof startDeltaSharingDemo>>;
  let pricing: PricingDimFake;
  try {
    for (const port of Object.values(ports)) await assertFree(port);
    sharing = await startDeltaSharingDemo(ports.deltaSharing);
    pricing = await startPricingDemo(ports.pricing, ports.pricingToken);
    twin = await startTwin({
      dataDir,
      port: ports.api,
      s3Port: ports.s3,
      servicePorts: { dynamodb: ports.dynamodb, kms: ports.kms, stepFunctions: ports.stepFunctions },
      buckets: [DEMO_BUCKET],
      sweepEveryMs,
      // The connectors reach the demo servers through the outbound guard, which allows only these on 127.0.0.1.
      allowOutbound: [`127.0.0.1:${sharing.port}`, ...[pricing.host, pricing.tokenUrl].map((url) => new URL(url).host)],
      environment: assistantSettings,
    });
  } catch (error) {
    throw portInUse(error, ports) ?? error;
  }
  await seedDemoBucket(twin.endpoints.s3);
  for (const { name, state } of features) {
    await setToggleDefault(name, { strategy: state }).catch(async (error: unknown) => {
      await Promise.all([twin.close(), sharing.close(), pricing.stop()]);
      if (isAppError(error) && error.code === '10-1400')
        throw new StartError(`--feature ${name}=${state}: ${Object.values(error.extraDetails ?? {}).join('; ')}`, 2);
      throw error;
    });
  }
  const endpoints = endpointsOf(twin, sharing.endpoint, pricing);
  const endpointsFile = writeEndpointsFile(dataDir, endpoints);
  process.stdout.write(
    banner(twin, endpoints, dataDir, endpointsFile, await toggleViews(), `${sweepEveryMs / 1000} s`, assistant),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping…\n`);
    removeEndpointsFile(dataDir);
    Promise.all([twin.close(), sharing.close(), pricing.stop()]).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`failed to stop cleanly: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof StartError) {
    process.stderr.write(`npm start: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  process.stderr.write(`local twin failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
