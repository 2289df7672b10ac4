/**
 * Valid connection requests of every type and auth variant, and the secrets each carries, so
 * tests can create them all and scan every response for every secret.
 */
import { generateKeyPairSync } from 'node:crypto';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';
import type { ConnectionCreateRequest } from '../../shared/model/connection';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
export const RSA_PRIVATE_KEY_PEM = rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

export function serviceAccountKeyJson(projectId = 'acme-analytics', secretMarker = 'sa-key'): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: projectId,
    private_key_id: `${secretMarker}-id`,
    private_key: RSA_PRIVATE_KEY_PEM,
    client_email: `loader@${projectId}.iam.gserviceaccount.com`,
    client_id: '1234567890',
    token_uri: 'https://oauth2.googleapis.com/token',
  });
}

export function deltaSharingProfile(bearerToken: string): string {
  return JSON.stringify({
    shareCredentialsVersion: 1,
    endpoint: 'https://sharing.example.com/delta-sharing/',
    bearerToken,
    expirationTime: '2030-01-01T00:00:00Z',
  });
}

/** A create request without its name, which connectionCases makes unique. */
type Unnamed<T> = T extends unknown ? Omit<T, 'name'> : never;

export interface ConnectionCase {
  /** type/auth_type */
  readonly label: string;
  readonly request: ConnectionCreateRequest;
  /** Every secret value the request carries; none may ever appear in a response. */
  readonly secrets: readonly string[];
}

/** One valid create request per type and auth variant; `s3Endpoint` is the twin's S3. */
export function connectionCases(s3Endpoint: string, suffix = ''): ConnectionCase[] {
  const mark = (name: string) => `${name}-SECRET-${suffix}-${Math.random().toString(36).slice(2, 10)}`;
  const cases: ConnectionCase[] = [];
  const add = (label: string, request: Unnamed<ConnectionCreateRequest>, secrets: string[]) =>
    cases.push({ label, request: { name: `${label}${suffix}`, ...request }, secrets });

  const s3Secret = mark('s3');
  add(
    'object_store/secret_key',
    {
      type: 'object_store',
      auth: { auth_type: 'secret_key', access_key_id: 'S3RVER', secret_access_key: s3Secret, endpoint: s3Endpoint },
      path_restriction: 'demo/sales/',
    },
    [s3Secret],
  );

  const saKey = serviceAccountKeyJson('acme-analytics', mark('sa'));
  add(
    'cloud_store/service_account_key',
    {
      type: 'cloud_store',
      auth: { auth_type: 'service_account_key', file_name: 'key.json', service_account_key_json: saKey },
      path_restriction: 'acme_raw/landing/',
    },
    [saKey, RSA_PRIVATE_KEY_PEM],
  );

  const wiSecret = mark('wi');
  add(
    'cloud_store/workload_identity',
    {
      type: 'cloud_store',
      auth: {
        auth_type: 'workload_identity',
        client_id: 'wi-client',
        client_secret: wiSecret,
        token_url: 'https://sts.example.com/v1/token',
        scope: 'https://www.googleapis.com/auth/cloud-platform',
        service_account_email: 'loader@acme-analytics.iam.gserviceaccount.com',
        audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x',
        project_id: 'acme-analytics',
      },
    },
    [wiSecret],
  );

  const analyticsKey = serviceAccountKeyJson('acme-bi', mark('bq'));
  add(
    'analytics_db/service_account_key',
    {
      type: 'analytics_db',
      auth: { auth_type: 'service_account_key', service_account_key_json: analyticsKey },
      dataset_id: 'sales',
    },
    [analyticsKey, RSA_PRIVATE_KEY_PEM],
  );

  const analyticsWi = mark('bqwi');
  add(
    'analytics_db/workload_identity',
    {
      type: 'analytics_db',
      auth: {
        auth_type: 'workload_identity',
        client_id: 'bq-client',
        client_secret: analyticsWi,
        token_url: 'https://sts.example.com/v1/token',
        scope: 'bigquery',
        service_account_email: 'bq@acme-bi.iam.gserviceaccount.com',
        audience: 'aud',
        project_id: 'acme-bi',
      },
    },
    [analyticsWi],
  );

  const password = mark('pw');
  add(
    'warehouse/password',
    {
      type: 'warehouse',
      // The warehouse connector calls the host when a test tests the connection: .invalid (RFC
      // 2606) never resolves, so no test reaches a real account.
      auth: {
        auth_type: 'password',
        username: 'loader',
        password,
        host: 'xy12345.eu-west-1.snowflakecomputing.invalid',
      },
      database: 'SALES',
      schema: 'PUBLIC',
      warehouse: 'COMPUTE_WH',
    },
    [password],
  );

  const warehouseOauth = mark('whoauth');
  add(
    'warehouse/oauth_client_credentials',
    {
      type: 'warehouse',
      auth: {
        auth_type: 'oauth_client_credentials',
        token_url: 'https://idp.example.invalid/oauth/token',
        client_id: 'wh',
        client_secret: warehouseOauth,
        scope: 'session:role:loader',
        host: 'xy12345.snowflakecomputing.invalid',
      },
    },
    [warehouseOauth],
  );

  const bearer = mark('bearer');
  const profile = deltaSharingProfile(bearer);
  add(
    'delta_sharing/delta_sharing_profile',
    {
      type: 'delta_sharing',
      auth: {
        auth_type: 'delta_sharing_profile',
        delta_sharing_profile_name: 'partner.share',
        delta_sharing_profile_content: profile,
      },
    },
    [bearer, profile],
  );

  const dimSecret = mark('dim');
  add(
    'pricing_dim/oauth_client_credentials',
    {
      type: 'pricing_dim',
      auth: {
        auth_type: 'oauth_client_credentials',
        token_url: 'https://idp.example.com/token',
        client_id: 'dim',
        client_secret: dimSecret,
        scope: 'pricing',
        host: 'https://pricing.example.com',
      },
    },
    [dimSecret],
  );

  add(
    'pricing_sdk/private_key_jwt',
    {
      type: 'pricing_sdk',
      auth: {
        auth_type: 'private_key_jwt',
        token_url: 'https://idp.example.com/token',
        client_id: 'sdk',
        private_key: RSA_PRIVATE_KEY_PEM,
        kid: 'key-1',
        scope: 'pricing',
        host: 'pricing.example.com',
      },
      service_key: 'svc-1',
    },
    [RSA_PRIVATE_KEY_PEM],
  );
  return cases;
}

/** An object-store connection to the twin's own S3 (`endpoint`), restricted to `bucket`. */
export function localObjectStore(name: string, endpoint: string, bucket: string) {
  return {
    name,
    type: 'object_store' as const,
    auth: {
      auth_type: 'secret_key' as const,
      access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
      secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
      endpoint,
    },
    path_restriction: `${bucket}/`,
  };
}
