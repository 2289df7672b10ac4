/**
 * The stack `npm start` runs (infra/local/main.ts has read its options): the twin, the demo
 * servers and data, the toggles given, the banner, and a clean stop.
 */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { useBedrockCredentials } from '../../shared/assistant/bedrock-model';
import { isAppError } from '../../shared/errors/app-error';
import { setToggleDefault, toggleViews } from '../../shared/features/store';
import type { FeatureToggleResponse } from '../../shared/model/feature-toggle';
import { DEMO_BUCKET, DEMO_OBJECTS, seedDemoBucket } from './demo';
import { DEMO_SHARED_TABLE_NAMES, DEMO_SHARING_TOKEN, startDeltaSharingDemo } from './delta-sharing-demo';
import { removeEndpointsFile, writeEndpointsFile, type LocalEndpoints } from './endpoints-file';
import type { PricingDimFake } from './fakes/pricing-dim';
import { DEMO_PRICING_CLIENT, startPricingDemo } from './pricing-demo';
import { LOCAL_S3_CREDENTIALS } from './s3';
import { portInUse, StartError, type AssistantModelOption, type StartOptions } from './start-options';
import { DATA_BUCKET, startTwin, TABLE_NAME, type Twin } from './twin';

const REGION = 'us-east-1';

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

function outboundLine(allowOutbound: readonly string[]): string {
  return allowOutbound.length === 0
    ? '  Outbound        the demo servers only on this machine   (npm start -- --allow-outbound <host:port> for another)'
    : `  Outbound        the demo servers and ${allowOutbound.join(', ')}   (--allow-outbound)`;
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
  allowOutbound: readonly string[],
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
    outboundLine(allowOutbound),
    '',
    `  AWS stand-ins (region ${endpoints.region}, access key ${endpoints.accessKeyId}, secret ${endpoints.secretAccessKey}):`,
    `    S3              ${endpoints.s3}   (bucket ${DEMO_BUCKET}: ${demo}; data bucket ${endpoints.dataBucket})`,
    `    DynamoDB        ${endpoints.dynamodb}   (table ${endpoints.tableName})`,
    `    KMS             ${endpoints.kms}`,
    `    Step Functions  ${endpoints.stepFunctions}`,
    `    Scheduler       ${endpoints.scheduler}   (EventBridge Scheduler: fires schedules on the twin's clock unless --no-scheduler; schedules need the schedules toggle on)`,
    `  Delta Sharing   ${endpoints.deltaSharing}   (profile endpoint; bearer token ${DEMO_SHARING_TOKEN}; tables ${DEMO_SHARED_TABLE_NAMES.join(', ')}; needs the delta_sharing toggle on)`,
    `  Pricing DIM     ${endpoints.pricingDim}   (token URL ${endpoints.pricingTokenUrl}; client id ${DEMO_PRICING_CLIENT.clientId}; secret ${DEMO_PRICING_CLIENT.clientSecret}; scope ${DEMO_PRICING_CLIENT.scope}; needs the transfers toggle on)`,
    `    e.g. AWS_ACCESS_KEY_ID=${endpoints.accessKeyId} AWS_SECRET_ACCESS_KEY=${endpoints.secretAccessKey} aws --region ${endpoints.region} --endpoint-url ${endpoints.dynamodb} dynamodb scan --table-name ${endpoints.tableName}`,
    '',
    `  Metrics         ${twin.metricsFile}   (CloudWatch EMF lines, one per request and job step, as deployed; docs/operations.md)`,
    `    e.g. tail -f ${twin.metricsFile} | jq -c '{operation, job, Requests, Latency, Problems, JobDuration, code, tenant_id}'`,
    '',
    `  Jobs resumed    ${twin.resumedJobs}${twin.resumedJobs > 0 ? ' (interrupted by the previous stop; each runs again from its start)' : ''}`,
    `  State is kept in ${dataDir}/; these endpoints are in ${endpointsFile} while the stack runs. Ctrl-C stops.`,
    '',
    '',
  ].join('\n');
}

/** Starts the stack `options` describe, prints its banner, and stops it on SIGINT or SIGTERM. */
export async function runStack(options: StartOptions): Promise<void> {
  const {
    dataDir,
    ports,
    features,
    sweepEveryMs,
    assistant,
    allowOutbound,
    fargateAboveBytes,
    scheduler,
    openLineageUrl,
  } = options;
  const assistantSettings = await assistantEnvironment(assistant);
  let twin: Twin;
  let sharing: Awaited<ReturnType<typeof startDeltaSharingDemo>>;
  let pricing: PricingDimFake;
  try {
    sharing = await startDeltaSharingDemo(ports.deltaSharing);
    pricing = await startPricingDemo(ports.pricing, ports.pricingToken);
    twin = await startTwin({
      dataDir,
      port: ports.api,
      s3Port: ports.s3,
      servicePorts: { dynamodb: ports.dynamodb, kms: ports.kms, stepFunctions: ports.stepFunctions },
      buckets: [DEMO_BUCKET],
      sweepEveryMs,
      fargateAboveBytes,
      openLineageUrl,
      // Off: the Scheduler stand-in still answers the service's calls, but fires nothing.
      schedulerCheckEveryMs: scheduler ? 1000 : false,
      // The connectors reach the demo servers through the outbound guard, which allows only these
      // on 127.0.0.1, and the user's own servers that --allow-outbound names.
      allowOutbound: [
        `127.0.0.1:${sharing.port}`,
        ...[pricing.host, pricing.tokenUrl].map((url) => new URL(url).host),
        ...allowOutbound,
      ],
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
    banner(
      twin,
      endpoints,
      dataDir,
      endpointsFile,
      await toggleViews(),
      `${sweepEveryMs / 1000} s`,
      assistant,
      allowOutbound,
    ),
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
