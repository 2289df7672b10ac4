import type * as Snowflake from 'snowflake-sdk';

/**
 * snowflake-sdk, loaded on first use (a dynamic import: route handlers that never reach a
 * warehouse do not load it at cold start) and set up once per process:
 * - SNOWFLAKE_DISABLE_PLATFORM_DETECTION: the driver otherwise probes the AWS, Azure and GCP
 *   instance-metadata services (169.254.169.254, metadata.google.internal) when its module
 *   loads, outside the outbound guard;
 * - SNOWFLAKE_DISABLE_MINICORE: no native add-on is loaded (bundles do not carry it, and the
 *   driver would report the miss to Snowflake on every login);
 * - SF_TELEMETRY_DISABLE_CONNECTION_SHAPE: no fire-and-forget telemetry after each login; the
 *   driver's other in-band telemetry goes to the account's own host (/telemetry/send), never
 *   anywhere else;
 * - its logger is off and replaced by a silent one, so it writes neither to the console nor a
 *   snowflake.log file; failures reach our logs as the AppErrors they become;
 * - proxies from the environment are ignored: a proxy would resolve destinations itself,
 *   past the outbound guard.
 */
export type SnowflakeModule = typeof Snowflake;

const SILENT: Snowflake.SnowflakeLogger = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  trace: () => undefined,
};

const DRIVER_ENVIRONMENT = {
  SNOWFLAKE_DISABLE_PLATFORM_DETECTION: 'true',
  SNOWFLAKE_DISABLE_MINICORE: 'true',
  SF_TELEMETRY_DISABLE_CONNECTION_SHAPE: 'true',
};

let loading: Promise<SnowflakeModule> | undefined;

export function loadSnowflake(): Promise<SnowflakeModule> {
  // At every use, not only the first: the driver reads some of them at each login, and the
  // local twin puts back its process's environment when it closes.
  Object.assign(process.env, DRIVER_ENVIRONMENT);
  loading ??= (async () => {
    const imported = (await import('snowflake-sdk')) as SnowflakeModule & { default?: SnowflakeModule };
    // A CommonJS module: under ESM its exports arrive as the default export.
    const snowflake = imported.default ?? imported;
    snowflake.configure({ logLevel: 'OFF', customLogger: SILENT, useEnvProxy: false });
    return snowflake;
  })();
  return loading;
}
