import * as z from 'zod';
import { defineRoute } from '../../shared/http/route';

const TokenRequest = z
  .strictObject({
    grant_type: z.literal('client_credentials'),
    client_id: z.string().min(1).max(256).optional().describe('Required unless sent with HTTP Basic authentication'),
    client_secret: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe('Required unless sent with HTTP Basic authentication'),
    scope: z.string().max(1024).optional().describe('Ignored: a token carries the permissions of its client’s roles'),
  })
  .meta({ id: 'TokenRequest' });

const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.int().describe('Seconds until the token expires'),
  })
  .meta({ id: 'TokenResponse' });

export const authRoutes = {
  token: defineRoute({
    operationId: 'issueToken',
    method: 'POST',
    path: '/oauth/token',
    summary: 'Exchange client credentials for an access token',
    description:
      'OAuth 2.0 client credentials grant (RFC 6749 §4.4). Credentials go in the form body or in an HTTP Basic Authorization header. The token is a short-lived JWT carrying the tenant and the permissions of the client’s roles.',
    tag: 'auth',
    handler: 'auth/token',
    permission: null,
    request: { body: TokenRequest, bodyTypes: ['form', 'json'] },
    response: { status: 200, description: 'An access token', body: TokenResponse },
    errors: ['10-401'],
    access: { table: 'read', signingKey: 'sign' },
  }),
};
