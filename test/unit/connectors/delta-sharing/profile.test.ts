import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors/app-error';
import { REDACTION_MARK, parseDeltaSharingProfile } from '../../../../shared/connectors/delta-sharing/profile';

const TOKEN = 'dapi-0123456789abcdef-SECRET-TOKEN';
const CLIENT_SECRET = 'oauth-client-secret-SECRET-42';

const v1 = {
  shareCredentialsVersion: 1,
  endpoint: 'https://sharing.example.com/delta-sharing/',
  bearerToken: TOKEN,
  expirationTime: '2030-01-01T00:00:00.0Z',
};
const v2Oauth = {
  shareCredentialsVersion: 2,
  type: 'oauth_client_credentials',
  endpoint: 'https://sharing.example.com/delta-sharing/',
  tokenEndpoint: 'https://login.example.com/oauth2/token',
  clientId: 'client-1',
  clientSecret: CLIENT_SECRET,
  scope: 'sharing',
};

function refusal(content: string): AppError {
  try {
    parseDeltaSharingProfile(content);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error(`expected ${content} to be refused`);
}

const profile = (fields: Record<string, unknown>) => JSON.stringify(fields);

describe('parseDeltaSharingProfile: valid profiles', () => {
  it('accepts a version 1 profile', () => {
    const parsed = parseDeltaSharingProfile(profile(v1));
    expect(parsed.version).toBe(1);
    expect(parsed.endpoint).toBe('https://sharing.example.com/delta-sharing/');
  });

  it('accepts a version 1 profile without expirationTime', () => {
    const { expirationTime: _omitted, ...rest } = v1;
    expect(parseDeltaSharingProfile(profile(rest)).version).toBe(1);
  });

  it('accepts a version 2 bearer token profile', () => {
    const parsed = parseDeltaSharingProfile(profile({ ...v1, shareCredentialsVersion: 2, type: 'bearer_token' }));
    expect(parsed.version).toBe(2);
  });

  it('accepts a version 2 OAuth client credentials profile', () => {
    const parsed = parseDeltaSharingProfile(profile(v2Oauth));
    expect(parsed.version).toBe(2);
    expect(parsed.endpoint).toBe('https://sharing.example.com/delta-sharing/');
  });

  it('redacts the bearer token and keeps everything else', () => {
    const { redacted } = parseDeltaSharingProfile(profile(v1));
    expect(redacted).not.toContain(TOKEN);
    expect(JSON.parse(redacted)).toEqual({ ...v1, bearerToken: REDACTION_MARK });
    expect(REDACTION_MARK).toBe('********');
  });

  it('redacts the OAuth client secret and keeps the endpoint and client id', () => {
    const { redacted } = parseDeltaSharingProfile(profile(v2Oauth));
    expect(redacted).not.toContain(CLIENT_SECRET);
    expect(JSON.parse(redacted)).toEqual({ ...v2Oauth, clientSecret: REDACTION_MARK });
  });
});

describe('parseDeltaSharingProfile: refusals', () => {
  it('30-3018 for an empty profile', () => {
    for (const content of ['', '   \n ']) {
      const error = refusal(content);
      expect(error.code).toBe('30-3018');
      expect(error.message).toBe('The profile is empty');
    }
  });

  it('30-3002 for content that is not JSON, without echoing it', () => {
    const error = refusal(`{"bearerToken": "${TOKEN}"`);
    expect(error.code).toBe('30-3002');
    expect(error.message).toBe('Profile is not valid JSON');
    expect(JSON.stringify(error.extraDetails ?? {})).not.toContain(TOKEN);
  });

  it('30-3021 for JSON that is not an object', () => {
    for (const content of ['[]', '[{"shareCredentialsVersion":1}]', '"text"', '42', 'null']) {
      const error = refusal(content);
      expect(error.code, content).toBe('30-3021');
      expect(error.extraDetails).toEqual({ 'auth.delta_sharing_profile_content': 'must be a JSON object' });
    }
  });

  it('30-3021 for a field that is not a string', () => {
    const error = refusal(profile({ ...v1, bearerToken: 12345 }));
    expect(error.code).toBe('30-3021');
    expect(error.message).toBe('Profile failed validation against the expected schema');
    expect(error.extraDetails).toEqual({ 'auth.delta_sharing_profile_content': 'field bearerToken must be a string' });
    expect(refusal(profile({ ...v1, endpoint: { url: 'https://x' } })).extraDetails).toEqual({
      'auth.delta_sharing_profile_content': 'field endpoint must be a string',
    });
  });

  it('30-3021 for an unknown version 2 type', () => {
    const error = refusal(profile({ ...v1, shareCredentialsVersion: 2, type: 'basic' }));
    expect(error.code).toBe('30-3021');
    expect(error.extraDetails).toEqual({
      'auth.delta_sharing_profile_content':
        'type must be bearer_token or oauth_client_credentials for shareCredentialsVersion 2',
    });
    expect(refusal(profile({ ...v1, shareCredentialsVersion: 2 })).code).toBe('30-3021');
  });

  it('30-3014 when shareCredentialsVersion is missing or null', () => {
    const { shareCredentialsVersion: _omitted, ...rest } = v1;
    expect(refusal(profile(rest)).code).toBe('30-3014');
    expect(refusal(profile(rest)).message).toBe('Field shareCredentialsVersion is missing');
    expect(refusal(profile({ ...v1, shareCredentialsVersion: null })).code).toBe('30-3014');
  });

  it('30-3016 for an unsupported version, naming it', () => {
    const error = refusal(profile({ ...v1, shareCredentialsVersion: 3 }));
    expect(error.code).toBe('30-3016');
    expect(error.message).toBe('Invalid value 3 for shareCredentialsVersion; only 1 or 2 supported');
    expect(refusal(profile({ ...v1, shareCredentialsVersion: 'two' })).message).toBe(
      'Invalid value "two" for shareCredentialsVersion; only 1 or 2 supported',
    );
  });

  it('30-3008 for a missing or empty endpoint', () => {
    expect(refusal(profile({ ...v1, endpoint: '' })).code).toBe('30-3008');
    expect(refusal(profile({ ...v1, endpoint: '   ' })).message).toBe('Endpoint URL is empty');
    const { endpoint: _omitted, ...rest } = v1;
    expect(refusal(profile(rest)).code).toBe('30-3008');
  });

  it('30-3004 for an endpoint that is not an http(s) URL, naming it', () => {
    const error = refusal(profile({ ...v1, endpoint: 'sharing example' }));
    expect(error.code).toBe('30-3004');
    expect(error.message).toBe('Cannot parse URL from profile field endpoint (sharing example)');
    expect(refusal(profile({ ...v1, endpoint: 'ftp://sharing.example.com/' })).code).toBe('30-3004');
  });

  it('30-1130 for a loopback or metadata endpoint', () => {
    const loopback = refusal(profile({ ...v1, endpoint: 'https://127.0.0.1/delta-sharing/' }));
    expect(loopback.code).toBe('30-1130');
    expect(loopback.extraDetails).toEqual({ host: '127.0.0.1' });
    expect(refusal(profile({ ...v1, endpoint: 'https://localhost:8080/' })).code).toBe('30-1130');
    expect(refusal(profile({ ...v1, endpoint: 'https://localhost./' })).code).toBe('30-1130');
  });

  it('10-1008 for a plain-http endpoint: the bearer token must not travel in clear', () => {
    const refused = refusal(profile({ ...v1, endpoint: 'http://sharing.example.com/' }));
    expect(refused.code).toBe('10-1008');
    expect(refused.extraDetails).toEqual({
      'auth.delta_sharing_profile_content.endpoint': 'must be an absolute https:// URL',
    });
    expect(refusal(profile({ ...v1, endpoint: 'https://169.254.169.254/' })).code).toBe('30-1130');
  });

  it('30-3009 for a missing or empty bearerToken', () => {
    expect(refusal(profile({ ...v1, bearerToken: '' })).code).toBe('30-3009');
    expect(refusal(profile({ ...v1, bearerToken: null })).message).toBe('BearerToken is empty');
    const { bearerToken: _omitted, ...rest } = v1;
    expect(refusal(profile({ ...rest, shareCredentialsVersion: 2, type: 'bearer_token' })).code).toBe('30-3009');
  });

  it('30-3003 for an expirationTime that is not a time, naming it', () => {
    const error = refusal(profile({ ...v1, expirationTime: 'next tuesday' }));
    expect(error.code).toBe('30-3003');
    expect(error.message).toBe('Cannot parse time from profile field expirationTime (next tuesday)');
  });

  it('30-3015 listing every missing OAuth field', () => {
    const error = refusal(
      profile({ shareCredentialsVersion: 2, type: 'oauth_client_credentials', endpoint: v2Oauth.endpoint }),
    );
    expect(error.code).toBe('30-3015');
    expect(error.message).toBe('Missing or empty required OAuth fields: tokenEndpoint, clientId, clientSecret');
    expect(refusal(profile({ ...v2Oauth, clientId: ' ' })).message).toBe(
      'Missing or empty required OAuth fields: clientId',
    );
  });

  it('checks the version before the endpoint and the endpoint before the credentials', () => {
    expect(refusal(profile({ shareCredentialsVersion: 9, endpoint: '', bearerToken: '' })).code).toBe('30-3016');
    expect(refusal(profile({ shareCredentialsVersion: 1, endpoint: '', bearerToken: '' })).code).toBe('30-3008');
  });
});
