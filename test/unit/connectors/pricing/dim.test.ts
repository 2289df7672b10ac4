import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionConfiguration } from '../../../../shared/connectors/configuration';
import type { PricingColumn, PricingConnector } from '../../../../shared/connectors/pricing/connector';
import { pricingConnectorOf } from '../../../../shared/connectors/pricing/factory';
import { AppError } from '../../../../shared/errors/app-error';
import { startPricingDim, type PricingDimFake } from '../../../../infra/local/fakes/pricing-dim';
import { closedLocalPort } from '../../../support/closed-port';

/** The DIM connector against the DIM fake: every code from a failure the fake really produced. */
let dim: PricingDimFake;
const savedAllowList = process.env.OUTBOUND_ALLOW_LIST;
const signal = () => AbortSignal.timeout(20_000);
const DESTINATION = { projectPath: '\\Retail\\Prices', tablePath: 'Weekly\\' };
const COLUMNS: PricingColumn[] = [
  { name: 'sku', type: 'STRING' },
  { name: 'units', type: 'INTEGER' },
  { name: 'price', type: 'DECIMAL' },
];

function configuration(overrides: Record<string, string> = {}): ConnectionConfiguration {
  return {
    type: 'pricing_dim',
    auth: {
      auth_type: 'oauth_client_credentials',
      token_url: dim.tokenUrl,
      client_id: dim.clientId,
      scope: dim.scope,
      host: dim.host,
      ...overrides,
    },
    secret: undefined,
    settings: {},
  };
}

const connector = (secret = dim.clientSecret, overrides: Record<string, string> = {}): PricingConnector =>
  pricingConnectorOf(configuration(overrides), secret);

async function failureOf(call: Promise<unknown>): Promise<AppError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_LIST = '127.0.0.1/32';
  dim = await startPricingDim();
});

afterEach(() => dim.fail(undefined));

afterAll(async () => {
  await dim.stop();
  if (savedAllowList === undefined) delete process.env.OUTBOUND_ALLOW_LIST;
  else process.env.OUTBOUND_ALLOW_LIST = savedAllowList;
});

