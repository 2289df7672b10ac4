/**
 * The local twin: every AWS part the service uses, stood in by a real protocol
 * implementation on 127.0.0.1, plus the HTTP API, in one process. Functions reach the
 * stand-ins through the SDK's own endpoint settings (AWS_ENDPOINT_URL_<SERVICE>), exactly as
 * they reach AWS when deployed.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IssuedCredentials } from '../../shared/identity/clients';
import type { RoleName } from '../../shared/auth/permissions';
import { PLATFORM_TENANT } from '../../shared/tenants/store';
import { issueOperatorClient } from '../../shared/tenants/create';
import { registerUnlistedTenants } from '../../shared/tenants/unlisted';
import { API_BASE_PATH } from '../../shared/config';
import { jobs as declaredJobs, RECORD_JOB_FAILURE, workersOf } from '../../functions/jobs';
import { RUNNER_RESTARTED } from '../../shared/jobs/failure';
import { logger } from '../../shared/log';
import { LOCAL_METRICS_FILE_VARIABLE, recordSweep } from '../../shared/observability/metrics';
import { stateMachineArnVariable, type JobDeclaration, type WorkerSpec } from '../../shared/jobs/define-job';
import { advanceRetentionClock, resetRetentionClock, retentionNow } from '../../shared/retention/clock';
import type { SweepOptions } from '../../shared/retention/sweep';
import { sweepToEnd } from '../../shared/retention/sweep-run';
import { jobMachines } from '../state-machines';
import { useEngineChildBundle } from '../../shared/engine/isolation/engine-process';
import { startLocalAthenaAndGlue } from './athena';
import { localTenantRoles, startLocalIam } from './iam';
import { startLocalDynamoDb } from './dynamodb';
import { ensureTable } from './twin-table';
import { engineChildBundle } from './engine-child-bundle';
import { startLocalEcs, type LocalEcs } from './ecs';
import { startLocalHttpApi } from './http-api';
import { startLocalKms } from './kms';
import { LOCAL_S3_CREDENTIALS, startLocalS3, type LocalS3 } from './s3';
import { startLocalScheduler, type LocalScheduler } from './scheduler';
import { openTwinScratch } from './scratch';
import { runRecurringWorkers } from './recurring-workers';
import { loadWorkerHandler, startLocalStepFunctions, type WorkerFunction } from './stepfunctions';

export const LOCAL_TENANT = 'local';
/** The service's table in the local DynamoDB. */
export const TABLE_NAME = 'dps-local';
/** The service's own data bucket (data versions, samples, analyses) in the local S3. */
export const DATA_BUCKET = 'dps-data-local';
// s3rver checks signatures against its one key pair; the other stand-ins accept any.
const LOCAL_CREDENTIALS = LOCAL_S3_CREDENTIALS;

