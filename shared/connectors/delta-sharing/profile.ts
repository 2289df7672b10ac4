import { AppError } from '../../errors/app-error';
import { serviceUrl } from '../endpoint';

/**
 * Delta Sharing profile files (delta-io PROTOCOL.md). Version 1: endpoint, bearerToken,
 * expirationTime?. Version 2: type bearer_token (as version 1) or oauth_client_credentials
 * (tokenEndpoint, clientId, clientSecret, scope?).
 */
export interface DeltaSharingProfile {
  readonly version: 1 | 2;
  readonly endpoint: string;
  readonly credentials: DeltaSharingCredentials;
  /** The profile with every credential replaced, safe to show (spec 2.4). */
  readonly redacted: string;
}

/** How a recipient authenticates: a bearer token of the profile, or one from an OAuth token endpoint. */
export type DeltaSharingCredentials =
  | { readonly type: 'bearer_token'; readonly bearerToken: string; readonly expirationTime: string | undefined }
  | {
      readonly type: 'oauth_client_credentials';
      readonly tokenEndpoint: string;
      readonly clientId: string;
      readonly clientSecret: string;
      readonly scope: string | undefined;
    };

export const REDACTION_MARK = '********';
const CREDENTIAL_FIELDS = ['bearerToken', 'clientSecret'];
const OAUTH_FIELDS = ['tokenEndpoint', 'clientId', 'clientSecret'];

const isBlank = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function schemaError(rule: string): AppError {
  return new AppError('30-3021', { extraDetails: { 'auth.delta_sharing_profile_content': rule } });
}

/** Parses and checks a profile file (30-3002..30-3004, 30-3008, 30-3009, 30-3014..30-3016, 30-3018, 30-3021). */
export function parseDeltaSharingProfile(content: string): DeltaSharingProfile {
  if (content.trim() === '') throw new AppError('30-3018');
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new AppError('30-3002');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw schemaError('must be a JSON object');
  const profile = parsed as Record<string, unknown>;
  for (const [field, value] of Object.entries(profile)) {
    if (
      value !== null &&
      typeof value !== 'string' &&
      !(field === 'shareCredentialsVersion' && typeof value === 'number')
    ) {
      throw schemaError(`field ${field} must be a string`);
    }
  }

  const version = profile.shareCredentialsVersion;
  if (version === undefined || version === null) throw new AppError('30-3014');
  if (version !== 1 && version !== 2) throw new AppError('30-3016', { params: [JSON.stringify(version)] });

  if (isBlank(profile.endpoint)) throw new AppError('30-3008');
  const endpoint = String(profile.endpoint);
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol))
    throw new AppError('30-3004', { params: [endpoint] });
  // The bearer token travels to this endpoint: https only, and never to a forbidden host.
  serviceUrl(endpoint, 'auth.delta_sharing_profile_content.endpoint');

  const type = version === 1 ? 'bearer_token' : profile.type;
  const text = (field: string) => (isBlank(profile[field]) ? undefined : String(profile[field]));
  let credentials: DeltaSharingCredentials;
  if (type === 'bearer_token') {
    if (isBlank(profile.bearerToken)) throw new AppError('30-3009');
    if (!isBlank(profile.expirationTime) && Number.isNaN(Date.parse(String(profile.expirationTime)))) {
      throw new AppError('30-3003', { params: [String(profile.expirationTime)] });
    }
    credentials = { type, bearerToken: String(profile.bearerToken), expirationTime: text('expirationTime') };
  } else if (type === 'oauth_client_credentials') {
    const missing = OAUTH_FIELDS.filter((field) => isBlank(profile[field]));
    if (missing.length > 0) throw new AppError('30-3015', { params: [missing.join(', ')] });
    credentials = {
      type,
      tokenEndpoint: String(profile.tokenEndpoint),
      clientId: String(profile.clientId),
      clientSecret: String(profile.clientSecret),
      scope: text('scope'),
    };
  } else {
    throw schemaError('type must be bearer_token or oauth_client_credentials for shareCredentialsVersion 2');
  }

  const redacted = Object.fromEntries(
    Object.entries(profile).map(([field, value]) => [
      field,
      CREDENTIAL_FIELDS.includes(field) && !isBlank(value) ? REDACTION_MARK : value,
    ]),
  );
  return { version, endpoint, credentials, redacted: JSON.stringify(redacted) };
}
