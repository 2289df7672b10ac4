/**
 * One Lambda function of the service: a handler module under functions/, bundled locally with
 * esbuild exactly as infra/bundling.ts describes (what the bundle benchmark measures), with its
 * own log group and its own role that can write to that log group and do what its
 * ResourceAccess declares, and nothing else (no AWS managed policy).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, RemovalPolicy, type Size, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type ILayerVersion, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { handlerModulePath, handlerRef } from '../../shared/http/handler-ref';
import type { ResourceAccess } from '../../shared/resource-access';
import { ESM_BANNER, EXTERNAL_MODULES, LAMBDA_TARGET, POWERTOOLS_EXTERNAL } from '../bundling';
import { powertoolsLayer } from '../layers/powertools-layer';
import { SERVICE_NAME } from '../../shared/observability/metric-names';
import { stateMachineArnVariable } from '../../shared/jobs/define-job';
import { grantAccess, stateMachineOf } from './access';
import type { AccessTargets } from './access-targets';
import { scheduleEnvironment } from './schedule-access';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const RUNTIME = Runtime.NODEJS_22_X;
export const ARCHITECTURE = Architecture.ARM_64;
export const LOG_RETENTION = RetentionDays.THREE_MONTHS;

/** The Powertools service name (shared/observability/metric-names.ts): the logger's, and the metrics' `service` dimension. */
export { SERVICE_NAME };

/** The module a handler reference names, as a path; it must exist. */
export function handlerEntry(handler: string): string {
  const entry = join(PROJECT_ROOT, handlerModulePath(handler));
  if (!existsSync(entry)) throw new Error(`handler module ${handlerModulePath(handler)} does not exist`);
  return entry;
}

export interface ServiceFunctionProps {
  /** Module under functions/ (without extension) that exports `handler`, or `module#export` (shared/http/handler-ref.ts). */
  readonly handler: string;
  readonly description: string;
  readonly access: ResourceAccess;
  readonly targets: AccessTargets;
  /** Environment beyond what `access` implies (settings). */
  readonly environment: Readonly<Record<string, string>>;
  readonly timeout: Duration;
  readonly memorySize: number;
  /** Modules left out of the bundle; what the runtime provides (EXTERNAL_MODULES) by default. */
  readonly externalModules?: readonly string[];
  /** Layers that provide the external modules the runtime does not. */
  readonly layers?: readonly ILayerVersion[];
  /** /tmp; Lambda's default (512 MiB) when omitted. */
  readonly ephemeralStorageSize?: Size;
  /** A fixed name, where other stacks name the function without a reference (the schedule tick); CloudFormation's when omitted. */
  readonly functionName?: string;
}

export class ServiceFunction extends Construct {
  /** Its handler module (ServiceFunctionProps.handler): what its alarm is named after. */
  readonly handler: string;
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.handler = props.handler;
    this.logGroup = new LogGroup(this, 'Logs', { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.RETAIN });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.handler}: its own log group and its declared access only`,
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'OwnLogGroup',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    grantAccess(this.role, props.access, props.targets);

    this.function = new NodejsFunction(this, 'Function', {
      entry: handlerEntry(props.handler),
      handler: handlerRef(props.handler).exportName,
      functionName: props.functionName,
      description: props.description,
      runtime: RUNTIME,
      architecture: ARCHITECTURE,
      memorySize: props.memorySize,
      ephemeralStorageSize: props.ephemeralStorageSize,
      timeout: props.timeout,
      // Powertools comes from the stage's layer (infra/layers/powertools-layer.ts), not the bundle.
      layers: [...(props.layers ?? []), powertoolsLayer(this, RUNTIME, ARCHITECTURE)],
      // X-Ray: the invocation's segment, under which the request or job wrapper annotates its own (shared/observability/tracing.ts).
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      environment: { ...resourceEnvironment(props.access, props.targets), ...props.environment },
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        format: OutputFormat.ESM,
        target: LAMBDA_TARGET,
        externalModules: [...(props.externalModules ?? EXTERNAL_MODULES), ...POWERTOOLS_EXTERNAL],
        banner: ESM_BANNER,
        minify: true,
        sourceMap: true,
        // Stack traces only need the mappings; leaving the sources out keeps the zip small.
        sourcesContent: false,
        logLevel: LogLevel.WARNING,
      },
    });
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions::AwsSolutions-L1',
      reason:
        'nodejs22.x is the runtime the service is built and tested for (bundles target node22); moving to a newer runtime is a deliberate upgrade, not a side effect of a CDK release.',
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords, which X-Ray grants on no narrower resource than *.',
    });
  }
}

/**
 * Environment variables that name resources: only those the function may use, so a handler
 * reaching for an undeclared resource fails with "TABLE_NAME is not set" rather than an
 * access denied deep in the SDK.
 */
export function resourceEnvironment(access: ResourceAccess, targets: AccessTargets): Record<string, string> {
  const environment: Record<string, string> = {
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    NODE_OPTIONS: '--enable-source-maps',
  };
  if (access.table !== undefined) environment.TABLE_NAME = targets.table.tableName;
  if ((access.dataKey ?? []).length > 0) environment.DATA_KEY_ID = targets.dataKey.keyId;
  if (access.signingKey !== undefined) environment.SIGNING_KEY_ID = targets.signingKey.keyId;
  if (access.dataBucket !== undefined) environment.DATA_BUCKET = targets.dataBucket.bucketName;
  if (access.schedules && targets.schedules !== undefined)
    Object.assign(environment, scheduleEnvironment(targets.dataBucket, targets.schedules));
  // A job's cancel stops its execution, whose ARN is built from the machine's (shared/jobs/cancel.ts).
  for (const job of [...(access.startsJobs ?? []), ...(access.stopsJobs ?? [])])
    environment[stateMachineArnVariable(job)] = stateMachineOf(targets, job).stateMachineArn;
  return environment;
}
