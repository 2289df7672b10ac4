/**
 * The stage as `cdk synth -c stage=...` builds it from the real route table: API, functions,
 * storage, keys and least-privilege IAM. Synthesized once (with cdk-nag) for the whole file.
 */
import { SWEEP_HANDLER } from '../../infra/stacks/retention-stack';
import { SCHEDULER_LIST_ACTION } from '../../infra/stacks/schedule-access';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZER_HANDLER, FALLBACK_HANDLER, routes } from '../../functions/routes';
import { jobs, workersOf } from '../../functions/jobs';
import { API_BASE_PATH } from '../../shared/config';
import {
  apiRoutes,
  apiRoutesFor,
  declaredFunctions,
  expectDeclaredAccess,
  integratedFunction,
  isTableKeyThroughDynamoDb,
  isTracingGrant,
  routeFunction,
  TRACING_ACTIONS,
  tracingGrants,
} from './api-support';
import { actionsOnTarget, asTarget, DYNAMODB_READ, DYNAMODB_WRITE } from './grants';
import { at, maybeAt, stringAt } from './json';
import {
  actionsOf,
  functionOf,
  grants,
  propertiesOf,
  resourceOf,
  resourcesOfType,
  rootKeys,
  sameTarget,
  synthesize,
  SYNTH_TIMEOUT_MS,
  targetOf,
  type SynthesizedStage,
} from './synth';
import { cdkNagChecks } from './cdk-nag-checks';
import { monitoringChecks } from './monitoring-checks';

/** The deployed workers: each job's, then the failure recorder. */
const workers = workersOf(jobs);

let stage: SynthesizedStage;
let keys: ReturnType<typeof rootKeys>;

beforeAll(() => {
  // Not bundled: bundling is most of a synthesis, and CDK does it synchronously, so it would hold
  // this test process away from vitest for longer than vitest's 60 s RPC timeout on a loaded
  // machine. job-machines.test.ts reads the bundles as deployed; bundles.test.ts measures each.
  // CloudFormation's rules run here once over the whole stage; an error fails the synthesis (synth.ts).
  stage = synthesize({ stage: 'test', nag: true, bundle: false, cloudFormationRules: true });
  keys = rootKeys(stage);
}, SYNTH_TIMEOUT_MS);
afterAll(() => stage?.close());

