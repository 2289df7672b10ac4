/**
 * The Delta Sharing protocol client alone (shared/connectors/delta-sharing/client.ts) against
 * the protocol fake: listings followed page by page with maxResults and pageToken, an answer
 * that does not parse (30-3010), an expired bearer token (30-3013) and an OAuth profile whose
 * token endpoint fails (30-3017).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startDeltaSharingFake,
  type DeltaSharingFake,
  type FakeTableSpec,
} from '../../../../infra/local/fakes/delta-sharing';
import { DeltaSharingClient } from '../../../../shared/connectors/delta-sharing/client';
import { AppError } from '../../../../shared/errors/app-error';
import { startOAuthFake, type OAuthFake } from '../../../../infra/local/fakes/oauth';

const TOKEN = 'unit-recipient-token';
const EXPIRED = 'unit-recipient-token-expired';
const CLIENT = { clientId: 'unit-recipient-app', clientSecret: 'unit-secret', scopes: ['sharing'] };
const TIMEOUT_MS = 5_000;
const PAGE_SIZE = 2;
const TABLE_NAMES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
const TABLES: readonly FakeTableSpec[] = TABLE_NAMES.map((name) => ({
  share: 'unit',
  schema: 'main',
  name,
  fields: [{ name: 'id', type: 'long' }],
  versions: [[{ sql: 'SELECT 1::BIGINT AS id' }]],
}));

let fake: DeltaSharingFake;
let oauth: OAuthFake;
const savedAllowList = process.env.OUTBOUND_ALLOW_LIST;

beforeAll(async () => {
  oauth = await startOAuthFake({ clients: [CLIENT], style: 'generic' });
  fake = await startDeltaSharingFake({ tables: TABLES, pageSize: PAGE_SIZE, oauth });
  fake.addToken(TOKEN);
  fake.addToken(EXPIRED, Date.now() - 60_000);
  process.env.OUTBOUND_ALLOW_LIST = [fake.port, oauth.port].map((port) => `127.0.0.1:${port}`).join(',');
});
afterEach(() => {
  fake.behave('normal');
  oauth.behave('normal');
});
afterAll(async () => {
  await fake?.close();
  await oauth?.close();
  if (savedAllowList === undefined) delete process.env.OUTBOUND_ALLOW_LIST;
  else process.env.OUTBOUND_ALLOW_LIST = savedAllowList;
});

const client = (profile = fake.profile(TOKEN)) => DeltaSharingClient.of(profile, TIMEOUT_MS);

const oauthProfile = (clientSecret = CLIENT.clientSecret) =>
  JSON.stringify({
    shareCredentialsVersion: 2,
    type: 'oauth_client_credentials',
    endpoint: fake.endpoint,
    tokenEndpoint: oauth.tokenUrl,
    clientId: CLIENT.clientId,
    clientSecret,
    scope: 'sharing',
  });

async function codeOf(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return (error as AppError).code;
}

describe('listings', () => {
  it('follows nextPageToken page by page, asking maxResults, until the last page', async () => {
    const before = fake.requests.length;
    const tables = await client().listTables('unit', 'main');
    expect(tables.map((table) => table.table)).toEqual(TABLE_NAMES);
    const listings = fake.requests.slice(before).map((request) => new URL(request.path, 'http://fake').searchParams);
    // Five tables in pages of at most two: three calls, the later ones with the token the previous page gave.
    expect(listings).toHaveLength(Math.ceil(TABLE_NAMES.length / PAGE_SIZE));
    expect(listings[0]!.has('pageToken')).toBe(false);
    for (const query of listings) expect(query.get('maxResults')).toEqual(expect.stringMatching(/^\d+$/));
    for (const query of listings.slice(1)) expect(query.get('pageToken')).toEqual(expect.any(String));
    expect(new Set(listings.map((query) => query.get('pageToken'))).size).toBe(listings.length);
  });
});

describe('failures', () => {
  it('answers 30-3010 when a listing or a query answer does not parse', async () => {
    fake.behave('malformed');
    expect(await codeOf(client().listShares())).toBe('30-3010');
    expect(await codeOf(client().query({ share: 'unit', schema: 'main', table: 'alpha' }))).toBe('30-3010');
  });

  it('answers 30-3013 for a bearer token the server says has expired', async () => {
    expect(await codeOf(client(fake.profile(EXPIRED)).listShares())).toBe('30-3013');
    expect(await client().listShares()).toEqual(['unit']);
  });

  it('answers 30-3017 when the OAuth token endpoint fails or refuses the client', async () => {
    expect(await client(oauthProfile()).listShares()).toEqual(['unit']);
    oauth.behave('server-error');
    expect(await codeOf(client(oauthProfile()).listShares())).toBe('30-3017');
    oauth.behave('normal');
    expect(await codeOf(client(oauthProfile('wrong-secret')).listShares())).toBe('30-3017');
  });
});
