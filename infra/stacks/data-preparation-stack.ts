/**
 * One stage of the Data Preparation Service: the stateful resources (KMS keys, table, data
 * bucket), the HTTP API with its authorizer and fallback route, a nested stack per API domain
 * (route tag) and a nested stack for job workers and state machines.
 *
 * Everything is derived from the route table (functions/routes.ts) and the job list
 * (functions/jobs.ts); tests pass their own routes and jobs through the props.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, Tags, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  AuthorizerPayloadVersion,
  type CfnAuthorizer,
  HttpApi,
  HttpAuthorizer,
  HttpAuthorizerType,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { AUTHORIZER_HANDLER, FALLBACK_HANDLER, routes as routeTable } from '../../functions/routes';
import { jobs as declaredJobs, RECORD_JOB_FAILURE, workersOf } from '../../functions/jobs';
import type { JobDeclaration, WorkerSpec } from '../../shared/jobs/define-job';
import { recipeRunJob } from '../../shared/datasets/jobs';
import { API_BASE_PATH, SETTINGS } from '../../shared/config';
import { TABLE_SCHEMA } from '../../shared/db/table-schema';
import type { RouteSpec } from '../../shared/http/route';
import { duckDbLayer } from '../layers/duckdb-layer';
import { jobMachines } from '../state-machines';
import { bedrockModelArn } from './access';
import type { AccessTargets } from './access-targets';
import { ApiDomainStack } from './api-domain-stack';
import { checkJobStarts, JobsStack } from './jobs-stack';
import { RetentionStack } from './retention-stack';
import { parseAlarmThresholds } from './alarm-thresholds';
import { Monitoring } from './monitoring';
import { scheduleNames } from './schedule-access';
import { SchedulesStack } from './schedules-stack';
import { metricsNamespace } from '../../shared/observability/metric-names';
import { LOG_RETENTION, ServiceFunction } from './service-function';
import { parseMemorySizes, type MemorySizes } from './memory';
import type { Settings } from './settings';
import { pascalCase, validateStage } from './stage';

export interface DataPreparationStackProps extends StackProps {
  readonly stage: string;
  /** The route table; functions/routes.ts by default. */
  readonly routes?: readonly RouteSpec[];
  /** The asynchronous jobs; functions/jobs.ts by default. */
  readonly jobs?: readonly JobDeclaration[];
  /** Setting overrides for every function (see settings.ts). */
  readonly settings?: Settings;
  /** Memory sizes that differ from the defaults (memory.ts; CDK context "memory"). */
  readonly memory?: unknown;
  /** Alarm thresholds that differ from the defaults (alarm-thresholds.ts; CDK context "alarms"). */
  readonly alarms?: unknown;
}

const AUTHORIZER_TIMEOUT = Duration.seconds(10);
const FALLBACK_TIMEOUT = Duration.seconds(10);

/** What the API's access log records per request (HTTP API $context variables). */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
};

export class DataPreparationStack extends Stack {
  readonly stage: string;
  readonly api: HttpApi;
  readonly table: Table;
  readonly dataBucket: Bucket;
  readonly keys: { readonly table: Key; readonly bucket: Key; readonly data: Key; readonly signing: Key };
  readonly authorizer: ServiceFunction;
  readonly fallback: ServiceFunction;
  /** By domain (route tag). */
  readonly domains = new Map<string, ApiDomainStack>();
  readonly jobs: JobsStack | undefined;
  readonly retention: RetentionStack;
  /** The stage's alarms, dashboard and alarm topic (monitoring.ts). */
  readonly monitoring: Monitoring;
  readonly schedules: SchedulesStack | undefined;