describe('API routes', () => {
  it('the route table is not empty and has public and protected routes', () => {
    expect(routes.length).toBeGreaterThan(5);
    expect(routes.some((route) => route.permission === null)).toBe(true);
    expect(routes.some((route) => route.permission !== null)).toBe(true);
  });

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s has exactly one function and one API route to it',
    (_, route) => {
      const fn = routeFunction(stage, route);
      const matching = apiRoutesFor(stage, route);
      expect(matching).toHaveLength(1);
      expect(sameTarget(integratedFunction(matching[0]!), asTarget(fn))).toBe(true);
      // The route lives in its domain's nested stack.
      expect(fn.view.name).toBe(
        `${route.tag.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase())}Routes`,
      );
    },
  );

  it('has no API route the route table does not declare, besides $default', () => {
    const declared = new Set(routes.map((route) => `${route.method} ${API_BASE_PATH}${route.path}`));
    const keys = apiRoutes(stage).map(({ resource }) => stringAt(resource, 'Properties', 'RouteKey'));
    expect(keys.filter((key) => !declared.has(key))).toEqual(['$default']);
    expect(keys).toHaveLength(routes.length + 1);
  });

  it('protected routes run the authorizer; public routes (permission null) do not', () => {
    const authorizers = Object.keys(stage.root.template.findResources('AWS::ApiGatewayV2::Authorizer'));
    expect(authorizers).toHaveLength(1);
    const authorizerId = authorizers[0];
    for (const route of routes) {
      const [apiRoute] = apiRoutesFor(stage, route);
      const properties = propertiesOf(apiRoute!.resource);
      if (route.permission === null) {
        expect(properties.AuthorizationType ?? 'NONE', route.operationId).toBe('NONE');
        expect(properties.AuthorizerId, route.operationId).toBeUndefined();
      } else {
        expect(properties.AuthorizationType, route.operationId).toBe('CUSTOM');
        expect(targetOf(apiRoute!.view, properties.AuthorizerId)?.logicalId, route.operationId).toBe(authorizerId);
      }
    }
  });

  it('the admin plane: every /admin/ route requires platform:admin, in a nested stack of its own behind the authorizer', () => {
    const admin = routes.filter((route) => route.path.startsWith('/admin/'));
    expect(admin.map((route) => route.operationId)).toEqual(
      expect.arrayContaining(['listFeatureToggles', 'createTenant']),
    );
    expect(routes.filter((route) => route.permission === 'platform:admin')).toEqual(admin);
    const adminStack = stage.nested.find((view) => view.name === 'AdminRoutes');
    expect(adminStack).toBeDefined();
    for (const route of admin) {
      expect(route.tag, route.operationId).toBe('admin');
      const apiRoute = apiRoutesFor(stage, route)[0];
      expect(apiRoute?.view, route.operationId).toBe(adminStack);
      expect(propertiesOf(apiRoute!.resource).AuthorizationType, route.operationId).toBe('CUSTOM');
    }
  });

  it('the authorizer is a REQUEST (Lambda) authorizer with simple responses, no identity source and no caching', () => {
    const authorizers = resourcesOfType(stage.root, 'AWS::ApiGatewayV2::Authorizer');
    expect(authorizers).toHaveLength(1);
    const properties = propertiesOf(authorizers[0]![1]);
    expect(properties).toMatchObject({
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      AuthorizerResultTtlInSeconds: 0,
    });
    expect(properties.IdentitySource).toBeUndefined();
    const uri = JSON.stringify(properties.AuthorizerUri);
    const authorizer = functionOf(stage, AUTHORIZER_HANDLER);
    expect(uri).toContain(`"${authorizer.logicalId}"`);
    // API Gateway may invoke it, only as this API's authorizer.
    stage.root.template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [authorizer.logicalId, 'Arn'] },
      SourceArn: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/authorizers/')])] },
    });
  });

  it('the $default route sends unmatched requests to the fallback function without the authorizer', () => {
    const defaults = apiRoutes(stage).filter(({ resource }) => propertiesOf(resource).RouteKey === '$default');
    expect(defaults).toHaveLength(1);
    expect(propertiesOf(defaults[0]!.resource).AuthorizationType ?? 'NONE').toBe('NONE');
    expect(sameTarget(integratedFunction(defaults[0]!), asTarget(functionOf(stage, FALLBACK_HANDLER)))).toBe(true);
  });

  it('has a $default stage with auto deploy and JSON access logs', () => {
    stage.root.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context.requestId') },
    });
  });

  it('outputs the API URL under the base path', () => {
    const outputs = stage.root.template.findOutputs('ApiUrl');
    expect(JSON.stringify(outputs.ApiUrl?.Value)).toContain(API_BASE_PATH);
    expect(JSON.stringify(outputs.ApiUrl?.Value)).toContain('ApiEndpoint');
  });
});

describe('functions', () => {
  it('one per route and per job worker, plus the authorizer, the fallback, the retention sweep and the schedules’ tick', () => {
    expect(stage.functions).toHaveLength(routes.length + workers.length + 4);
  });

  it('all run nodejs22.x on arm64 with source maps enabled and a log group of their own', () => {
    const logGroups = new Set<string>();
    for (const fn of stage.functions) {
      expect(fn.properties.Runtime, fn.description).toBe('nodejs22.x');
      expect(fn.properties.Architectures, fn.description).toEqual(['arm64']);
      // A declared entity's module exports one handler per route (shared/http/handler-ref.ts).
      const exported = /#(\w+)\)$/.exec(fn.description)?.[1] ?? 'handler';
      expect(fn.properties.Handler, fn.description).toBe(`index.${exported}`);
      expect(fn.environment.NODE_OPTIONS).toBe('--enable-source-maps');
      expect(fn.environment.POWERTOOLS_SERVICE_NAME).toBe('data-preparation');
      const logGroup = targetOf(fn.view, at(fn.properties, 'LoggingConfig', 'LogGroup'))!;
      expect(resourceOf(logGroup).Type).toBe('AWS::Logs::LogGroup');
      logGroups.add(`${logGroup.view.name}/${logGroup.logicalId}`);
    }
    expect(logGroups.size).toBe(stage.functions.length);
  });
});

