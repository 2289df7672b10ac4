import { AppError } from '../errors/app-error';

/**
 * A place inside a bucket store, as a path restriction or a browse path names it:
 * "<bucket>" or "<bucket>/<folder>/...". Folders are prefixes ending in "/". The bucket
 * naming rule and the error codes differ by store family, the rest does not.
 */
export interface BucketLocation {
  readonly bucket: string;
  /** "" for the whole bucket, otherwise a folder prefix ending in "/". */
  readonly prefix: string;
}

export interface BucketRules {
  readonly isValidBucketName: (name: string) => boolean;
  readonly invalidBucket: (name: string, raw: string) => AppError;
  readonly invalidPath: (raw: string) => AppError;
  readonly outOfBounds: (requested: string, restriction: string) => AppError;
}

/** S3 naming rules for general purpose buckets. */
export const S3_BUCKETS: BucketRules = {
  isValidBucketName: (name) =>
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) &&
    !name.includes('..') &&
    !/^\d+\.\d+\.\d+\.\d+$/.test(name) &&
    !/^(xn--|sthree-|amzn-s3-demo-)/.test(name) &&
    !/(-s3alias|--ol-s3|--x-s3|\.mrap)$/.test(name),
  invalidBucket: (name) => new AppError('30-1115', { params: [name] }),
  invalidPath: (raw) => new AppError('30-1113', { extraDetails: { path: raw } }),
  outOfBounds: (requested, restriction) => new AppError('30-1106', { params: [requested, restriction] }),
};

/** Google Cloud Storage naming rules. */
export const GCS_BUCKETS: BucketRules = {
  isValidBucketName: (name) =>
    /^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/.test(name) &&
    name.split('.').every((part) => part.length > 0 && part.length <= 63) &&
    !/^goog/.test(name) &&
    !name.includes('google') &&
    !/^\d+\.\d+\.\d+\.\d+$/.test(name),
  invalidBucket: (_name, raw) => new AppError('30-1304', { extraDetails: { path: raw } }),
  invalidPath: (raw) => new AppError('30-1304', { extraDetails: { path: raw } }),
  outOfBounds: (requested, restriction) => new AppError('30-1306', { params: [requested, restriction] }),
};

export function parseBucketLocation(raw: string, rules: BucketRules): BucketLocation {
  const value = raw.trim().replace(/^\/+/, '');
  const slash = value.indexOf('/');
  const bucket = slash === -1 ? value : value.slice(0, slash);
  const rest = slash === -1 ? '' : value.slice(slash + 1);
  if (!rules.isValidBucketName(bucket)) throw rules.invalidBucket(bucket, raw);
  if (rest === '') return { bucket, prefix: '' };
  const segments = rest.replace(/\/$/, '').split('/');
  const invalid =
    rest.length > 1024 ||
    /[\\\u0000-\u001f\u007f]/.test(rest) ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..');
  if (invalid) throw rules.invalidPath(raw);
  return { bucket, prefix: `${segments.join('/')}/` };
}

export function formatLocation(location: BucketLocation): string {
  return `${location.bucket}/${location.prefix}`;
}

/**
 * How a data-source path names itself in messages: a folder as "<bucket>/<folder>/", a path
 * without a trailing slash (a file, or a folder of that name) as "<bucket>/<key>".
 */
export function shownPath(raw: string, location: BucketLocation): string {
  const named = raw.trim().replace(/^\/+/, '');
  return location.prefix === '' || named.endsWith('/')
    ? formatLocation(location)
    : `${location.bucket}/${location.prefix.slice(0, -1)}`;
}

/**
 * Refuses a location outside the connection's restriction (same bucket, folder at or below).
 * `shown` names the requested path in the message when it is not a folder (a file's path).
 */
export function assertWithin(
  requested: BucketLocation,
  restriction: BucketLocation,
  rules: BucketRules,
  shown = formatLocation(requested),
): void {
  if (requested.bucket !== restriction.bucket || !requested.prefix.startsWith(restriction.prefix)) {
    throw rules.outOfBounds(shown, formatLocation(restriction));
  }
}