export interface TwinOptions {
  /** Folder that keeps state across restarts; in memory (and a temporary folder for S3) when omitted. */
  readonly dataDir?: string;
  /** Port of the HTTP API; a free one when 0 or omitted. */
  readonly port?: number;
  /** Port of the local S3; a free one when 0 or omitted. */
  readonly s3Port?: number;
  /** Ports of the other stand-ins; free ones when omitted (fixed ones let a restart keep its endpoints). */
  readonly servicePorts?: {
    readonly dynamodb?: number;
    readonly kms?: number;
    readonly stepFunctions?: number;
    readonly ecs?: number;
  };
  readonly buckets?: readonly string[];
  /** The jobs to run; functions/jobs.ts by default. */
  readonly jobs?: readonly JobDeclaration[];
  readonly loadWorker?: (worker: WorkerSpec) => Promise<WorkerFunction>;
  /** Further OUTBOUND_ALLOW_LIST entries, e.g. the protocol fakes of a test. */
  readonly allowOutbound?: readonly string[];
  /** OPENLINEAGE_URL: where the jobs' OpenLineage run events go (docs/lineage.md); none when omitted. */
  readonly openLineageUrl?: string;
  /** Further environment for the functions, e.g. CONNECTOR_TIMEOUT_MS. */
  readonly environment?: Readonly<Record<string, string>>;
  /** Wait between retries of job steps instead of the definitions' backoff (tests). */
  readonly retryIntervalMs?: number;
  /** Timeout of every job step instead of the definitions' (tests of timeouts). */
  readonly taskTimeoutSeconds?: number;
  /** Time limit of every API request instead of API_TIME_LIMIT_MS (tests of time limits). */
  readonly requestTimeLimitMs?: number;
  /** Runs the retention sweep this often, as the EventBridge schedule does when deployed; never when omitted. */
  readonly sweepEveryMs?: number;
  /**
   * FARGATE_ABOVE_BYTES: jobs whose inputs weigh this much or more run their worker as a task
   * of the local ECS, a process of its own (0: every job); the stage's default when omitted.
   */
  readonly fargateAboveBytes?: number;
  /** How long the local Athena keeps each query QUEUED before it runs (tests of stopping one); none when omitted. */
  readonly athenaQueueMs?: number;
  /**
   * The file the functions' metric lines (EMF, as deployed functions write them to their logs:
   * docs/operations.md) go to; `metrics.jsonl` in the data folder, or in a temporary folder
   * removed at close when there is none.
   */
  readonly metricsFile?: string;
  /**
   * Whether the local EventBridge Scheduler fires schedules by itself, checking the clock this
   * often (ms); 0 (tests that move the clock themselves) or `false` (npm start -- --no-scheduler):
   * it answers the service's calls but fires only when `scheduler.advance` or `runDue` is called.
   * 1000 when omitted.
   */
  readonly schedulerCheckEveryMs?: number | false;
  /** How often recurring functions (the OpenLineage outbox's drain) run: their declared rate when omitted; never with false. */
  readonly recurringEveryMs?: number | false;
}

/** The twin's per-tenant Athena workgroups (and tenant roles) are named after this. */
const LOCAL_ATHENA_WORKGROUP_PREFIX = 'dps-';

/** The names the local Scheduler's schedules use: the stage's group, the tick function and the scheduler's role. */
export const LOCAL_SCHEDULES = {
  group: 'dps-local',
  tickArn: 'arn:aws:lambda:us-east-1:000000000000:function:dps-local-schedule-tick',
  roleArn: 'arn:aws:iam::000000000000:role/dps-local-scheduler',
} as const;

/** The twin's EventBridge Scheduler (infra/local/scheduler.ts), on the retention sweep's clock. */
export type TwinScheduler = Pick<LocalScheduler, 'endpoint' | 'advance' | 'runDue' | 'names'>;

/** The retention sweep of the twin: what the deployed schedule invokes, run in this process. */
export interface TwinRetention {
  /** One whole sweep now (the retention clock's now), as the schedule's invocations make it. */
  sweep(options?: Partial<SweepOptions>): ReturnType<typeof sweepToEnd>;
  /** Moves the retention clock forward (tests: instead of waiting days for versions to expire). */
  advanceClock(ms: number): void;
  /** Puts the retention clock back to the real time. */
  resetClock(): void;
}

