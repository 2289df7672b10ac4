import { Principal } from './principal';
import type { TokenRejection } from './access-token';

/**
 * What the API's Lambda authorizer hands to every protected route (API Gateway puts it at
 * requestContext.authorizer.lambda). The authorizer verifies the token; the route enforces
 * the outcome, so that a refusal is answered with the contract's problem body (HTTP API
 * authorizers cannot shape their own 401).
 */
export type AuthorizerContext = { readonly principal: string } | { readonly rejection: TokenRejection };

export function acceptedContext(principal: Principal): AuthorizerContext {
  return { principal: JSON.stringify(principal) };
}

export function principalFromContext(context: unknown): Principal | TokenRejection {
  if (typeof context === 'object' && context !== null) {
    if ('principal' in context && typeof context.principal === 'string') {
      const parsed = Principal.safeParse(JSON.parse(context.principal));
      return parsed.success ? parsed.data : 'invalid_token';
    }
    if ('rejection' in context && typeof context.rejection === 'string') return context.rejection as TokenRejection;
  }
  return 'missing_token';
}