  constructor(scope: Construct, id: string, props: DataPreparationStackProps) {
    const stage = validateStage(props.stage);
    super(scope, id, {
      description: `Data Preparation Service, stage ${stage}`,
      terminationProtection: stage === 'prod',
      ...props,
    });
    this.stage = stage;
    const routes = props.routes ?? routeTable;
    const jobs = props.jobs ?? declaredJobs;
    const memory = parseMemorySizes(props.memory, [...jobs.map((job) => job.name), RECORD_JOB_FAILURE.name]);
    const workers = jobs.length > 0 ? sizedWorkers(jobs, memory) : [];
    // Configuration errors first, before any bundling.
    const machines = jobMachines(jobs, workers);
    checkJobStarts(routes, workers, jobs);
    checkRoutes(routes);
    Tags.of(this).add('service', 'data-preparation');
    Tags.of(this).add('stage', stage);

    // ---- Keys -------------------------------------------------------------------------------
    const symmetricKey = (keyId: string, alias: string, purpose: string) =>
      new Key(this, keyId, {
        description: `Data Preparation ${stage}: ${purpose}`,
        alias: `alias/data-preparation/${stage}/${alias}`,
        enableKeyRotation: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    // Separate keys per purpose: a function that may read the table cannot open secrets.
    this.keys = {
      table: symmetricKey('TableKey', 'table', 'table encryption at rest'),
      bucket: symmetricKey('BucketKey', 'bucket', 'data bucket encryption at rest'),
      data: symmetricKey('DataKey', 'data', 'envelope encryption of connection secrets'),
      signing: new Key(this, 'SigningKey', {
        description: `Data Preparation ${stage}: signing access tokens (ES256)`,
        alias: `alias/data-preparation/${stage}/signing`,
        keySpec: KeySpec.ECC_NIST_P256,
        keyUsage: KeyUsage.SIGN_VERIFY,
        // KMS does not rotate asymmetric keys.
        enableKeyRotation: false,
        removalPolicy: RemovalPolicy.RETAIN,
      }),
    };

    // ---- Table ------------------------------------------------------------------------------
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: TABLE_SCHEMA.timeToLiveAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.keys.table,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // ---- Buckets ----------------------------------------------------------------------------
    const accessLogsBucket = new Bucket(this, 'AccessLogsBucket', {
      // Server access logs of the data bucket. S3 delivers them only to SSE-S3 buckets, and a
      // log bucket does not log itself.
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      lifecycleRules: [{ expiration: Duration.days(365), noncurrentVersionExpiration: Duration.days(30) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.dataBucket = new Bucket(this, 'DataBucket', {
      encryption: BucketEncryption.KMS,
      encryptionKey: this.keys.bucket,
      bucketKeyEnabled: true,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      serverAccessLogsBucket: accessLogsBucket,
      serverAccessLogsPrefix: 'data-bucket/',
      lifecycleRules: [
        { abortIncompleteMultipartUploadAfter: Duration.days(7), noncurrentVersionExpiration: Duration.days(30) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const resources = {
      table: this.table,
      tableKey: this.keys.table,
      dataKey: this.keys.data,
      signingKey: this.keys.signing,
      dataBucket: this.dataBucket,
      bucketKey: this.keys.bucket,
      assistantModelArn: bedrockModelArn(props.settings?.ASSISTANT_BEDROCK_MODEL_ID),
      // trino-sql runs reach Athena only on a stage that names its workgroups (docs/recipe-languages.md).
      athena: props.settings?.ATHENA_WORKGROUP_PREFIX
        ? {
            workgroupPrefix: props.settings.ATHENA_WORKGROUP_PREFIX,
            databasePrefix: props.settings.ATHENA_DATABASE_PREFIX ?? SETTINGS.ATHENA_DATABASE_PREFIX.fallback(),
          }
        : undefined,
      // Fixed names: the functions that keep schedules in step name them from any stack (schedule-access.ts).
      schedules: scheduleNames(stage),
    };
    // Every function's metrics go to the stage's namespace (shared/observability/metrics.ts).
    const settings: Record<string, string> = {
      ...props.settings,
      POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(stage),
    };

    // ---- DuckDB -----------------------------------------------------------------------------
    // One layer for every function that runs the engine: engine workers and the routes that analyse SQL.
    const engineLayer =
      workers.some((worker) => worker.engine) || routes.some((route) => route.engine)
        ? duckDbLayer(this, 'DuckDbLayer')
        : undefined;

    // ---- Jobs -------------------------------------------------------------------------------
    // Before the routes: a route that starts a job names its machine's ARN.
    this.jobs =
      jobs.length > 0
        ? new JobsStack(this, 'Jobs', { workers, machines, targets: resources, environment: settings, engineLayer })
        : undefined;
    const targets: AccessTargets = { ...resources, stateMachines: this.jobs?.stateMachines ?? new Map() };

    // ---- Retention sweep --------------------------------------------------------------------
    this.retention = new RetentionStack(this, 'Retention', {
      targets,
      environment: settings,
      memorySize: memory.retention,
    });

    // ---- Schedules --------------------------------------------------------------------------
    // The tick starts recipe runs: only where that job is deployed.
    this.schedules = jobs.some((job) => job.name === recipeRunJob.name)
      ? new SchedulesStack(this, 'Schedules', {
          targets: { ...targets, schedules: resources.schedules },
          environment: settings,
          memorySize: memory.platform,
        })
      : undefined;

    // ---- HTTP API ---------------------------------------------------------------------------
    this.api = new HttpApi(this, 'Api', {
      apiName: `data-preparation-${stage}`,
      description: `Data Preparation Service API, stage ${stage}`,
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    // The authorizer always lets the request through with its verdict in the context; the
    // route answers 401/403 as RFC 7807 problems. Without an identity source (a missing
    // Authorization header must still reach the route) results cannot be cached.
    this.authorizer = new ServiceFunction(this, 'Authorizer', {
      handler: AUTHORIZER_HANDLER,
      description: `API authorizer (functions/${AUTHORIZER_HANDLER}.ts)`,
      // It reads API clients: a deleted or expired client's tokens are refused (shared/identity/revocation.ts).
      access: { signingKey: 'verify', table: 'read' },
      targets,
      environment: settings,
      timeout: AUTHORIZER_TIMEOUT,
      memorySize: memory.platform,
    });
    const authorizer = new HttpAuthorizer(this, 'ApiAuthorizer', {
      httpApi: this.api,
      authorizerName: 'access-token',
      type: HttpAuthorizerType.LAMBDA,
      authorizerUri: `arn:${this.partition}:apigateway:${this.region}:lambda:path/2015-03-31/functions/${this.authorizer.function.functionArn}/invocations`,
      payloadFormatVersion: AuthorizerPayloadVersion.VERSION_2_0,
      enableSimpleResponses: true,
      identitySource: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    (authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');
    this.authorizer.function.addPermission('ApiGatewayInvoke', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: this.formatArn({
        service: 'execute-api',
        resource: this.api.apiId,
        resourceName: `authorizers/${authorizer.authorizerId}`,
      }),
    });

    // $default: requests no route matches get the contract's 404/405 problem.
    this.fallback = new ServiceFunction(this, 'Fallback', {
      handler: FALLBACK_HANDLER,
      description: `$default route: 404/405 for unmatched requests (functions/${FALLBACK_HANDLER}.ts)`,
      access: {},
      targets,
      environment: settings,
      timeout: FALLBACK_TIMEOUT,
      memorySize: memory.platform,
    });
    const defaultRoute = new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('FallbackIntegration', this.fallback.function),
      authorizer: new HttpNoneAuthorizer(),
    });
    Validations.of(defaultRoute).acknowledge({
      id: 'AwsSolutions::AwsSolutions-APIG4',
      reason:
        'The $default route only answers 404/405 problems for unmatched requests; its function has no access to any data.',
    });

    // ---- Routes, a nested stack per domain ---------------------------------------------------
    const domains = [...new Set(routes.map((route) => route.tag))];
    for (const domain of domains) {
      const stack = new ApiDomainStack(this, `${pascalCase(domain)}Routes`, {
        domain,
        routes: routes.filter((route) => route.tag === domain),
        httpApi: this.api,
        authorizerId: authorizer.authorizerId,
        targets,
        environment: settings,
        engineLayer,
        memory,
      });
      this.domains.set(domain, stack);
    }

    // ---- Alarms and dashboard, over every function made above --------------------------------
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage,
      api: this.api,
      table: this.table,
      functions: this.node.findAll().filter((construct) => construct instanceof ServiceFunction),
      stateMachines: this.jobs?.stateMachines ?? new Map(),
      thresholds: parseAlarmThresholds(props.alarms),
    });

    new CfnOutput(this, 'ApiUrl', {
      value: `${this.api.apiEndpoint}${API_BASE_PATH}`,
      description: 'Base URL of the API',
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'DataBucketName', { value: this.dataBucket.bucketName });
  }
}

/** One function and one API route per entry: operation ids and method+path pairs must be unique. */
function checkRoutes(routes: readonly RouteSpec[]): void {
  const operations = new Set<string>();
  const keys = new Set<string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (operations.has(route.operationId))
      throw new Error(`route table: operationId ${route.operationId} is used twice`);
    if (keys.has(key)) throw new Error(`route table: ${key} is declared twice`);
    if (!/^[a-z0-9-]+$/.test(route.tag))
      throw new Error(`route table: tag ${route.tag} of ${route.operationId} is not kebab-case`);
    operations.add(route.operationId);
    keys.add(key);
  }
}

/** The functions state machines call, each at the stage's size for its job kind (memory.jobs) or its declaration's. */
function sizedWorkers(jobs: readonly JobDeclaration[], memory: MemorySizes): WorkerSpec[] {
  return workersOf(jobs).map((worker) => {
    const kind = jobs.find((job) => job.worker === worker)?.name ?? worker.name;
    return { ...worker, memoryMb: memory.jobs[kind] ?? worker.memoryMb };
  });
}