export interface Twin {
  /** Base URL of the API, ending in /api/data/v1. */
  readonly apiUrl: string;
  readonly s3: LocalS3;
  /** The local DynamoDB endpoint, for tests and benchmarks that measure the raw store. */
  readonly dynamoEndpoint: string;
  /** Every stand-in's endpoint, for the AWS CLI or an SDK. */
  readonly endpoints: {
    readonly dynamodb: string;
    readonly kms: string;
    readonly s3: string;
    readonly stepFunctions: string;
    readonly ecs: string;
    readonly scheduler: string;
  };
  /** The local ECS: the Fargate tasks the jobs ran, with their processes while they run. */
  readonly ecs: Pick<LocalEcs, 'tasks'>;
  /** Jobs that died with the previous process and run again at this start. */
  readonly resumedJobs: number;
  /** The job workers' scratch root (WORK_DIRECTORY), emptied at start of what a previous process left. */
  readonly scratchRoot: string;
  /** The admin client of tenant "local", created on first start. */
  readonly admin: IssuedCredentials & { readonly tenant_id: string };
  /** The platform-admin client (the admin plane, /admin/...), created on first start. */
  readonly platformAdmin: IssuedCredentials & { readonly tenant_id: string };
  readonly retention: TwinRetention;
  /** Fires the schedules on the retention clock; tests move it with `advance`. */
  readonly scheduler: TwinScheduler;
  /** Where the functions' metric lines go (TwinOptions.metricsFile), one JSON line each. */
  readonly metricsFile: string;
  close(): Promise<void>;
}

/** Creator of the tenants the twin makes or registers, as the registry names it (created_by). */
export const TWIN_CREATOR = 'local-twin';

/**
 * A bootstrap client: kept in the data folder so every start prints the same credential. Its
 * tenant comes from the one tenant-creation path (shared/tenants/create.ts), so `local` is in
 * the registry like a tenant POST /admin/tenants made.
 */
async function bootstrapClient(
  dataDir: string | undefined,
  fileName: string,
  client: { readonly tenantId: string; readonly roles: readonly RoleName[]; readonly description: string },
): Promise<Twin['admin']> {
  const file = dataDir === undefined ? undefined : join(dataDir, fileName);
  if (file !== undefined && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Twin['admin'];
  const { client_id, client_secret } = await issueOperatorClient(
    { tenantId: client.tenantId, roleNames: client.roles, description: client.description },
    TWIN_CREATOR,
  );
  const issued = { tenant_id: client.tenantId, client_id, client_secret };
  if (file !== undefined) writeFileSync(file, JSON.stringify(issued, null, 2), { mode: 0o600 });
  return issued;
}

/**
 * The twin's stand-in for the EventBridge schedule: a sweep every `everyMs`, one at a time (a
 * sweep still running when the next is due makes that one wait for the following tick).
 */
function scheduleSweeps(retention: TwinRetention, everyMs: number): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = retention
      .sweep()
      .then((result) => logger.info('retention sweep', { sweepId: result.sweep_id, deleted: result.deleted.length }))
      .catch((error: unknown) => logger.error('retention sweep failed', { error }))
      .finally(() => (running = undefined));
  }, everyMs);
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** `metrics.jsonl` in the data folder, or in a temporary folder that `closers` removes. */
function twinMetricsFile(dataDir: string | undefined, closers: (() => Promise<void>)[]): string {
  if (dataDir !== undefined) return join(dataDir, 'metrics.jsonl');
  const folder = mkdtempSync(join(tmpdir(), 'dps-metrics-'));
  closers.push(async () => rmSync(folder, { recursive: true, force: true }));
  return join(folder, 'metrics.jsonl');
}

