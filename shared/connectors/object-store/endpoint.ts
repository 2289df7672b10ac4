import { AppError } from '../../errors/app-error';
import { serviceUrl } from '../endpoint';

export interface ObjectStoreEndpoint {
  readonly url: URL;
  /** Signing region: from an AWS host name, otherwise us-east-1 (what S3-compatible stores accept). */
  readonly region: string;
}

const AWS_HOST = /\.amazonaws\.com(?:\.cn)?$/;
const AWS_REGIONAL_HOST =
  /(?:^|\.)s3(?:[.-]fips)?(?:\.dualstack)?[.-]((?:[a-z]{2}(?:-iso[a-z]?|-gov)?)-[a-z]+-\d)\.amazonaws\.com(?:\.cn)?$/;

export function parseObjectStoreEndpoint(raw: string): ObjectStoreEndpoint {
  const url = serviceUrl(raw, 'auth.endpoint');
  const host = url.hostname.toLowerCase();
  if (!AWS_HOST.test(host)) return { url, region: 'us-east-1' };
  const region = awsS3RegionOf(host);
  if (!region) throw new AppError('30-1111', { extraDetails: { endpoint: url.origin } });
  return { url, region };
}

/** The region of an AWS S3 host name (bucket-style or not); undefined for any other host. */
export function awsS3RegionOf(hostname: string): string | undefined {
  const host = hostname.toLowerCase();
  if (!AWS_HOST.test(host)) return undefined;
  // The global endpoint and its legacy names sign for us-east-1.
  if (/(?:^|\.)s3(?:-external-1)?\.amazonaws\.com$/.test(host)) return 'us-east-1';
  return AWS_REGIONAL_HOST.exec(host)?.[1];
}