describe('storage and keys', () => {
  it('the table: pk/sk strings, on demand, PITR, customer-managed KMS key, TTL on expires_at, retained', () => {
    const tables = resourcesOfType(stage.root, 'AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    const [, table] = tables[0]!;
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: expect.arrayContaining([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ]),
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
    });
    expect(propertiesOf(resourceOf(keys.table)).EnableKeyRotation).toBe(true);
  });

  it('the data bucket: KMS encryption, versioned, public access blocked, retained, TLS only', () => {
    const [, bucket] = resourcesOfType(stage.root, 'AWS::S3::Bucket').find(([, resource]) =>
      JSON.stringify(propertiesOf(resource).BucketEncryption).includes('aws:kms'),
    )!;
    const properties = propertiesOf(bucket);
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(
      at(
        properties,
        'BucketEncryption',
        'ServerSideEncryptionConfiguration',
        0,
        'ServerSideEncryptionByDefault',
        'SSEAlgorithm',
      ),
    ).toBe('aws:kms');
    expect(propertiesOf(resourceOf(keys.bucket)).EnableKeyRotation).toBe(true);
    expect(properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(maybeAt(properties, 'LoggingConfiguration', 'DestinationBucketName')).toBeDefined();
  });

  it('every bucket denies requests without TLS', () => {
    const buckets = resourcesOfType(stage.root, 'AWS::S3::Bucket').map(([logicalId]) => logicalId);
    expect(buckets.length).toBeGreaterThan(0);
    for (const bucket of buckets) {
      const policies = resourcesOfType(stage.root, 'AWS::S3::BucketPolicy').filter(
        ([, policy]) => at(policy, 'Properties', 'Bucket', 'Ref') === bucket,
      );
      expect(policies, bucket).toHaveLength(1);
      expect(at(policies[0]![1], 'Properties', 'PolicyDocument', 'Statement')).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Principal: { AWS: '*' },
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
  });

  it('the data key is a symmetric key with rotation; the signing key is ECC_NIST_P256 SIGN_VERIFY', () => {
    const data = propertiesOf(resourceOf(keys.data));
    expect(data.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect(data.KeyUsage ?? 'ENCRYPT_DECRYPT').toBe('ENCRYPT_DECRYPT');
    expect(data.EnableKeyRotation).toBe(true);
    expect(resourceOf(keys.signing).Properties).toMatchObject({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
    for (const key of Object.values(keys)) expect(resourceOf(key).DeletionPolicy).toBe('Retain');
  });
});

describe('least privilege', () => {
  it('no function role has an AWS managed policy; each may write only to its own log group', () => {
    for (const fn of stage.functions) {
      expect(propertiesOf(fn.role).ManagedPolicyArns, fn.description).toBeUndefined();
      const logGrants = grants(fn).filter((grant) => grant.action.startsWith('logs:'));
      expect(new Set(logGrants.map((grant) => grant.action))).toEqual(
        new Set(['logs:CreateLogStream', 'logs:PutLogEvents']),
      );
      const ownLogGroup = targetOf(fn.view, at(fn.properties, 'LoggingConfig', 'LogGroup'));
      for (const grant of logGrants) expect(sameTarget(grant.target, ownLogGroup), fn.description).toBe(true);
    }
  });

  it('no statement allows a wildcard action or resource, but tracing (X-Ray grants on * only) and the sweep’s listing of schedules', () => {
    const sweep = functionOf(stage, SWEEP_HANDLER);
    for (const fn of stage.functions) {
      for (const grant of grants(fn)) {
        expect(grant.action, fn.description).not.toContain('*');
        const listsSchedules = grant.action === SCHEDULER_LIST_ACTION && fn.logicalId === sweep.logicalId;
        if (!isTracingGrant(grant) && !listsSchedules) expect(grant.resource, fn.description).not.toBe('*');
      }
      expect(tracingGrants(fn), fn.description).toEqual(TRACING_ACTIONS);
    }
  });

  it.each(declaredFunctions(workers))('%s gets exactly what its access declares', (_, access, find) => {
    expectDeclaredAccess(stage, keys, find(stage), access);
  });

  it('connections/get reads the table and has no write and no KMS key of its own', () => {
    const fn = functionOf(stage, 'connections/entity#get');
    const actions = actionsOf(fn);
    expect(actions).toContain('dynamodb:GetItem');
    expect(actions).toContain('dynamodb:Query');
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'])
      expect(actions).not.toContain(action);
    expect(actionsOnTarget(fn, keys.data)).toEqual([]);
    expect(actionsOnTarget(fn, keys.signing)).toEqual([]);
    // Its only KMS use is DynamoDB decrypting the table on its behalf.
    const kms = grants(fn).filter((grant) => grant.action.startsWith('kms:'));
    expect(kms.every((grant) => isTableKeyThroughDynamoDb(grant, keys))).toBe(true);
    expect(new Set(kms.map((grant) => grant.action))).toEqual(new Set(['kms:Decrypt', 'kms:DescribeKey']));
  });

  it('connections/test-stored may decrypt data keys but not generate them', () => {
    const fn = functionOf(stage, 'connections/test-stored');
    expect(actionsOnTarget(fn, keys.data)).toEqual(['kms:Decrypt']);
    expect(actionsOf(fn)).not.toContain('kms:GenerateDataKey');
    // Only with a tenant in the encryption context.
    const grant = grants(fn).find((candidate) => sameTarget(candidate.target, keys.data))!;
    expect(grant.condition).toEqual({ Null: { 'kms:EncryptionContext:tenant_id': 'false' } });
  });

  it('connections/create generates data keys and cannot decrypt them', () => {
    const fn = functionOf(stage, 'connections/create');
    expect(actionsOnTarget(fn, keys.data)).toEqual(['kms:GenerateDataKey']);
    expect(actionsOf(fn)).toContain('dynamodb:PutItem');
  });

  it('auth/token signs with the signing key (ES256 only) and cannot read its public key', () => {
    const fn = functionOf(stage, 'auth/token');
    expect(actionsOnTarget(fn, keys.signing)).toEqual(['kms:Sign']);
    const grant = grants(fn).find((candidate) => candidate.action === 'kms:Sign')!;
    expect(grant.condition).toEqual({ StringEquals: { 'kms:SigningAlgorithm': 'ECDSA_SHA_256' } });
    expect(fn.environment.SIGNING_KEY_ID).toBeDefined();
  });

  it('the authorizer may only read the public key and read the table (is the client still there?)', () => {
    const fn = functionOf(stage, AUTHORIZER_HANDLER);
    expect(actionsOnTarget(fn, keys.signing)).toEqual(['kms:GetPublicKey']);
    const actions = actionsOf(fn);
    for (const action of DYNAMODB_READ) expect(actions).toContain(action);
    for (const action of DYNAMODB_WRITE) expect(actions).not.toContain(action);
    // Its only other KMS use is DynamoDB decrypting the table on its behalf.
    const kms = grants(fn).filter(
      (grant) => grant.action.startsWith('kms:') && !sameTarget(grant.target, keys.signing),
    );
    expect(kms.every((grant) => isTableKeyThroughDynamoDb(grant, keys))).toBe(true);
    expect(Object.keys(fn.environment).sort()).toEqual([
      'NODE_OPTIONS',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_SERVICE_NAME',
      'SIGNING_KEY_ID',
      'TABLE_NAME',
    ]);
  });

  it.each(['meta/openapi', 'connections/test', FALLBACK_HANDLER])('%s has no DynamoDB or KMS access', (handler) => {
    const fn = functionOf(stage, handler, (candidate) => !candidate.description.startsWith('worker '));
    const actions = [...actionsOf(fn)];
    expect(actions.filter((action) => action.startsWith('dynamodb:') || action.startsWith('kms:'))).toEqual([]);
    expect(actions.sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents', ...TRACING_ACTIONS]);
  });
});

cdkNagChecks(() => stage);
monitoringChecks(() => stage);
