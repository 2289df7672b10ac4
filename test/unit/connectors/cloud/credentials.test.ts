import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkWorkloadIdentity, parseServiceAccountKey } from '../../../../shared/connectors/cloud/credentials';
import { refusal } from '../../../support/refusal';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_KEY_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const key = {
  type: 'service_account',
  project_id: 'analytics-prod-123',
  private_key_id: 'abc123',
  private_key: PRIVATE_KEY_PEM,
  client_email: 'loader@analytics-prod-123.iam.gserviceaccount.com',
  client_id: '1234567890',
  token_uri: 'https://oauth2.googleapis.com/token',
};

describe.each(['30-1320', '30-1415'] as const)('parseServiceAccountKey (%s)', (code) => {
  const rule = (json: string): string => {
    const error = refusal(() => parseServiceAccountKey(json, code));
    expect(error.code).toBe(code);
    expect(error.status).toBe(400);
    expect(error.message).toBe('Service account key JSON invalid or cannot be parsed');
    return String(error.extraDetails?.['auth.service_account_key_json']);
  };

  it('returns the project id of a valid key', () => {
    expect(parseServiceAccountKey(JSON.stringify(key), code)).toEqual({ projectId: 'analytics-prod-123' });
  });

  it('accepts a key without token_uri', () => {
    const { token_uri: _omitted, ...rest } = key;
    expect(parseServiceAccountKey(JSON.stringify(rest), code).projectId).toBe('analytics-prod-123');
  });

  it('refuses text that is not JSON', () => {
    expect(rule('{"type": "service_account"')).toBe('is not valid JSON');
    expect(rule('')).toBe('is not valid JSON');
  });

  it('refuses a key of another type', () => {
    expect(rule(JSON.stringify({ ...key, type: 'authorized_user' }))).toBe('missing or invalid: type');
  });

  it('refuses missing fields, listing them', () => {
    const { project_id: _p, client_email: _c, ...rest } = key;
    expect(rule(JSON.stringify(rest))).toBe('missing or invalid: project_id, client_email');
    expect(rule(JSON.stringify({ ...key, private_key: '' }))).toBe('missing or invalid: private_key');
    expect(rule(JSON.stringify({ ...key, client_email: 'not-an-email' }))).toBe('missing or invalid: client_email');
  });

  it('refuses JSON that is not an object', () => {
    expect(rule('[]')).toBe('missing or invalid: document');
    expect(rule('null')).toBe('missing or invalid: document');
  });

  it('refuses a private key that cannot be read, without echoing it', () => {
    const secretish =
      '-----BEGIN PRIVATE KEY-----\nTUlJRXZnSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NCS2d3Z2dTa0FnRUFBb0lCQVFD\n-----END PRIVATE KEY-----\n';
    const error = refusal(() => parseServiceAccountKey(JSON.stringify({ ...key, private_key: secretish }), code));
    expect(error.code).toBe(code);
    expect(error.extraDetails).toEqual({ 'auth.service_account_key_json': 'private_key is not a readable PEM key' });
    expect(rule(JSON.stringify({ ...key, private_key: 'garbage' }))).toBe('private_key is not a readable PEM key');
  });

  it('refuses a token_uri that is not a usable https URL (10-1008)', () => {
    const error = refusal(() =>
      parseServiceAccountKey(JSON.stringify({ ...key, token_uri: 'http://oauth2.googleapis.com/token' }), code),
    );
    expect(error.code).toBe('10-1008');
    expect(error.extraDetails).toEqual({
      'auth.service_account_key_json.token_uri': 'must be an absolute https:// URL',
    });
    expect(
      refusal(() =>
        parseServiceAccountKey(JSON.stringify({ ...key, token_uri: 'https://169.254.169.254/token' }), code),
      ).code,
    ).toBe('30-1130');
  });
});

describe('checkWorkloadIdentity', () => {
  const fields = {
    token_url: 'https://sts.googleapis.com/v1/token',
    service_account_email: 'loader@analytics-prod-123.iam.gserviceaccount.com',
    project_id: 'analytics-prod-123',
  };

  it('accepts a service-account e-mail of the connection project, in any case', () => {
    expect(() => checkWorkloadIdentity(fields)).not.toThrow();
    expect(() => checkWorkloadIdentity({ ...fields, project_id: 'Analytics-Prod-123' })).not.toThrow();
  });

  it('refuses an e-mail of another project with 30-1322 naming both', () => {
    const error = refusal(() => checkWorkloadIdentity({ ...fields, project_id: 'analytics-test-456' }));
    expect(error.code).toBe('30-1322');
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      // Submitted values are quoted as excerpts of at most 40 characters.
      'Project ID analytics-test-456 on the connection does not match the project ID in the service account email loader@analytics-prod-123.iam.gserviceac…',
    );
  });

  it('does not check e-mails that do not name a project', () => {
    expect(() =>
      checkWorkloadIdentity({ ...fields, service_account_email: '1234-compute@developer.gserviceaccount.com' }),
    ).not.toThrow();
    expect(() => checkWorkloadIdentity({ ...fields, service_account_email: 'someone@example.com' })).not.toThrow();
  });

  it('refuses a token_url that is not a usable https URL with 10-1008', () => {
    for (const token_url of [
      'http://sts.googleapis.com/v1/token',
      'not a url',
      'https://user:pw@sts.googleapis.com/',
    ]) {
      const error = refusal(() => checkWorkloadIdentity({ ...fields, token_url }));
      expect(error.code, token_url).toBe('10-1008');
      expect(Object.keys(error.extraDetails ?? {})).toEqual(['auth.token_url']);
    }
    expect(refusal(() => checkWorkloadIdentity({ ...fields, token_url: 'https://localhost/token' })).code).toBe(
      '30-1130',
    );
  });
});