export async function startTwin(options: TwinOptions = {}): Promise<Twin> {
  const { dataDir } = options;
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  const closers: (() => Promise<void>)[] = [];
  const previousEnvironment = { ...process.env };
  try {
    // Before any job runs, so that everything it removes belongs to a process that is gone.
    const scratch = openTwinScratch(dataDir);
    closers.push(async () => scratch.close());
    const metricsFile = options.metricsFile ?? twinMetricsFile(dataDir, closers);
    // The workers run from source here: their engine processes start from a bundle instead.
    useEngineChildBundle(await engineChildBundle());
    const ports = options.servicePorts ?? {};
    const dynamo = await startLocalDynamoDb({ path: dataDir && join(dataDir, 'dynamodb'), port: ports.dynamodb });
    closers.push(() => dynamo.close());
    const kms = await startLocalKms({ keyFile: dataDir && join(dataDir, 'kms-keys.json'), port: ports.kms });
    closers.push(() => kms.close());
    const s3 = await startLocalS3({
      directory: dataDir && join(dataDir, 's3'),
      port: options.s3Port,
      buckets: [DATA_BUCKET, ...(options.buckets ?? [])],
    });
    closers.push(() => s3.close());
    // trino-sql runs: each tenant's role (IAM and STS, infra/local/iam.ts), and Athena and Glue
    // stand-ins over the same local S3 that do with a role's session only what it allows.
    const tenantRoles = localTenantRoles(LOCAL_ATHENA_WORKGROUP_PREFIX);
    const iam = await startLocalIam(tenantRoles);
    closers.push(() => iam.close());
    const athena = await startLocalAthenaAndGlue({
      s3Endpoint: s3.endpoint,
      queueMs: options.athenaQueueMs,
      authorizer: iam,
    });
    closers.push(() => athena.close());
    const jobs = options.jobs ?? declaredJobs;
    const workers = workersOf(jobs);
    const ecs = await startLocalEcs({ workers, scratchRoot: scratch.root, port: ports.ecs });
    closers.push(() => ecs.close());
    const stepFunctions = await startLocalStepFunctions({
      ecsEndpoint: ecs.endpoint,
      athenaEndpoint: athena.athena,
      stsEndpoint: iam.endpoint,
      machines: jobMachines(jobs, workers),
      workers,
      loadWorker: options.loadWorker,
      retryIntervalMs: options.retryIntervalMs,
      taskTimeoutSeconds: options.taskTimeoutSeconds,
      port: ports.stepFunctions,
      journalFile: dataDir && join(dataDir, 'stepfunctions-executions.json'),
      onAbandoned: async (input) => {
        const record = await (options.loadWorker ?? loadWorkerHandler)(RECORD_JOB_FAILURE);
        await record({ ...(input as object), failure: { Error: RUNNER_RESTARTED } }, { awsRequestId: 'twin-restart' });
      },
    });
    closers.push(() => stepFunctions.close());
    // Schedules fire on the sweep's clock; a fire invokes the tick function, as the Scheduler's role does.
    const checkEveryMs = options.schedulerCheckEveryMs ?? 1000;
    const scheduler = await startLocalScheduler({
      now: retentionNow,
      advanceClock: advanceRetentionClock,
      checkEveryMs: checkEveryMs === false ? 0 : checkEveryMs,
      invoke: async (targetArn, input) => {
        if (targetArn !== LOCAL_SCHEDULES.tickArn) throw new Error(`no local function ${targetArn}`);
        const { handler } = await import('../../functions/schedules/tick');
        await handler(input);
      },
    });
    closers.push(() => scheduler.close());

    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_KMS: kms.endpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ENDPOINT_URL_SFN: stepFunctions.endpoint,
      AWS_ENDPOINT_URL_ATHENA: athena.athena,
      AWS_ENDPOINT_URL_GLUE: athena.glue,
      AWS_ENDPOINT_URL_IAM: iam.endpoint,
      AWS_ENDPOINT_URL_STS: iam.endpoint,
      ATHENA_ROLE_BOUNDARY_ARN: tenantRoles.boundaryArn,
      ATHENA_ROLE_TRUSTS: tenantRoles.serviceRoles.join(','),
      AWS_ENDPOINT_URL_ECS: ecs.endpoint,
      AWS_ENDPOINT_URL_SCHEDULER: scheduler.endpoint,
      SCHEDULE_GROUP: LOCAL_SCHEDULES.group,
      SCHEDULE_TARGET_ARN: LOCAL_SCHEDULES.tickArn,
      SCHEDULER_ROLE_ARN: LOCAL_SCHEDULES.roleArn,
      ...(options.fargateAboveBytes === undefined ? {} : { FARGATE_ABOVE_BYTES: String(options.fargateAboveBytes) }),
      TABLE_NAME,
      DATA_BUCKET,
      WORK_DIRECTORY: scratch.root,
      // trino-sql recipes: the twin has Athena's per-tenant workgroups (its stand-in), so the athena toggle is available.
      ATHENA_WORKGROUP_PREFIX: LOCAL_ATHENA_WORKGROUP_PREFIX,
      DATA_KEY_ID: kms.dataKeyId,
      SIGNING_KEY_ID: kms.signingKeyId,
      [LOCAL_METRICS_FILE_VARIABLE]: metricsFile,
      // The twin writes its metric lines to their file even where tests turn stdout's off.
      POWERTOOLS_METRICS_DISABLED: 'false',
      OUTBOUND_ALLOW_LIST: [`127.0.0.1:${s3.port}`, `localhost:${s3.port}`, ...(options.allowOutbound ?? [])].join(','),
      ...Object.fromEntries(jobs.map((job) => [stateMachineArnVariable(job), stepFunctions.machines[job.name]!])),
      // Set by every start, so that one twin's endpoint never outlives it in a test process.
      OPENLINEAGE_URL: options.openLineageUrl ?? '',
      ...options.environment,
    });
    await ensureTable(dynamo.endpoint, TABLE_NAME, LOCAL_CREDENTIALS);
    closers.push(runRecurringWorkers(workers, options.loadWorker ?? loadWorkerHandler, options.recurringEveryMs));
    const admin = await bootstrapClient(dataDir, 'bootstrap-admin.json', {
      tenantId: LOCAL_TENANT,
      roles: ['admin'],
      description: 'bootstrap admin of the local twin',
    });
    const platformAdmin = await bootstrapClient(dataDir, 'bootstrap-platform-admin.json', {
      tenantId: PLATFORM_TENANT,
      roles: ['platform-admin'],
      description: 'bootstrap platform admin of the local twin',
    });
    // Tenants of a data folder from before every tenant came through the registry (the
    // bootstrap's, create-client's) join it now; a second start finds nothing to do.
    const registeredTenants = await registerUnlistedTenants(TWIN_CREATOR);
    if (registeredTenants.length > 0) logger.info('tenants registered', { tenantIds: registeredTenants });
    const resumedJobs = await stepFunctions.resumeInterrupted();

    const api = await startLocalHttpApi(options.port ?? 0, options.requestTimeLimitMs);
    closers.push(() => api.close());
    const retention: TwinRetention = {
      // A whole sweep writes its SweepRuns line, as each deployed invocation that sweeps does (functions/retention/sweep.ts).
      sweep: async (sweepOptions) => {
        const result = await sweepToEnd(new Date(retentionNow()), sweepOptions);
        recordSweep({ deleted: result.deleted.length, failed: result.failed, sweepId: result.sweep_id });
        return result;
      },
      advanceClock: advanceRetentionClock,
      resetClock: resetRetentionClock,
    };
    closers.push(async () => resetRetentionClock());
    if (options.sweepEveryMs !== undefined) closers.push(scheduleSweeps(retention, options.sweepEveryMs));
    return {
      apiUrl: `${api.url}${API_BASE_PATH}`,
      s3,
      dynamoEndpoint: dynamo.endpoint,
      endpoints: {
        dynamodb: dynamo.endpoint,
        kms: kms.endpoint,
        s3: s3.endpoint,
        stepFunctions: stepFunctions.endpoint,
        ecs: ecs.endpoint,
        scheduler: scheduler.endpoint,
      },
      ecs,
      resumedJobs,
      scratchRoot: scratch.root,
      admin,
      platformAdmin,
      retention,
      scheduler,
      metricsFile,
      async close() {
        for (const close of closers.reverse()) await close();
        for (const name of Object.keys(process.env)) if (!(name in previousEnvironment)) delete process.env[name];
        Object.assign(process.env, previousEnvironment);
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw error;
  }
}
