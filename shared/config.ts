/**
 * Service configuration, read from the environment when first needed, so a function only
 * requires the variables it uses. CDK sets them on every function; the local twin sets them
 * in its own process. Nothing here knows which of the two is running. This module is in every
 * function's bundle: it imports nothing but node:os.
 */
import { tmpdir } from 'node:os';

export const API_BASE_PATH = '/api/data/v1';

/** The scrypt costs (log2 N) a client secret's digest may be made with: the setting's range, and what a stored digest may name. */
export const SCRYPT_COSTS = { min: 10, max: 16 } as const;

/** A resource identifier the stack sets (TABLE_NAME, key ids, ARNs): it has no default. */
function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`environment variable ${name} is not set`);
  return value;
}

/** A setting a stage may override, with its default and how its variable is read. */
export interface Setting<T> {
  /** What it governs; README's Configuration table says the same in its own words. */
  readonly description: string;
  /** The value while the variable is unset. */
  readonly fallback: () => T;
  /** The value of a set variable; throws an Error whose message is the rule the text breaks. */
  readonly parse: (text: string) => T;
}

function text(fallback: string | (() => string), description: string): Setting<string> {
  return { description, fallback: typeof fallback === 'string' ? () => fallback : fallback, parse: (value) => value };
}

/** A whole number that `accepts` takes; `rule` says which, when one is refused. */
function integer(
  fallback: number,
  description: string,
  accepts: (value: number) => boolean,
  rule: string,
): Setting<number> {
  return {
    description,
    fallback: () => fallback,
    // An empty number means "not set": CDK and shells leave variables empty that way.
    parse: (value) => {
      if (value === '') return fallback;
      const number = Number(value);
      if (!Number.isSafeInteger(number) || !accepts(number)) throw new Error(rule);
      return number;
    },
  };
}

function positiveInteger(fallback: number, description: string): Setting<number> {
  return integer(fallback, description, (value) => value > 0, 'must be a positive integer');
}

/** A whole number from `min` to `max`, both included. */
function integerFrom(min: number, max: number, fallback: number, description: string): Setting<number> {
  const rule = `must be a whole number from ${min} to ${max}`;
  return integer(fallback, description, (value) => value >= min && value <= max, rule);
}

function list(description: string): Setting<string[]> {
  return {
    description,
    fallback: () => [],
    parse: (value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
  };
}

/**
 * The address of a service this deployment calls (not one a user names): an absolute http(s)
 * URL without credentials, query or fragment. The connector's outbound guard still checks it.
 */
function serviceRoot(fallback: string, description: string): Setting<string> {
  return {
    description,
    fallback: () => fallback,
    parse: (value) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        throw new Error('must be an absolute http(s) URL');
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('must be an absolute http(s) URL');
      if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
        throw new Error('must not carry credentials, a query or a fragment');
      return value;
    },
  };
}

/** An address that may be left empty: empty (the fallback) means "none"; anything else is a serviceRoot. */
function optionalServiceRoot(description: string): Setting<string> {
  const root = serviceRoot('', description);
  return { description, fallback: () => '', parse: (value) => (value === '' ? '' : root.parse(value)) };
}

/** An EventBridge schedule expression: rate(<n> <unit>) or cron(<six fields>). */
function scheduleExpression(fallback: string, description: string): Setting<string> {
  return {
    description,
    fallback: () => fallback,
    parse: (value) => {
      const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(value);
      if (rate ? Number(rate[1]) > 0 : /^cron\((\S+ ){5}\S+\)$/.test(value)) return value;
      throw new Error('must be an EventBridge schedule expression: rate(<n> <unit>) or cron(<six fields>)');
    },
  };
}

/** The levels of the Powertools logger, which reads POWERTOOLS_LOG_LEVEL itself, in any case. */
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

function logLevel(fallback: LogLevel, description: string): Setting<LogLevel> {
  const isLevel = (value: string): value is LogLevel => (LOG_LEVELS as readonly string[]).includes(value);
  return {
    description,
    fallback: () => fallback,
    parse: (value) => {
      const level = value.toUpperCase();
      if (!isLevel(level)) throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
      return level;
    },
  };
}

/**
 * The one list of settings a stage may override: config reads them from here, and
 * infra/stacks/settings.ts refuses any other name, and any value the setting's parser refuses,
 * when a stage sets one. Resource identifiers (TABLE_NAME, key ids, ARNs) are not settings:
 * the stack sets them from the resources it creates.
 */
