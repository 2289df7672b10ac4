import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../../shared/http/request';
import { defineRoute } from '../../../shared/http/route';

const route = defineRoute({
  operationId: 'probe',
  method: 'PATCH',
  path: '/things/{name}',
  summary: 'A route accepting any text, so only the encoding checks refuse',
  tag: 'test',
  handler: 'test/probe',
  permission: null,
  request: {
    params: z.object({ name: z.string() }),
    query: z.object({ q: z.string().optional() }),
    body: z.unknown(),
    bodyTypes: ['json', 'merge-patch'],
  },
  response: { status: 204, description: 'nothing' },
  errors: [],
  access: {},
});

function event(parts: Partial<APIGatewayProxyEventV2>): APIGatewayProxyEventV2 {
  return {
    headers: { 'content-type': 'application/json' },
    isBase64Encoded: false,
    pathParameters: { name: 'x' },
    body: '{}',
    ...parts,
  } as APIGatewayProxyEventV2;
}

function refusal(parts: Partial<APIGatewayProxyEventV2>): unknown {
  try {
    parseRequest(route, event(parts));
  } catch (error) {
    return error;
  }
  throw new Error('the request was accepted');
}

describe('parseRequest: parameters as API Gateway may pass them on', () => {
  it('keeps decoded values as they are, never decoding again', () => {
    expect(
      parseRequest(route, event({ pathParameters: { name: '100%zz é' }, queryStringParameters: { q: '%E0%A4%A' } })),
    ).toMatchObject({
      params: { name: '100%zz é' },
      query: { q: '%E0%A4%A' },
    });
  });

  it('refuses lone surrogates in path and query, and a lossy decoding in a path parameter, naming each', () => {
    expect(refusal({ pathParameters: { name: 'a\ud800' }, queryStringParameters: { q: '\udfffb' } })).toMatchObject({
      code: '10-1400',
      extraDetails: { name: 'must be valid percent-encoded UTF-8', q: 'must be valid percent-encoded UTF-8' },
    });
    expect(refusal({ pathParameters: { name: 'caf\ufffd' } })).toMatchObject({
      extraDetails: { name: 'must be valid percent-encoded UTF-8' },
    });
    expect(refusal({ queryStringParameters: { ['\ud800']: '1' } })).toMatchObject({
      extraDetails: { query: 'must be valid percent-encoded UTF-8' },
    });
  });

  it('accepts a replacement character in a query value: it is text a client may send', () => {
    expect(parseRequest(route, event({ queryStringParameters: { q: 'caf\ufffd' } }))).toMatchObject({
      query: { q: 'caf\ufffd' },
    });
  });
});

describe('parseRequest: nesting bound', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('accepts JSON nested 64 levels', () => {
    expect(parseRequest(route, event({ body: nested(64) })).body).toHaveLength(1);
  });

  it.each([65, 10_000, 40_000])(
    'refuses JSON nested %i levels with 10-1400 naming the body, also as a merge patch',
    (depth) => {
      for (const type of ['application/json', 'application/merge-patch+json']) {
        expect(refusal({ body: `{"a":${nested(depth)}}`, headers: { 'content-type': type } })).toMatchObject({
          code: '10-1400',
          extraDetails: { body: 'must not nest objects and arrays deeper than 64 levels' },
        });
      }
    },
  );

  it('does not count brackets inside strings', () => {
    expect(parseRequest(route, event({ body: JSON.stringify({ a: '['.repeat(1_000) }) })).body).toEqual({
      a: '['.repeat(1_000),
    });
  });
});
