import * as z from 'zod';
import { defineRoute } from '../../shared/http/route';

const ErrorType = z
  .object({
    code: z.string(),
    status: z.int(),
    title: z.string(),
    message: z.string().describe('Message template; {0}..{n} are filled per occurrence'),
  })
  .meta({ id: 'ErrorType' });

export const metaRoutes = {
  openapi: defineRoute({
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: '/openapi.json',
    summary: 'This API as an OpenAPI 3.1 document',
    tag: 'meta',
    handler: 'meta/openapi',
    permission: null,
    request: {},
    response: { status: 200, description: 'The OpenAPI document', body: z.record(z.string(), z.unknown()) },
    errors: [],
    access: {},
  }),
  errorType: defineRoute({
    operationId: 'getErrorType',
    method: 'GET',
    path: '/errors/{code}',
    summary: 'Describe an error code (the target of a problem’s type URI)',
    tag: 'meta',
    handler: 'meta/error-type',
    permission: null,
    request: {
      params: z.strictObject({ code: z.string().regex(/^\d{2}-\d{3,5}$/, { error: 'must look like 30-1001' }) }),
    },
    response: { status: 200, description: 'The catalogue entry', body: ErrorType },
    errors: ['10-404'],
    access: {},
  }),
  apiReference: defineRoute({
    operationId: 'getApiReference',
    method: 'GET',
    path: '/docs',
    summary: 'This API as a reference page to read in a browser (HTML)',
    description:
      'Renders the OpenAPI document with Redoc. The page loads only GET /docs/redoc.standalone.js and GET /openapi.json from this service, nothing from elsewhere, so it works offline.',
    tag: 'meta',
    handler: 'meta/docs',
    permission: null,
    request: {},
    // Its body is HTML (text/html), not JSON, so the route declares no body schema.
    response: { status: 200, description: 'The reference page (text/html)' },
    errors: [],
    access: {},
  }),
  apiReferenceScript: defineRoute({
    operationId: 'getApiReferenceScript',
    method: 'GET',
    path: '/docs/redoc.standalone.js',
    summary: 'The script that renders the reference page: Redoc’s standalone bundle (JavaScript)',
    tag: 'meta',
    handler: 'meta/docs-script',
    permission: null,
    request: {},
    response: {
      status: 200,
      description: 'Redoc’s standalone bundle (text/javascript), at the version the service pins',
    },
    errors: [],
    access: {},
  }),
};