export const SETTINGS = {
  TOKEN_ISSUER: text('data-preparation-service', 'the `iss` claim of access tokens'),
  TOKEN_AUDIENCE: text('data-preparation-api', 'the `aud` claim of access tokens'),
  TOKEN_TTL_SECONDS: positiveInteger(900, 'access token lifetime'),
  CLIENT_SECRET_SCRYPT_COST: integerFrom(
    SCRYPT_COSTS.min,
    SCRYPT_COSTS.max,
    14,
    "log2 of scrypt's N for the digests of new API client secrets; a stored digest keeps the cost it was made with",
  ),
  ERROR_BASE_URL: text(
    API_BASE_PATH,
    'prefix of RFC 7807 `type` URIs; by default relative to the API, where GET /errors/{code} answers',
  ),
  OUTBOUND_ALLOW_LIST: list('outbound destinations allowed although private or loopback: `host:port` or CIDR entries'),
  CONNECTOR_TIMEOUT_MS: positiveInteger(10_000, 'upper bound of one call to an external system'),
  MAX_BODY_BYTES: positiveInteger(256 * 1024, 'largest request body a JSON route accepts'),
  JOB_INACTIVITY_SECONDS: positiveInteger(
    120,
    'a running job that reports no progress for this long is stopped with 10-1047',
  ),
  RETENTION_SWEEP_SCHEDULE: scheduleExpression(
    'rate(1 day)',
    'when the retention sweep starts (EventBridge schedule expression)',
  ),
  WORK_DIRECTORY: text(tmpdir, "folder for a worker's scratch files (Lambda: /tmp)"),
  FARGATE_ABOVE_BYTES: integerFrom(
    0,
    Number.MAX_SAFE_INTEGER,
    6 * 1024 ** 3,
    'a job whose inputs weigh at least this many bytes runs its worker as a Fargate task instead of a Lambda (0: every job; docs/scale.md)',
  ),
  FARGATE_TASK_VCPUS: integerFrom(
    1,
    16,
    4,
    'vCPUs of an engine job’s Fargate task (1, 2, 4, 8 or 16; CDK checks it with the memory)',
  ),
  FARGATE_TASK_MEMORY_MB: integerFrom(2048, 122_880, 30_720, 'memory of an engine job’s Fargate task, in MiB'),
  FARGATE_TASK_STORAGE_GIB: integerFrom(21, 200, 200, 'ephemeral storage of an engine job’s Fargate task, in GiB'),
  FARGATE_TASK_OUTBOUND: list(
    'what an engine job’s Fargate task reaches besides the stage’s S3 and AWS services (its VPC has no NAT): `host:port`, `host` (any port), or `*` once the stage gives the tasks a route out; a job that reads or writes anything else runs on Lambda, forcing fargate is 10-1400 (shared/jobs/task-reach.ts)',
  ),
  ATHENA_WORKGROUP_PREFIX: text(
    '',
    'prefix of the per-tenant Athena workgroups (<prefix><tenant>) that run trino-sql recipes; empty: this stage has no Athena and the athena toggle stays off (docs/recipe-languages.md)',
  ),
  ATHENA_DATABASE_PREFIX: text('dps_', 'prefix of the per-tenant Glue databases (<prefix><tenant>) of trino-sql runs'),
  ATHENA_BYTES_SCANNED_CUTOFF: positiveInteger(
    1024 ** 4,
    'bytes one trino-sql run may scan before Athena cancels its query (the workgroup’s cutoff); a tenant’s quota contract lowers it',
  ),
  POWERTOOLS_LOG_LEVEL: logLevel('INFO', 'level of the JSON logs; the logger (shared/log.ts) reads it itself'),
  GCS_API_ENDPOINT: serviceRoot(
    'https://storage.googleapis.com',
    'Google Cloud Storage JSON API root (cloud_store connections)',
  ),
  BIGQUERY_API_ENDPOINT: serviceRoot(
    'https://bigquery.googleapis.com',
    'BigQuery REST API root (analytics_db connections)',
  ),
  GOOGLE_STS_ENDPOINT: serviceRoot(
    'https://sts.googleapis.com/v1/token',
    'Google Security Token Service token URL (workload identity federation)',
  ),
  GOOGLE_IAM_CREDENTIALS_ENDPOINT: serviceRoot(
    'https://iamcredentials.googleapis.com',
    'Google IAM Credentials API root (service-account impersonation)',
  ),
  ASSISTANT_BEDROCK_MODEL_ID: text(
    '',
    'Bedrock model id (or inference profile id) of the AI assistant, called through the Converse API; empty: no Bedrock model (docs/assistant.md)',
  ),
  ASSISTANT_CHAT_ENDPOINT: optionalServiceRoot(
    'root of an OpenAI-compatible chat-completions API (e.g. a local Ollama, http://127.0.0.1:11434/v1) the AI assistant calls instead of Bedrock; empty: none',
  ),
  ASSISTANT_CHAT_MODEL: text('llama3.1', 'model name sent to ASSISTANT_CHAT_ENDPOINT'),
  ASSISTANT_MODEL_TIMEOUT_MS: positiveInteger(
    60_000,
    'upper bound of one call to the assistant’s model; a call also ends ASSISTANT_ANSWER_MARGIN_MS before the request’s own time limit',
  ),
  ASSISTANT_ANSWER_MARGIN_MS: positiveInteger(
    4_000,
    'time kept before the send-message request’s time limit to check and store the answer: no model call runs into it',
  ),
  ASSISTANT_MAX_MODEL_TURNS: positiveInteger(6, 'model calls the assistant makes to answer one message'),
  ASSISTANT_MAX_TOOL_CALLS: positiveInteger(12, 'tool calls the assistant runs to answer one message'),
  ASSISTANT_MAX_TOKENS_PER_MESSAGE: positiveInteger(
    40_000,
    'model tokens (input and output) one message may use; the assistant stops asking the model beyond it',
  ),
  ASSISTANT_MAX_TOKENS_PER_TENANT_DAY: positiveInteger(
    1_000_000,
    'model tokens a tenant may use per UTC day; beyond it messages answer 10-1501 naming ai_assistant',
  ),
  ASSISTANT_HISTORY_MESSAGES: positiveInteger(
    20,
    'earlier messages of the conversation sent to the model, newest first',
  ),
  ASSISTANT_HISTORY_CHARS: positiveInteger(
    24_000,
    'characters of earlier messages sent to the model; older messages beyond it are left out',
  ),
  OPENLINEAGE_URL: optionalServiceRoot(
    'where OpenLineage run events go (POSTed as JSON, e.g. Marquez at http://marquez:5000/api/v1/lineage) while the openlineage toggle is on; empty: no events (docs/lineage.md)',
  ),
  OPENLINEAGE_NAMESPACE: text(
    'dps://data-preparation-service',
    'the OpenLineage namespace of the jobs and of the service’s own datasets (data tables, node outputs); one per stage',
  ),
} as const;
export type SettingName = keyof typeof SETTINGS;
type SettingValue<N extends SettingName> = ReturnType<(typeof SETTINGS)[N]['fallback']>;

