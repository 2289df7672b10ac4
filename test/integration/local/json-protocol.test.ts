import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JsonProtocolError,
  startJsonProtocolServer,
  type JsonProtocolServer,
} from '../../../infra/local/json-protocol';

/** A service of two operations, spoken to as an AWS SDK client would. */
let server: JsonProtocolServer;
beforeAll(async () => {
  server = await startJsonProtocolServer({
    name: 'Echo',
    targetPrefix: 'Echo_20240101',
    jsonVersion: '1.1',
    operations: {
      Echo: async (input) => ({ echoed: input }),
      Refuse: (input) => {
        throw new JsonProtocolError('LimitExceededException', `too many: ${String(input.count)}`, {
          status: 429,
          fields: { Limit: 3 },
        });
      },
      Break: () => {
        throw new Error('disk on fire');
      },
    },
    internalErrorType: 'EchoInternalException',
  });
});
afterAll(() => server.close());

async function post(
  target: string | undefined,
  body: string,
): Promise<{ status: number; contentType: string | null; json: unknown }> {
  const response = await fetch(server.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      ...(target === undefined ? {} : { 'x-amz-target': target }),
    },
    body,
  });
  return { status: response.status, contentType: response.headers.get('content-type'), json: await response.json() };
}

describe('the twin services’ JSON-protocol front', () => {
  it('answers an operation named by x-amz-target with its output, in the protocol’s content type', async () => {
    expect(await post('Echo_20240101.Echo', '{"a":[1,2]}')).toEqual({
      status: 200,
      contentType: 'application/x-amz-json-1.1',
      json: { echoed: { a: [1, 2] } },
    });
    expect((await post('Echo_20240101.Echo', '')).json).toEqual({ echoed: {} });
  });

  it('answers a service error with its status, __type, message and fields', async () => {
    expect(await post('Echo_20240101.Refuse', '{"count":4}')).toEqual({
      status: 429,
      contentType: 'application/x-amz-json-1.1',
      json: { __type: 'LimitExceededException', message: 'too many: 4', Limit: 3 },
    });
  });

  it('answers any other failure as the service’s internal error', async () => {
    expect(await post('Echo_20240101.Break', '{}')).toMatchObject({
      status: 500,
      json: { __type: 'EchoInternalException', message: 'disk on fire' },
    });
  });

  it.each([['Echo_20240101.Missing'], ['Echo.Echo'], ['Echo'], ['Echo_20240101.constructor'], [undefined]])(
    'refuses the target %s as an unknown operation',
    async (target) => {
      const answer = await post(target, '{}');
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({
        __type: 'UnknownOperationException',
        message: expect.stringMatching(/is not supported by the local Echo$/),
      });
    },
  );

  it.each([['{"a":'], ['[1]'], ['null'], ['"text"']])('refuses the body %s as not a JSON object', async (body) => {
    expect(await post('Echo_20240101.Echo', body)).toMatchObject({
      status: 400,
      json: { __type: 'SerializationException' },
    });
  });
});
