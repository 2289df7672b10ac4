import { AppError } from '../errors/app-error';
import { assertDestinationAllowed, isAllowedPlainHttp } from './outbound-guard';

function invalidUrl(field: string, rule: string): AppError {
  return new AppError('10-1008', { extraDetails: { [field]: rule } });
}

/**
 * A URL of an external service named in a connection (S3 endpoint, token URL, ...): absolute,
 * https (plain http only for an allow-listed destination such as the twin's own S3), no
 * credentials or fragment, and not a forbidden destination (30-1130).
 */
export function serviceUrl(raw: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalidUrl(field, 'must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowedPlainHttp(url))) {
    throw invalidUrl(field, 'must be an absolute https:// URL');
  }
  if (url.hostname === '') throw invalidUrl(field, 'must name a host');
  if (url.username !== '' || url.password !== '') throw invalidUrl(field, 'must not carry credentials');
  if (url.hash !== '') throw invalidUrl(field, 'must not have a fragment');
  assertDestinationAllowed(url);
  return url;
}

const HOSTNAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::\d{1,5})?$/i;

/** A host field: a host name (optionally with :port) or an https URL. */
export function serviceHost(raw: string, field: string): URL {
  const value = raw.trim();
  if (value.includes('://')) return serviceUrl(value, field);
  if (!HOSTNAME.test(value)) throw invalidUrl(field, 'must be a host name or an https:// URL');
  return serviceUrl(`https://${value}`, field);
}
