import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { TokenRejected, verifyAccessToken } from '../../shared/auth/access-token';
import { acceptedContext, type AuthorizerContext } from '../../shared/auth/authorizer-context';
import { isRevoked } from '../../shared/identity/revocation';
import { logger } from '../../shared/log';

/**
 * The API's Lambda authorizer. It verifies the bearer token and always lets the request
 * through with its verdict; the route then answers 401/403 with the contract's problem body,
 * which an HTTP API authorizer's own refusal cannot carry (docs/decisions.md). A token whose
 * client was deleted or has expired is refused too (revoked_token), within the bound of
 * shared/identity/revocation.ts.
 */
export async function handler(
  event: APIGatewayRequestAuthorizerEventV2,
): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>> {
  const header = event.headers?.authorization;
  if (header === undefined || header.trim() === '')
    return { isAuthorized: true, context: { rejection: 'missing_token' } };
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (token === undefined) return { isAuthorized: true, context: { rejection: 'invalid_token' } };
  try {
    const principal = await verifyAccessToken(token);
    if (await isRevoked(principal)) return { isAuthorized: true, context: { rejection: 'revoked_token' } };
    return { isAuthorized: true, context: acceptedContext(principal) };
  } catch (error) {
    if (error instanceof TokenRejected) return { isAuthorized: true, context: { rejection: error.reason } };
    logger.error('token verification unavailable', { traceId: event.requestContext.requestId, error: error as Error });
    return { isAuthorized: true, context: { rejection: 'verification_unavailable' } };
  }
}