describe('pricing DIM connector', () => {
  it('tests with a token and GET /ping', async () => {
    const before = dim.received.calls.length;
    await connector().test(signal());
    expect(dim.received.calls.slice(before)).toEqual(['GET /ping']);
    expect(dim.tokenRequests.at(-1)).toMatchObject({ authentication: 'basic', clientId: dim.clientId });
  });

  it('renews a token the DIM says expired once, and repeats the call', async () => {
    const dimConnector = connector();
    await dimConnector.test(signal());
    const tokens = dim.tokenRequests.length;
    const calls = dim.received.calls.length;
    await dim.fail({ kind: 'expire-tokens' });
    await dimConnector.test(signal());
    expect(dim.tokenRequests.length).toBe(tokens + 1);
    expect(dim.received.calls.slice(calls)).toEqual(['GET /ping']);
  });

  it('describes an import: the limits of the table', async () => {
    dim.setTable(DESTINATION.projectPath, DESTINATION.tablePath, { state: 'READY', maxRows: 500, maxColumns: 7 });
    await expect(connector().describeImport(DESTINATION, signal())).resolves.toEqual({ maxRows: 500, maxColumns: 7 });
  });

  it('uploads exactly the rows sent, and a resumed upload skips the batches already held', async () => {
    const destination = { projectPath: '\\Retail', tablePath: 'Upload\\' };
    const first = connector();
    const upload = await first.openUpload('transfer-1', destination, COLUMNS, signal());
    expect(upload).toMatchObject({ acceptedRows: 0, nextSequence: 0 });
    // The bytes are the batch's request body, as the DIM received it.
    expect(await first.sendBatch(upload, { sequence: 0, firstRow: 0, rows: [['a', 1, '1.50']] }, signal())).toEqual({
      acceptedRows: 1,
      bytes: Buffer.byteLength('{"rows":[["a",1,"1.50"]]}'),
    });

    // A retried transfer: a new connector, the same key; the batch it re-sends is not counted twice.
    const again = connector();
    const resumed = await again.openUpload('transfer-1', destination, COLUMNS, signal());
    expect(resumed).toEqual({ uploadId: upload.uploadId, acceptedRows: 1, nextSequence: 1 });
    expect(
      await again.sendBatch(resumed, { sequence: 0, firstRow: 0, rows: [['a', 1, '1.50']] }, signal()),
    ).toMatchObject({
      acceptedRows: 1,
    });
    expect(
      await again.sendBatch(
        resumed,
        {
          sequence: 1,
          firstRow: 1,
          rows: [
            ['b', 2, 3.25],
            [null, null, null],
          ],
        },
        signal(),
      ),
    ).toMatchObject({ acceptedRows: 3 });
    await again.commitUpload(resumed, signal());

    expect(dim.committed(destination.projectPath, destination.tablePath)).toEqual({
      columns: COLUMNS,
      rows: [
        ['a', 1, '1.50'],
        ['b', 2, 3.25],
        [null, null, null],
      ],
    });
  });

  it('retries a batch through transient 503s, 429 with Retry-After and a reset connection', async () => {
    const destination = { projectPath: '\\Retail', tablePath: 'Retry\\' };
    const dimConnector = connector();
    const upload = await dimConnector.openUpload('transfer-retry', destination, COLUMNS, signal());
    await dim.fail({ kind: 'transient', status: 503, times: 2 });
    expect(
      await dimConnector.sendBatch(upload, { sequence: 0, firstRow: 0, rows: [['a', 1, 1]] }, signal()),
    ).toMatchObject({
      acceptedRows: 1,
    });
    await dim.fail({ kind: 'transient', status: 429, times: 1, retryAfter: 1 });
    const started = Date.now();
    expect(
      await dimConnector.sendBatch(upload, { sequence: 1, firstRow: 1, rows: [['b', 2, 2]] }, signal()),
    ).toMatchObject({
      acceptedRows: 2,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await dim.fail({ kind: 'reset', times: 1 });
    expect(
      await dimConnector.sendBatch(upload, { sequence: 2, firstRow: 2, rows: [['c', 3, 3]] }, signal()),
    ).toMatchObject({
      acceptedRows: 3,
    });
    const sent = dim.received.uploads.find((candidate) => candidate.key === 'transfer-retry');
    expect(sent?.rows).toEqual([
      ['a', 1, 1],
      ['b', 2, 2],
      ['c', 3, 3],
    ]);
  });

  it('gives up after a bounded number of retries: 30-4007', async () => {
    const destination = { projectPath: '\\Retail', tablePath: 'Down\\' };
    const dimConnector = connector();
    const upload = await dimConnector.openUpload('transfer-down', destination, COLUMNS, signal());
    await dim.fail({ kind: 'transient', status: 503, times: 100 });
    const error = await failureOf(
      dimConnector.sendBatch(upload, { sequence: 0, firstRow: 0, rows: [['a', 1, 1]] }, signal()),
    );
    expect(error.code).toBe('30-4007');
    expect(error.extraDetails).toMatchObject({ provider_status: 503, provider_error: 'busy' });
    const batches = dim.received.calls.filter((call) => call.startsWith(`PUT /uploads/${upload.uploadId}/`));
    expect(batches).toHaveLength(5);
  });

  it('stops retrying when the caller’s signal aborts', async () => {
    const destination = { projectPath: '\\Retail', tablePath: 'Aborted\\' };
    const dimConnector = connector();
    const upload = await dimConnector.openUpload('transfer-aborted', destination, COLUMNS, signal());
    await dim.fail({ kind: 'transient', status: 503, times: 100 });
    const started = Date.now();
    const call = dimConnector.sendBatch(
      upload,
      { sequence: 0, firstRow: 0, rows: [['a', 1, 1]] },
      AbortSignal.timeout(600),
    );
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('30-4102 when the token server answers no token, 30-4005 for a wrong secret, both with the cause', async () => {
    await dim.fail({ kind: 'no-token' });
    expect(await failureOf(connector().test(signal()))).toMatchObject({
      code: '30-4102',
      extraDetails: { cause_code: '30-1206' },
    });
    await dim.fail(undefined);
    const refused = await failureOf(connector('not-the-secret').test(signal()));
    expect(refused.code).toBe('30-4005');
    expect(JSON.stringify(refused.extraDetails)).not.toContain('not-the-secret');
  });

  it('30-4005 when the DIM refuses the token, 30-4006 when nothing listens, 30-4007 when it fails', async () => {
    await dim.fail({ kind: 'unauthorized' });
    expect((await failureOf(connector().test(signal()))).code).toBe('30-4005');
    await dim.fail({ kind: 'server-error' });
    expect((await failureOf(connector().test(signal()))).code).toBe('30-4007');
    await dim.fail({ kind: 'bad-json' });
    const upload = await failureOf(connector().openUpload('k', DESTINATION, COLUMNS, signal()));
    expect(upload).toMatchObject({ code: '30-4007', extraDetails: { reason: 'the answer is not an upload' } });
    await dim.fail({ kind: 'unreachable' });
    const unreachable = await failureOf(connector().test(signal()));
    expect(unreachable).toMatchObject({ code: '30-4006', extraDetails: { provider_error: 'connection_refused' } });
    expect(unreachable.message).toContain(new URL(dim.host).host);
  });

  it('GET /import failures are 10-1046 naming the DIM and the reason', async () => {
    await dim.fail({ kind: 'server-error' });
    const failing = await failureOf(connector().describeImport(DESTINATION, signal()));
    expect(failing.code).toBe('10-1046');
    expect(failing.message).toBe(
      `GET /import call to the external pricing DIM (${new URL(dim.host).host}) failed: HTTP 500 internal`,
    );
    await dim.fail(undefined);
    const missing = await failureOf(
      connector().describeImport({ projectPath: 'NoProject', tablePath: 'T\\' }, signal()),
    );
    expect(missing.message).toContain('HTTP 404 project_not_found');
    dim.setTable('\\Locked', 'T\\', { state: 'LOCKED' });
    const locked = await failureOf(connector().describeImport({ projectPath: '\\Locked', tablePath: 'T\\' }, signal()));
    expect(locked.message).toContain('the table is LOCKED');
  });

  it('a host nobody listens on, never a fake: 30-4006 before any token is used for the host', async () => {
    // Nothing listens there, nor can while it is held.
    const closed = await closedLocalPort();
    try {
      const error = await failureOf(connector(dim.clientSecret, { host: closed.url }).test(signal()));
      expect(error.code).toBe('30-4006');
    } finally {
      await closed.release();
    }
  });
});