// SETTINGS again, typed so that TypeScript ties SETTINGS[name] to the value type of that name.
const declared: { readonly [N in SettingName]: Setting<SettingValue<N>> } = SETTINGS;

/** A setting's value: its variable parsed, or its fallback while the variable is unset. */
function setting<N extends SettingName>(name: N): SettingValue<N> {
  const { fallback, parse } = declared[name];
  const raw = process.env[name];
  if (raw === undefined) return fallback();
  try {
    return parse(raw);
  } catch (error) {
    throw new Error(`environment variable ${name} ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

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
    return setting('TOKEN_ISSUER');
  },
  get tokenAudience(): string {
    return setting('TOKEN_AUDIENCE');
  },
  get tokenTtlSeconds(): number {
    return setting('TOKEN_TTL_SECONDS');
  },
  get clientSecretScryptCost(): number {
    return setting('CLIENT_SECRET_SCRYPT_COST');
  },
  get errorBase(): string {
    return setting('ERROR_BASE_URL');
  },
  get outboundAllowList(): string[] {
    return setting('OUTBOUND_ALLOW_LIST');
  },
  get connectorTimeoutMs(): number {
    return setting('CONNECTOR_TIMEOUT_MS');
  },
  /** The service's data bucket: data versions, samples and analyses as Parquet and JSON. */
  get dataBucket(): string {
    return required('DATA_BUCKET');
  },
  /**
   * Where schedules live in EventBridge Scheduler (shared/schedules/scheduler.ts): the stage's
   * schedule group, the function a schedule invokes, and the role the Scheduler assumes to invoke it.
   */
  get schedules(): { readonly groupName: string; readonly targetArn: string; readonly roleArn: string } {
    return {
      groupName: required('SCHEDULE_GROUP'),
      targetArn: required('SCHEDULE_TARGET_ARN'),
      roleArn: required('SCHEDULER_ROLE_ARN'),
    };
  },
  /** ARN of a state machine of statemachines/, by its variable (IMPORT_STATE_MACHINE_ARN). */
  stateMachineArn(variable: string): string {
    return required(variable);
  },
  get jobInactivitySeconds(): number {
    return setting('JOB_INACTIVITY_SECONDS');
  },
  get workDirectory(): string {
    return setting('WORK_DIRECTORY');
  },
  /** Input bytes from which the state machine runs a job's worker on Fargate (shared/jobs/launch.ts). */
  get fargateAboveBytes(): number {
    return setting('FARGATE_ABOVE_BYTES');
  },
  /** Destinations outside the stage an engine task can reach (shared/jobs/task-reach.ts). */
  get fargateTaskOutbound(): string[] {
    return setting('FARGATE_TASK_OUTBOUND');
  },
  /** Athena for trino-sql recipes (docs/recipe-languages.md): per-tenant workgroup and Glue database names, the scan cutoff. */
  get athena() {
    return {
      workgroupPrefix: setting('ATHENA_WORKGROUP_PREFIX'),
      databasePrefix: setting('ATHENA_DATABASE_PREFIX'),
      bytesScannedCutoff: setting('ATHENA_BYTES_SCANNED_CUTOFF'),
    };
  },
  /**
   * The per-tenant roles of trino-sql runs (shared/engine/athena/tenant-role.ts), as the stack
   * sets them on the recipe-run worker: the permissions boundary each must carry and the roles
   * it trusts (the machine's and the worker's, comma-separated).
   */
  get athenaTenantRoles(): { readonly boundaryArn: string; readonly trusted: readonly string[] } {
    return {
      boundaryArn: required('ATHENA_ROLE_BOUNDARY_ARN'),
      trusted: required('ATHENA_ROLE_TRUSTS').split(','),
    };
  },
  /** OpenLineage run events (docs/lineage.md): where they go (empty: nowhere) and the stage's namespace. */
  get openLineage(): { readonly url: string; readonly namespace: string } {
    return { url: setting('OPENLINEAGE_URL'), namespace: setting('OPENLINEAGE_NAMESPACE') };
  },
  get maxBodyBytes(): number {
    return setting('MAX_BODY_BYTES');
  },
  get gcsApiEndpoint(): string {
    return setting('GCS_API_ENDPOINT');
  },
  get bigqueryApiEndpoint(): string {
    return setting('BIGQUERY_API_ENDPOINT');
  },
  get googleStsEndpoint(): string {
    return setting('GOOGLE_STS_ENDPOINT');
  },
  get googleIamCredentialsEndpoint(): string {
    return setting('GOOGLE_IAM_CREDENTIALS_ENDPOINT');
  },
  /** The AI assistant's model and bounds (docs/assistant.md). */
  get assistant() {
    return {
      bedrockModelId: setting('ASSISTANT_BEDROCK_MODEL_ID'),
      chatEndpoint: setting('ASSISTANT_CHAT_ENDPOINT'),
      chatModel: setting('ASSISTANT_CHAT_MODEL'),
      modelTimeoutMs: setting('ASSISTANT_MODEL_TIMEOUT_MS'),
      answerMarginMs: setting('ASSISTANT_ANSWER_MARGIN_MS'),
      maxModelTurns: setting('ASSISTANT_MAX_MODEL_TURNS'),
      maxToolCalls: setting('ASSISTANT_MAX_TOOL_CALLS'),
      maxTokensPerMessage: setting('ASSISTANT_MAX_TOKENS_PER_MESSAGE'),
      maxTokensPerTenantDay: setting('ASSISTANT_MAX_TOKENS_PER_TENANT_DAY'),
      historyMessages: setting('ASSISTANT_HISTORY_MESSAGES'),
      historyChars: setting('ASSISTANT_HISTORY_CHARS'),
    };
  },
};
