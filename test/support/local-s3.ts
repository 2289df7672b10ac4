import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';

/** A client of the twin's S3 stand-in at `endpoint`, as a test reaches it from outside the service. */
export function localS3Client(endpoint: string, options: Omit<S3ClientConfig, 'endpoint'> = {}): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: LOCAL_S3_CREDENTIALS,
    ...options,
  });
}
