import { defineRoute } from '../../shared/http/route';
import { listQuery } from '../../shared/model/common';
import { ROLE_LIST_FIELDS, TOKEN_LIST_FIELDS } from '../../shared/model/list-fields';
import {
  ClientIdParams,
  RoleList,
  TokenCreated,
  TokenCreateRequest,
  TokenList,
  TokenResponse,
} from '../../shared/model/token';

const tag = 'tokens';

export const tokenRoutes = {
  create: defineRoute({
    operationId: 'createToken',
    method: 'POST',
    path: '/tokens',
    summary: 'Create a tenant token',
    description:
      'An API client of the caller’s tenant, carrying the roles named (each must name exactly one role: 30-7001, 30-7002) and none of the permissions the caller lacks (10-403). The answer holds the secret, once; exchange the client id and secret at POST /oauth/token. Send an Idempotency-Key header to make retries safe: a replay makes no second token and shows no secret.',
    tag,
    handler: 'tokens/create',
    permission: 'token:manage',
    request: { body: TokenCreateRequest, idempotent: true },
    response: { status: 201, description: 'The created token, with its secret', body: TokenCreated },
    errors: ['10-404', '30-7001', '30-7002', '30-7003', '30-7005'],
    access: { table: 'write' },
  }),
  list: defineRoute({
    operationId: 'listTokens',
    method: 'GET',
    path: '/tokens',
    summary: 'List the tenant’s tokens',
    description: 'Oldest first unless sorted. Secrets are never shown.',
    tag,
    handler: 'tokens/list',
    permission: 'token:manage',
    request: { query: listQuery(TOKEN_LIST_FIELDS) },
    response: { status: 200, description: 'A page of tokens', body: TokenList },
    errors: [],
    access: { table: 'read' },
  }),
  get: defineRoute({
    operationId: 'getToken',
    method: 'GET',
    path: '/tokens/{client_id}',
    summary: 'Get a tenant token',
    tag,
    handler: 'tokens/get',
    permission: 'token:manage',
    request: { params: ClientIdParams },
    response: { status: 200, description: 'The token, without its secret', body: TokenResponse },
    errors: ['10-404'],
    access: { table: 'read' },
  }),
  delete: defineRoute({
    operationId: 'deleteToken',
    method: 'DELETE',
    path: '/tokens/{client_id}',
    summary: 'Delete a tenant token',
    description:
      'The client can no longer exchange its secret, and access tokens already issued to it stop working within seconds (docs/decisions.md).',
    tag,
    handler: 'tokens/delete',
    permission: 'token:manage',
    request: { params: ClientIdParams },
    response: { status: 204, description: 'Deleted' },
    errors: ['10-404', '30-7004'],
    access: { table: 'write' },
  }),
  listRoles: defineRoute({
    operationId: 'listRoles',
    method: 'GET',
    path: '/roles',
    summary: 'List the roles tokens may carry',
    description:
      'Each role with the permissions it grants. Names are not unique: a token names roles by name, and a name several roles share is refused (30-7002).',
    tag,
    handler: 'tokens/list-roles',
    permission: 'token:manage',
    request: { query: listQuery(ROLE_LIST_FIELDS) },
    response: { status: 200, description: 'A page of roles', body: RoleList },
    errors: ['30-7005'],
    access: { table: 'read' },
  }),
};
