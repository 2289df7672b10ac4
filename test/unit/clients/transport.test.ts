/**
 * The client's transport and tokens against a scripted fetch: which answers are retried, how
 * long it waits, that a retried create carries the same Idempotency-Key, that attempts are
 * bounded, and that tokens are renewed before they expire. (Against the twin: the dps tests.)
 */
import { describe, expect, it } from 'vitest';
import { createDpsClient, ok, ProblemError, TokenSource } from '../../../clients/typescript/src/index';

const BASE = 'http://api.test/api/data/v1';

/** A fetch that answers from `script` in order and records each request. */
function scripted(script: readonly (() => Response)[]) {
  const seen: Request[] = [];
  const fetch = async (request: Request) => {
    seen.push(request);
    if (request.url.endsWith('/oauth/token'))
      return Response.json({ access_token: 't', token_type: 'Bearer', expires_in: 900 });
    const next = script[seen.filter((r) => !r.url.endsWith('/oauth/token')).length - 1];
    if (!next) throw new Error('no answer scripted');
    return next();
  };
  return { seen: () => seen.filter((r) => !r.url.endsWith('/oauth/token')), fetch };
}

const reset = () => {
  throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
};
const problem =
  (status: number, code: string, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify({ status, code, detail: `said ${code}`, extraDetails: { limit: 3 } }), {
      status,
      headers: { 'content-type': 'application/problem+json', ...headers },
    });
const created = () => Response.json({ id: 7, name: 'x' }, { status: 201 });
const credentials = { clientId: 'c', clientSecret: 's' };
const retry = { baseDelayMs: 1, maxDelayMs: 5 };

describe('the client transport', () => {
  it('retries a create after a 503 and a reset connection with one Idempotency-Key, waiting as Retry-After asks', async () => {
    const { fetch, seen } = scripted([problem(503, '10-503', { 'retry-after': '0.2' }), reset, created]);
    const dps = createDpsClient({ baseUrl: BASE, credentials, fetch, retry });
    const started = Date.now();
    const body = await ok(dps.api.POST('/data-tables', { body: { name: 'x', data_source_id: 1 } }));
    expect(body.id).toBe(7);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    const keys = seen().map((request) => request.headers.get('idempotency-key'));
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen()[2]!.headers.get('authorization')).toBe('Bearer t');
  });

  it('gives up after the bounded attempts and throws the last refusal as a ProblemError', async () => {
    const { fetch, seen } = scripted(Array.from({ length: 9 }, () => problem(429, '10-429')));
    const dps = createDpsClient({ baseUrl: BASE, credentials, fetch, retry: { ...retry, attempts: 3 } });
    const error = await dps.api.GET('/connections').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 429, code: '10-429', params: { limit: 3 } });
    expect(seen()).toHaveLength(3);
  });

  it('does not retry a POST without an Idempotency-Key after a 502: it may have been done', async () => {
    const { fetch, seen } = scripted([problem(502, '10-502'), created]);
    const dps = createDpsClient({ baseUrl: BASE, credentials, fetch, retry });
    await expect(
      dps.api.POST('/recipes/analyze', { body: { code: 'SELECT 1', aliases: [] } as never }),
    ).rejects.toMatchObject({
      status: 502,
    });
    expect(seen()).toHaveLength(1);
  });

  it('does not wait for a Retry-After beyond its bound', async () => {
    const { fetch, seen } = scripted([problem(503, '10-503', { 'retry-after': '3600' }), created]);
    const dps = createDpsClient({ baseUrl: BASE, credentials, fetch, retry });
    await expect(dps.api.GET('/connections')).rejects.toMatchObject({ status: 503 });
    expect(seen()).toHaveLength(1);
  });
});

describe('the token source', () => {
  it('renews a token before it expires, with one exchange for concurrent callers', async () => {
    let now = 0;
    let issued = 0;
    const tokens = new TokenSource(
      `${BASE}/oauth/token`,
      credentials,
      async () => Response.json({ access_token: `t${(issued += 1)}`, expires_in: 10 }),
      () => now,
    );
    expect(await Promise.all([tokens.token(), tokens.token()])).toEqual(['t1', 't1']);
    now = 7_000;
    expect(await tokens.token()).toBe('t1');
    // 10 s tokens are renewed a fifth of their lifetime early: at 8 s.
    now = 8_000;
    expect(await tokens.token()).toBe('t2');
    expect(issued).toBe(2);
  });
});
