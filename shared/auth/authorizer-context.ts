import { Principal } from './principal';
import type { TokenRejection } from './access-token';

/**
 * What the API's Lambda authorizer hands to every protected route (API Gateway puts it at
 * requestContext.authorizer.lambda). The authorizer verifies the token; the route enforces
 * the outcome, so that a refusal is answered with the contract's problem body (HTTP API
 * authorizers cannot shape their own 401).
 */
export type AuthorizerContext = { readonly principal: string } | { readonly rejection: TokenRejection };

/** Contexts made, by principal: the authorizer's token cache hands out the same principal for every request with a token. */
const accepted = new WeakMap<Principal, AuthorizerContext>();

export function acceptedContext(principal: Principal): AuthorizerContext {
  let context = accepted.get(principal);
  if (context === undefined) {
    context = { principal: JSON.stringify(principal) };
    accepted.set(principal, context);
  }
  return context;
}

/**
 * Principals read, by the context's text, which is the same for every request with a token:
 * each text is parsed and checked once per warm function. Frozen, as requests share them.
 * Bounded; the oldest entry goes first.
 */
const READ_CACHE_SIZE = 1000;
const read = new Map<string, Principal | 'invalid_token'>();

function principalOf(text: string): Principal | 'invalid_token' {
  const known = read.get(text);
  if (known !== undefined) return known;
  const parsed = Principal.safeParse(JSON.parse(text));
  if (parsed.success) [parsed.data.roles, parsed.data.permissions, parsed.data].forEach((part) => Object.freeze(part));
  const outcome = parsed.success ? parsed.data : 'invalid_token';
  if (read.size >= READ_CACHE_SIZE) read.delete(read.keys().next().value as string);
  read.set(text, outcome);
  return outcome;
}

export function principalFromContext(context: unknown): Principal | TokenRejection {
  if (typeof context === 'object' && context !== null) {
    if ('principal' in context && typeof context.principal === 'string') return principalOf(context.principal);
    if ('rejection' in context && typeof context.rejection === 'string') return context.rejection as TokenRejection;
  }
  return 'missing_token';
}
