/**
 * The Fargate side of the engine jobs (docs/scale.md, section 1; infra/fargate-branch.ts): a
 * cluster in a VPC of its own with private subnets only (no Internet gateway, no NAT, no public
 * IP) that reaches S3, DynamoDB, KMS, Step Functions, Lambda (the DuckDB layer), ECR and
 * CloudWatch Logs through VPC endpoints, and a task definition per worker that declares
 * `fargate`, sized by the stage's settings. Its image is AWS's Lambda Node.js base image through
 * an ECR pull-through cache of ECR Public; the code is the task bundle (an S3 asset, made by
 * esbuild at synth) and the DuckDB layer the Lambda workers use, fetched by infra/task-bootstrap.ts.
 * No Docker is needed to synthesize or to deploy (docs/decisions.md).
 *
 * Each task role gets exactly its worker's declared access (grantAccess), plus reading its own
 * code; the execution role pulls the image and writes the task's log group.
 */
import { buildSync } from 'esbuild';
import { join } from 'node:path';
import {
  Arn,
  ArnFormat,
  AssetHashType,
  Aws,
  type CfnElement,
  Names,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import {
  FlowLogDestination,
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpointAwsService,
  SecurityGroup,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import {
  Cluster,
  ContainerImage,
  ContainerInsights,
  CpuArchitecture,
  FargateTaskDefinition,
  LogDriver,
  OperatingSystemFamily,
} from 'aws-cdk-lib/aws-ecs';
import { CfnPullThroughCacheRule } from 'aws-cdk-lib/aws-ecr';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';
import { SETTINGS } from '../../shared/config';
import { TASK_MEMORY_VARIABLE, TASK_STORAGE_VARIABLE } from '../../shared/engine/limits';
import { runsOnFargate, taskDefinitionPlaceholder, type WorkerSpec } from '../../shared/jobs/define-job';
import { JOB_WORKER_VARIABLE } from '../../shared/jobs/launch';
import { RUNS_ON_VARIABLE } from '../../shared/runs-on';
import { TASK_WORKERS } from '../../functions/jobs/task-workers';
import { assertTaskWorkers } from '../../shared/jobs/task-workers';
import { ENGINE_EXTERNAL_MODULES, ESM_BANNER, LAMBDA_TARGET } from '../bundling';
import { ENGINE_SUBNET_COUNT, TASK_CONTAINER } from '../fargate-branch';
import { BOOTSTRAP_VARIABLES } from '../task-bootstrap';
import { grantAccess } from './access';
import type { AccessTargets } from './access-targets';
import { LOG_RETENTION, PROJECT_ROOT, resourceEnvironment, RUNTIME } from './service-function';
import { pascalCase } from './stage';

/** AWS's maintained Lambda Node.js image (the runtime the bundles target), by its ECR Public path. */
export const TASK_BASE_IMAGE = { registry: 'public.ecr.aws', repository: 'lambda/nodejs', tag: '22' } as const;
/** The image's Node.js and its AWS SDK v3. */
const IMAGE_NODE = '/var/lang/bin/node';
const IMAGE_RUNTIME = '/var/runtime';
/** V8's heap bound as a share of the task's memory: the rest is DuckDB's (60 %) and the OS's. */
const HEAP_SHARE = 0.25;

/** The size of every engine task, from the stage's settings (shared/config.ts FARGATE_TASK_*). */
export function engineTaskSize(environment: Readonly<Record<string, string>>) {
  const read = (name: 'FARGATE_TASK_VCPUS' | 'FARGATE_TASK_MEMORY_MB' | 'FARGATE_TASK_STORAGE_GIB'): number => {
    const text = environment[name];
    return text === undefined ? SETTINGS[name].fallback() : SETTINGS[name].parse(text);
  };
  return {
    vcpus: read('FARGATE_TASK_VCPUS'),
    memoryMb: read('FARGATE_TASK_MEMORY_MB'),
    storageGib: read('FARGATE_TASK_STORAGE_GIB'),
  };
}

/** functions/jobs/fargate-task.ts as a worker is bundled (infra/bundling.ts), into the asset folder. */
function bundleTask(outputDir: string): boolean {
  buildSync({
    entryPoints: [join(PROJECT_ROOT, 'functions', 'jobs', 'fargate-task.ts')],
    outfile: join(outputDir, 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_TARGET,
    minify: true,
    external: [...ENGINE_EXTERNAL_MODULES],
    banner: { js: ESM_BANNER },
    logLevel: 'warning',
  });
  return true;
}

/** infra/task-bootstrap.ts as the container's command: one ES module text, the image's SDK external. */
function bootstrapCode(): string {
  const { outputFiles } = buildSync({
    stdin: {
      contents: "import { bootstrap } from './infra/task-bootstrap';\nawait bootstrap();\n",
      resolveDir: PROJECT_ROOT,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_TARGET,
    minify: true,
    external: ['@aws-sdk/*'],
    write: false,
    logLevel: 'warning',
  });
  return outputFiles[0]!.text;
}

export interface EngineTasksProps {
  readonly workers: readonly WorkerSpec[];
  readonly targets: AccessTargets;
  /** The stage's settings: the functions' environment, and the tasks' size. */
  readonly environment: Readonly<Record<string, string>>;
  readonly engineLayer: ILayerVersion;
}

export class EngineTasks extends Construct {
  readonly vpc: Vpc;
  readonly cluster: Cluster;
  readonly securityGroup: SecurityGroup;
  /** By worker name. */
  readonly taskDefinitions = new Map<string, FargateTaskDefinition>();
  /** The values of the Fargate branch's placeholders (infra/fargate-branch.ts). */
  readonly substitutions: Record<string, string> = {};

  constructor(scope: Construct, id: string, props: EngineTasksProps) {
    super(scope, id);
    const workers = props.workers.filter(runsOnFargate);
    assertTaskWorkers(TASK_WORKERS, workers);
    const size = engineTaskSize(props.environment);

    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: ENGINE_SUBNET_COUNT,
      natGateways: 0,
      // Nothing joins the default security group (tasks and endpoints have their own), so it
      // grants nothing; CDK's restriction of it is a custom-resource Lambda on another runtime
      // with an AWS managed policy, which the stage's least-privilege rules refuse.
      restrictDefaultSecurityGroup: false,
      subnetConfiguration: [{ name: 'engine', subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 20 }],
      flowLogs: {
        Rejected: {
          destination: FlowLogDestination.toCloudWatchLogs(
            new LogGroup(this, 'FlowLogs', { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.RETAIN }),
          ),
        },
      },
    });
    const subnets = { subnetType: SubnetType.PRIVATE_ISOLATED };
    this.vpc.addGatewayEndpoint('S3', { service: GatewayVpcEndpointAwsService.S3, subnets: [subnets] });
    this.vpc.addGatewayEndpoint('DynamoDb', { service: GatewayVpcEndpointAwsService.DYNAMODB, subnets: [subnets] });
    for (const [name, service] of [
      ['Kms', InterfaceVpcEndpointAwsService.KMS],
      ['StepFunctions', InterfaceVpcEndpointAwsService.STEP_FUNCTIONS],
      ['Lambda', InterfaceVpcEndpointAwsService.LAMBDA],
      ['Ecr', InterfaceVpcEndpointAwsService.ECR],
      ['EcrDocker', InterfaceVpcEndpointAwsService.ECR_DOCKER],
      ['Logs', InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS],
      // An import's completion hands its version to the schedules waiting for it (shared/schedules/new-version.ts).
      ['Scheduler', new InterfaceVpcEndpointAwsService('scheduler')],
      // No Athena or Glue: a run with a trino-sql node never runs on a task (shared/datasets/run-launch.ts).
    ] as const) {
      const endpoint = this.vpc.addInterfaceEndpoint(name, { service, subnets, privateDnsEnabled: true });
      Validations.of(endpoint).acknowledge({
        id: 'AwsSolutions::AwsSolutions-EC23',
        reason:
          'The endpoint admits HTTPS from the VPC’s own CIDR only (CDK’s default for interface endpoints); the rule cannot read the CIDR’s intrinsic.',
      });
    }
    // Outbound only: the subnets route nowhere but the VPC and its gateway endpoints.
    this.securityGroup = new SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: 'engine job tasks: no inbound; outbound to the VPC endpoints only (no route elsewhere)',
      allowAllOutbound: true,
    });
    this.cluster = new Cluster(this, 'Cluster', { vpc: this.vpc, containerInsightsV2: ContainerInsights.ENABLED });

    const cachePrefix = `ecr-public-${Names.uniqueId(this).slice(-8).toLowerCase()}`;
    new CfnPullThroughCacheRule(this, 'BaseImageCache', {
      ecrRepositoryPrefix: cachePrefix,
      upstreamRegistryUrl: TASK_BASE_IMAGE.registry,
    });
    const image = ContainerImage.fromRegistry(
      `${Aws.ACCOUNT_ID}.dkr.ecr.${Aws.REGION}.${Aws.URL_SUFFIX}/${cachePrefix}/${TASK_BASE_IMAGE.repository}:${TASK_BASE_IMAGE.tag}`,
    );
    const cachedRepositories = Arn.format(
      {
        service: 'ecr',
        resource: 'repository',
        resourceName: `${cachePrefix}/*`,
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      },
      Stack.of(this),
    );
    const bundle = new Asset(this, 'TaskBundle', {
      path: join(PROJECT_ROOT, 'functions', 'jobs'),
      assetHashType: AssetHashType.OUTPUT,
      // Local bundling only: the image is required by the API and never used.
      bundling: { image: RUNTIME.bundlingImage, local: { tryBundle: bundleTask } },
    });
    const command = bootstrapCode();

    this.substitutions.EngineClusterArn = this.cluster.clusterArn;
    this.substitutions.EngineSecurityGroupId = this.securityGroup.securityGroupId;
    this.vpc.isolatedSubnets.forEach(
      (subnet, index) => (this.substitutions[`EngineSubnet${index + 1}`] = subnet.subnetId),
    );

    for (const worker of workers) {
      const id = pascalCase(worker.name);
      const logGroup = new LogGroup(this, `${id}TaskLogs`, {
        retention: LOG_RETENTION,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      const taskRole = new Role(this, `${id}TaskRole`, {
        assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
        description: `worker ${worker.name} as a Fargate task: its declared access and its own code only`,
      });
      grantAccess(taskRole, worker.access, props.targets);
      taskRole.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'OwnCode',
          actions: ['s3:GetObject'],
          resources: [bundle.bucket.arnForObjects(bundle.s3ObjectKey)],
        }),
      );
      taskRole.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'EngineLayer',
          actions: ['lambda:GetLayerVersion'],
          resources: [props.engineLayer.layerVersionArn],
        }),
      );
      const executionRole = new Role(this, `${id}ExecutionRole`, {
        assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
        description: `worker ${worker.name}'s task: pulls the base image through the cache, writes its log group`,
      });
      executionRole.addToPrincipalPolicy(
        new PolicyStatement({ sid: 'EcrLogin', actions: ['ecr:GetAuthorizationToken'], resources: ['*'] }),
      );
      executionRole.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'PullThroughCache',
          actions: [
            'ecr:BatchGetImage',
            'ecr:GetDownloadUrlForLayer',
            'ecr:BatchCheckLayerAvailability',
            'ecr:BatchImportUpstreamImage',
            'ecr:CreateRepository',
          ],
          resources: [cachedRepositories],
        }),
      );
      executionRole.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'OwnLogGroup',
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: [logGroup.logGroupArn],
        }),
      );
      const definition = new FargateTaskDefinition(this, `${id}Task`, {
        cpu: size.vcpus * 1024,
        memoryLimitMiB: size.memoryMb,
        ephemeralStorageGiB: size.storageGib,
        runtimePlatform: { cpuArchitecture: CpuArchitecture.ARM64, operatingSystemFamily: OperatingSystemFamily.LINUX },
        taskRole,
        executionRole,
      });
      definition.addContainer(TASK_CONTAINER, {
        containerName: TASK_CONTAINER,
        image,
        essential: true,
        entryPoint: [
          IMAGE_NODE,
          `--max-old-space-size=${Math.floor(size.memoryMb * HEAP_SHARE)}`,
          '--enable-source-maps',
          '--input-type=module',
          '-e',
          command,
        ],
        workingDirectory: IMAGE_RUNTIME,
        environment: {
          ...resourceEnvironment(worker.access, props.targets),
          ...props.environment,
          [JOB_WORKER_VARIABLE]: worker.name,
          [RUNS_ON_VARIABLE]: 'fargate',
          [TASK_MEMORY_VARIABLE]: String(size.memoryMb),
          [TASK_STORAGE_VARIABLE]: String(size.storageGib * 1024),
          WORK_DIRECTORY: '/tmp',
          [BOOTSTRAP_VARIABLES.bundleBucket]: bundle.s3BucketName,
          [BOOTSTRAP_VARIABLES.bundleKey]: bundle.s3ObjectKey,
          [BOOTSTRAP_VARIABLES.layerArn]: props.engineLayer.layerVersionArn,
        },
        logging: LogDriver.awsLogs({ streamPrefix: worker.name, logGroup }),
      });
      Validations.of(executionRole).acknowledge(
        {
          id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
          reason:
            'ecr:GetAuthorizationToken has no resource-level permissions; every pull is limited to the cache’s repositories.',
        },
        {
          id: `AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ecr:<AWS::Region>:<AWS::AccountId>:repository/${cachePrefix}/*]`,
          reason:
            'The repositories the pull-through cache creates under its prefix, on the first pull of each image: their names exist only then.',
        },
      );
      Validations.of(definition).acknowledge({
        id: 'AwsSolutions::AwsSolutions-ECS2',
        reason:
          'The variables name resources and settings, as the Lambda workers’ do; no secret is among them (connection secrets are sealed in the table).',
      });
      this.taskDefinitions.set(worker.name, definition);
      this.substitutions[taskDefinitionPlaceholder(worker)] = definition.taskDefinitionArn;
    }
  }

  /** The cdk-nag finding of the task ARNs a machine may follow and stop: the cluster's tasks, `task/<cluster>/*`. */
  get taskWildcardFinding(): string {
    const cluster = Stack.of(this).getLogicalId(this.cluster.node.defaultChild as CfnElement);
    return `AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ecs:<AWS::Region>:<AWS::AccountId>:task/<${cluster}>/*]`;
  }

  /** What a state machine's role needs to run `worker`'s task and follow it (ecs:runTask.sync). */
  runStatements(worker: WorkerSpec): PolicyStatement[] {
    const definition = this.taskDefinitions.get(worker.name)!;
    const stack = Stack.of(this);
    return [
      new PolicyStatement({
        sid: 'RunOwnTask',
        actions: ['ecs:RunTask'],
        resources: [definition.taskDefinitionArn],
        conditions: { ArnEquals: { 'ecs:cluster': this.cluster.clusterArn } },
      }),
      new PolicyStatement({
        sid: 'FollowAndStopTasks',
        actions: ['ecs:StopTask', 'ecs:DescribeTasks'],
        resources: [
          Arn.format(
            {
              service: 'ecs',
              resource: 'task',
              resourceName: `${this.cluster.clusterName}/*`,
              arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
            },
            stack,
          ),
        ],
      }),
      new PolicyStatement({
        sid: 'PassTaskRoles',
        actions: ['iam:PassRole'],
        resources: [definition.taskRole.roleArn, definition.executionRole!.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
      }),
      new PolicyStatement({
        sid: 'TaskEvents',
        actions: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
        resources: [
          Arn.format(
            { service: 'events', resource: 'rule', resourceName: 'StepFunctionsGetEventsForECSTaskRule' },
            stack,
          ),
        ],
      }),
    ];
  }
}
