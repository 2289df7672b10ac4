import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { S3Client } from '@aws-sdk/client-s3';
import { guardedLookup, portOf } from '../outbound-guard';
import type { ObjectStoreEndpoint } from './endpoint';

export interface ObjectStoreCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/**
 * An S3 client for a user's store: path-style addressing (what S3-compatible stores
 * support), every connection through the outbound guard, and each request bounded by the
 * connector timeout.
 */
export function objectStoreClient(
  endpoint: ObjectStoreEndpoint,
  credentials: ObjectStoreCredentials,
  timeoutMs: number,
): S3Client {
  const lookup = guardedLookup(portOf(endpoint.url));
  return new S3Client({
    endpoint: endpoint.url.origin,
    region: endpoint.region,
    forcePathStyle: true,
    credentials,
    maxAttempts: 2,
    // Checksums only where S3 requires them: a streamed upload (an export's parts) with a
    // default checksum goes out aws-chunked with a trailer, which S3-compatible stores such
    // as s3rver store verbatim.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Options rather than a handler instance: the SDK builds its own Node handler, so the
    // bundle does not carry a second copy of @smithy/node-http-handler.
    requestHandler: {
      connectionTimeout: timeoutMs,
      requestTimeout: timeoutMs,
      throwOnRequestTimeout: true,
      httpAgent: new HttpAgent({ lookup }),
      httpsAgent: new HttpsAgent({ lookup }),
    },
  });
}
