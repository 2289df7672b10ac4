import { tmpdir } from 'node:os';

/**
 * Service configuration, read from the environment when first needed, so a function only
 * requires the variables it uses. CDK sets them on every function; the local twin sets them
 * in its own process. Nothing here knows which of the two is running.
 */
function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`environment variable ${name} is not set`);
  return value;
}

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`environment variable ${name} must be a positive integer`);
  return value;
}

function list(name: string): string[] {
  return (process.env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

export const API_BASE_PATH = '/api/data/v1';

export const config = {
  get tableName(): string {
    return required('TABLE_NAME');
  },
  /** KMS key for envelope encryption of connection secrets. */
  get dataKeyId(): string {
    return required('DATA_KEY_ID');
  },
  /** KMS asymmetric key (ECC_NIST_P256, SIGN_VERIFY) that signs access tokens. */
  get signingKeyId(): string {
    return required('SIGNING_KEY_ID');
  },
  get tokenIssuer(): string {
    return process.env.TOKEN_ISSUER ?? 'data-preparation-service';
  },
  get tokenAudience(): string {
    return process.env.TOKEN_AUDIENCE ?? 'data-preparation-api';
  },
  get tokenTtlSeconds(): number {
    return positiveInteger('TOKEN_TTL_SECONDS', 900);
  },
  /** Prefix of RFC 7807 `type` URIs; by default relative to the API, where GET /errors/{code} answers. */
  get errorBase(): string {
    return process.env.ERROR_BASE_URL ?? API_BASE_PATH;
  },
  /** Outbound destinations allowed although private or loopback: `host:port` or CIDR entries. */
  get outboundAllowList(): string[] {
    return list('OUTBOUND_ALLOW_LIST');
  },
  /** Upper bound of one call to an external system. */
  get connectorTimeoutMs(): number {
    return positiveInteger('CONNECTOR_TIMEOUT_MS', 10_000);
  },
  /** The service's data bucket: data versions, samples and analyses as Parquet and JSON. */
  get dataBucket(): string {
    return required('DATA_BUCKET');
  },
  /** ARN of a state machine of statemachines/, by its variable (IMPORT_STATE_MACHINE_ARN). */
  stateMachineArn(variable: string): string {
    return required(variable);
  },
  /** A running job that reports no progress for this long is stopped with 10-1047. */
  get jobInactivitySeconds(): number {
    return positiveInteger('JOB_INACTIVITY_SECONDS', 120);
  },
  /** Folder for a worker's scratch files (Lambda: /tmp). */
  get workDirectory(): string {
    return process.env.WORK_DIRECTORY ?? tmpdir();
  },
  /** Largest request body a JSON route accepts. */
  get maxBodyBytes(): number {
    return positiveInteger('MAX_BODY_BYTES', 256 * 1024);
  },
};
