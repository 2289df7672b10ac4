import * as z from 'zod';
import { printableAscii, withoutControls } from './text-rules';

/**
 * The auth variants of connections (spec 2.4): each one's fields, and which one is the
 * write-only secret. Connection types (connection.ts) allow some of them each; every auth
 * schema of a request or a response is derived from this table.
 */
const text = (max: number) => z.string().trim().min(1).max(max);
const secret = (max: number) => z.string().min(1).max(max);
export const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();

/**
 * An access key id: AWS documents 16–128 word characters; S3-compatible stores use shorter
 * ones (MinIO from 3, the local twin's s3rver "S3RVER") and lower case (Cloudflare R2, B2).
 */
/** An access key id as S3-compatible stores hand them out; it travels in a request header, so ASCII only. */
export const AccessKeyId = z
  .string()
  .trim()
  .min(3)
  .max(128)
  .regex(/^[A-Za-z0-9._-]*$/, 'must contain only letters A-Z and a-z, digits, ".", "_" and "-"');

export interface AuthVariant<R extends z.ZodObject, U extends z.ZodObject, P extends z.ZodObject> {
  /** The one write-only field of the variant. */
  readonly secretField: string;
  /** Create and test: every required field, the secret included. */
  readonly request: R;
  /** Full update: the secret may be omitted to keep the stored one. */
  readonly update: U;
  /** Responses never carry the secret. */
  readonly response: P;
}

const authVariant = <R extends z.ZodObject, U extends z.ZodObject, P extends z.ZodObject>(
  secretField: string,
  request: R,
  update: U,
  response: P,
): AuthVariant<R, U, P> => ({
  secretField,
  request,
  update,
  response,
});

const ServiceAccountKey = z.strictObject({
  auth_type: z.literal('service_account_key'),
  file_name: optionalText(255),
  service_account_key_json: z
    .string()
    .max(65_536)
    .describe('Service-account key file content (JSON); the project is taken from it'),
});
const WorkloadIdentity = z.strictObject({
  auth_type: z.literal('workload_identity'),
  client_id: printableAscii(text(1024)),
  client_secret: printableAscii(secret(4096)),
  token_url: text(2048),
  scope: printableAscii(text(1024)),
  service_account_email: z.email().max(320),
  audience: withoutControls(text(2048)),
  project_id: withoutControls(text(128)),
});
const SecretKey = z.strictObject({
  auth_type: z.literal('secret_key'),
  access_key_id: AccessKeyId,
  secret_access_key: printableAscii(secret(1024)),
  endpoint: text(2048).describe('HTTPS URL of an S3-compatible service'),
});
const Password = z.strictObject({
  auth_type: z.literal('password'),
  username: withoutControls(text(255)),
  password: withoutControls(secret(1024)),
  host: text(255),
});
const OAuthClientCredentials = z.strictObject({
  auth_type: z.literal('oauth_client_credentials'),
  token_url: text(2048),
  client_id: printableAscii(text(1024)),
  client_secret: printableAscii(secret(4096)),
  scope: printableAscii(text(1024)),
  host: text(2048),
});
const DeltaSharingProfile = z.strictObject({
  auth_type: z.literal('delta_sharing_profile'),
  delta_sharing_profile_name: optionalText(255),
  delta_sharing_profile_content: z.string().max(65_536).describe('Delta Sharing profile file content (JSON)'),
});
const PrivateKeyJwt = z.strictObject({
  auth_type: z.literal('private_key_jwt'),
  token_url: text(2048),
  client_id: printableAscii(text(1024)),
  private_key: z.string().max(16_384).describe('RSA private key, PEM'),
  kid: withoutControls(text(255)),
  scope: printableAscii(z.string().trim().max(1024)).nullable().optional(),
  host: text(2048),
});

const responseOf = <S extends z.ZodRawShape>(schema: z.ZodObject<S>) => z.object(schema.shape);

export const AUTH_VARIANTS = {
  service_account_key: authVariant(
    'service_account_key_json',
    ServiceAccountKey,
    ServiceAccountKey.partial({ service_account_key_json: true }),
    responseOf(ServiceAccountKey).omit({ service_account_key_json: true }),
  ),
  workload_identity: authVariant(
    'client_secret',
    WorkloadIdentity,
    WorkloadIdentity.partial({ client_secret: true }),
    responseOf(WorkloadIdentity).omit({ client_secret: true }),
  ),
  secret_key: authVariant(
    'secret_access_key',
    SecretKey,
    SecretKey.partial({ secret_access_key: true }),
    responseOf(SecretKey).omit({ secret_access_key: true }),
  ),
  password: authVariant(
    'password',
    Password,
    Password.partial({ password: true }),
    responseOf(Password).omit({ password: true }),
  ),
  oauth_client_credentials: authVariant(
    'client_secret',
    OAuthClientCredentials,
    OAuthClientCredentials.partial({ client_secret: true }),
    responseOf(OAuthClientCredentials).omit({ client_secret: true }),
  ),
  delta_sharing_profile: authVariant(
    'delta_sharing_profile_content',
    DeltaSharingProfile,
    DeltaSharingProfile.partial({ delta_sharing_profile_content: true }),
    responseOf(DeltaSharingProfile)
      .omit({ delta_sharing_profile_content: true })
      .extend({
        delta_sharing_profile_content_redacted: z
          .string()
          .describe('The profile with every credential replaced by a redaction mark'),
      }),
  ),
  private_key_jwt: authVariant(
    'private_key',
    PrivateKeyJwt,
    PrivateKeyJwt.partial({ private_key: true }),
    responseOf(PrivateKeyJwt).omit({ private_key: true }),
  ),
};
export type AuthType = keyof typeof AUTH_VARIANTS;
export const AUTH_TYPES = Object.keys(AUTH_VARIANTS) as AuthType[];
