import { assertDestinationAllowed, isAllowedPlainHttp } from '../connectors/outbound-guard';
import { outboundRequest } from '../connectors/outbound-http';
import { AppError, validationError } from '../errors/app-error';
import { DELIVERY, useGuardedPost } from './emit';
import { storeEndpoint } from './endpoints';

/**
 * What a tenant's own OpenLineage endpoint needs of the outbound guard (docs/lineage.md): the
 * check when an admin sets it, and every event to it sent through the guard. Only the admin
 * route that sets an endpoint and the job workers load this module (with the guard and
 * ipaddr.js); every other API route stays without them (test/infra/bundles.test.ts).
 */

/**
 * The URL an admin gives, checked: 10-1400 naming `url` when events may not go there. The
 * problem never repeats the URL, which may carry credentials.
 */
export function checkEndpointUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationError({ url: 'not an absolute URL' });
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowedPlainHttp(url)))
    throw validationError({ url: 'must be https (http only to a host the outbound allow-list names)' });
  // Refused rather than kept as a secret: the OpenLineage HTTP endpoint needs none in its URL, and what is stored is shown back.
  if (url.username !== '' || url.password !== '') throw validationError({ url: 'must not carry credentials' });
  if (url.search !== '' || url.hash !== '')
    throw validationError({ url: 'must have no query or fragment (they may carry a token)' });
  try {
    assertDestinationAllowed(url);
  } catch (error) {
    // A field of the request, so 10-1400 naming it; a name that resolves to such a host is refused when an event is sent.
    if (error instanceof AppError && error.code === '30-1130')
      throw validationError({ url: 'a loopback, private, link-local or metadata host is not allowed' });
    throw error;
  }
  return url;
}

/** Sets (or with null, removes) the tenant's own endpoint, checked first. */
export async function setEndpoint(tenantId: string, text: string | null): Promise<void> {
  await storeEndpoint(tenantId, text === null ? null : checkEndpointUrl(text));
}

/** One POST of an event to a tenant's own endpoint, through the outbound guard, bounded as every delivery is. */
async function guardedPost(url: string, body: string): Promise<void> {
  const answer = await outboundRequest({
    method: 'POST',
    url: new URL(url),
    headers: { 'content-type': 'application/json' },
    body,
    timeoutMs: DELIVERY.timeoutMs,
  });
  if (answer.status >= 300) throw new Error(`the endpoint answered ${answer.status}`);
}

/** Lets this process deliver events to tenants' own endpoints: what job workers call before their work. */
export function installGuardedDelivery(): void {
  useGuardedPost(guardedPost);
}
