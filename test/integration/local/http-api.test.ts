/**
 * The twin's API Gateway stand-in at the transport level, where the typed client cannot go: a
 * request body is read whenever the request announces one, by Content-Length or by chunked
 * Transfer-Encoding, and a request that announces none reaches its route without one.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionRequest } from '../../../bench/protocol';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
beforeAll(async () => {
  env = await startTestTwin();
});
afterAll(() => env?.close());

/** POST /connections with the body written in `parts`, each its own chunk; no Content-Length unless given. */
function post(
  parts: readonly string[],
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      `${env.twin.apiUrl}/connections`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${env.admin.token ?? ''}`, 'content-type': 'application/json', ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
          }),
        );
      },
    );
    sent.on('error', reject);
    for (const part of parts) sent.write(part);
    sent.end();
  });
}

describe('request bodies at the gateway stand-in', () => {
  it('reads a body sent in chunks without Content-Length', async () => {
    const text = JSON.stringify(connectionRequest('chunked', env.twin.s3.endpoint));
    const created = await post([text.slice(0, 10), text.slice(10, 40), text.slice(40)]);
    expect(created.status).toBe(201);
    const { id } = created.json as { id: number };
    const read = await env.admin.call('getConnection', { params: { connection_id: id } });
    expect(read.body.name).toBe('chunked');
  });

  it('passes no body on when Content-Length is 0', async () => {
    const refused = await post([], { 'content-length': '0' });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: '10-1400', extraDetails: { body: 'is required' } });
  });
});
