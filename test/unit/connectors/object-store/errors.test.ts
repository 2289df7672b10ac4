import {
  ListBucketsCommand,
  ListObjectsV2Command,
  NoSuchBucket,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors/app-error';
import { OutboundDestinationBlocked } from '../../../../shared/connectors/outbound-guard';
import { objectStoreError } from '../../../../shared/connectors/object-store/errors';
import { testObjectStore } from '../../../../shared/connectors/object-store/test';

/**
 * The failures a real S3 produces but the local stand-in cannot: the store answers through a
 * mocked S3Client, and the connection test must translate each into its catalogue code.
 */
const s3 = mockClient(S3Client);
beforeEach(() => s3.reset());
afterAll(() => s3.restore());

const PROVIDER_MESSAGE =
  'The request signature we calculated does not match; AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG';

function serviceError(
  name: string,
  status: number | undefined,
  fault: 'client' | 'server' = 'client',
): S3ServiceException {
  return new S3ServiceException({
    name,
    $fault: fault,
    message: PROVIDER_MESSAGE,
    $metadata: status === undefined ? {} : { httpStatusCode: status },
  });
}

async function failureOf(pathRestriction: string | null = 'sales-data/2024'): Promise<AppError> {
  try {
    await testObjectStore({
      endpoint: 'https://s3.eu-west-1.amazonaws.com',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      pathRestriction,
    });
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    // The provider's own message never reaches the caller.
    expect(JSON.stringify({ message: appError.message, extraDetails: appError.extraDetails })).not.toContain('AKIA');
    return appError;
  }
  throw new Error('expected the connection test to fail');
}

describe('connection test of an object store: provider failures', () => {
  it('SignatureDoesNotMatch → 30-1117 (secret key)', async () => {
    s3.on(ListObjectsV2Command).rejects(serviceError('SignatureDoesNotMatch', 403));
    const error = await failureOf();
    expect(error.code).toBe('30-1117');
    expect(error.status).toBe(400);
    expect(error.message).toBe('Check the connection secret key; signature mismatch');
  });

  it('InvalidAccessKeyId → 30-1116 (access key)', async () => {
    s3.on(ListObjectsV2Command).rejects(serviceError('InvalidAccessKeyId', 403));
    const error = await failureOf();
    expect(error.code).toBe('30-1116');
    expect(error.message).toBe('Check the connection access key; signature mismatch');
  });

  it('NoSuchBucket (the modelled exception) → 30-1108 naming the bucket', async () => {
    s3.on(ListObjectsV2Command).rejects(
      new NoSuchBucket({ message: PROVIDER_MESSAGE, $metadata: { httpStatusCode: 404 } }),
    );
    const error = await failureOf('sales-data/2024');
    expect(error.code).toBe('30-1108');
    expect(error.message).toBe('Bucket sales-data does not exist');
  });

  it('InvalidBucketName → 30-1115 naming the bucket', async () => {
    s3.on(ListObjectsV2Command).rejects(serviceError('InvalidBucketName', 400));
    const error = await failureOf('sales-data');
    expect(error.code).toBe('30-1115');
    expect(error.message).toBe('Bucket name sales-data is invalid');
  });

  it('PermanentRedirect → 30-1112 (status 301) naming the bucket', async () => {
    s3.on(ListObjectsV2Command).rejects(serviceError('PermanentRedirect', 301));
    const error = await failureOf();
    expect(error.code).toBe('30-1112');
    expect(error.status).toBe(301);
    expect(error.message).toBe('Bucket sales-data is on a different endpoint');
  });

  it('an unnamed 301 answer → 30-1112', async () => {
    s3.on(ListObjectsV2Command).rejects(serviceError('Unknown', 301));
    expect((await failureOf()).code).toBe('30-1112');
  });

  it('AuthorizationHeaderMalformed (wrong region) → 30-1111', async () => {
    s3.on(ListObjectsV2Command).rejects(serviceError('AuthorizationHeaderMalformed', 400));
    const error = await failureOf();
    expect(error.code).toBe('30-1111');
    expect(error.message).toBe('The connection endpoint must contain a valid region');
  });

  it('a TimeoutError of the HTTP handler → 30-1110 (status 408)', async () => {
    s3.on(ListObjectsV2Command).rejects(
      Object.assign(new Error('Connection timed out after 10000 ms'), { name: 'TimeoutError' }),
    );
    const error = await failureOf();
    expect(error.code).toBe('30-1110');
    expect(error.status).toBe(408);
    expect(error.message).toBe('Object-storage operation timed out');
  });

  it('an AbortError (the overall deadline) → 30-1110', async () => {
    s3.on(ListObjectsV2Command).rejects(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
    expect((await failureOf()).code).toBe('30-1110');
  });

  it('a socket timeout code → 30-1110', async () => {
    s3.on(ListObjectsV2Command).rejects(Object.assign(new Error('socket'), { name: undefined, code: 'ETIMEDOUT' }));
    expect((await failureOf()).code).toBe('30-1110');
  });

  it('an unknown provider error → 30-1100 with the provider code and status only', async () => {
    s3.on(ListObjectsV2Command).rejects(serviceError('InternalError', 500, 'server'));
    const error = await failureOf();
    expect(error.code).toBe('30-1100');
    expect(error.status).toBe(400);
    expect(error.message).toBe('An object-storage provider issue occurred');
    expect(error.extraDetails).toEqual({ provider_error: 'InternalError', provider_status: 500 });
  });

  it('an unknown failure without status → 30-1100 without provider_status', async () => {
    s3.on(ListObjectsV2Command).rejects(serviceError('SomethingOdd', undefined));
    expect((await failureOf()).extraDetails).toEqual({ provider_error: 'SomethingOdd' });
  });

  it('an exception raised on our side → 30-1100 that names no JavaScript class', async () => {
    for (const failure of [
      new TypeError('Invalid character in header content ["authorization"]'),
      new RangeError('x'),
      new URIError('URI malformed'),
    ]) {
      s3.on(ListObjectsV2Command).rejects(failure);
      const error = await failureOf();
      expect(error.code).toBe('30-1100');
      expect(error.extraDetails).toEqual({ provider_error: 'Unknown' });
    }
    s3.on(ListObjectsV2Command).rejects(Object.assign(new TypeError('bad header'), { code: 'ERR_INVALID_CHAR' }));
    expect((await failureOf()).extraDetails).toEqual({ provider_error: 'Unknown' });
  });

  it('a network failure → 30-1100 with its error code', async () => {
    s3.on(ListObjectsV2Command).rejects(
      Object.assign(new Error('connect ECONNREFUSED 203.0.113.9:443'), { code: 'ECONNREFUSED' }),
    );
    expect((await failureOf()).extraDetails).toEqual({ provider_error: 'connection_refused' });
  });

  it('a destination refused by the outbound guard → 30-1130', async () => {
    s3.on(ListObjectsV2Command).rejects(new OutboundDestinationBlocked('internal.example.com'));
    const direct = await failureOf();
    expect(direct.code).toBe('30-1130');
    expect(direct.extraDetails).toEqual({ host: 'internal.example.com' });

    s3.on(ListObjectsV2Command).rejects(
      new Error('getaddrinfo failed', { cause: new OutboundDestinationBlocked('internal.example.com') }),
    );
    const wrapped = await failureOf();
    expect(wrapped.code).toBe('30-1130');
    expect(wrapped.extraDetails).toEqual({ host: 'internal.example.com' });
  });

  it('also maps failures of the bucket listing used without a path restriction', async () => {
    s3.on(ListBucketsCommand).rejects(serviceError('InvalidAccessKeyId', 403));
    expect((await failureOf(null)).code).toBe('30-1116');
  });
});

describe('connection test of an object store: success and missing folder', () => {
  it('lists the restricted folder with a delimiter and succeeds when it has content', async () => {
    s3.on(ListObjectsV2Command).resolves({ KeyCount: 1 });
    await expect(
      testObjectStore({
        endpoint: 'https://s3.eu-west-1.amazonaws.com',
        accessKeyId: 'a',
        secretAccessKey: 'b',
        pathRestriction: 'sales-data/2024',
      }),
    ).resolves.toBeUndefined();
    const calls = s3.commandCalls(ListObjectsV2Command);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toMatchObject({ Bucket: 'sales-data', Prefix: '2024/', Delimiter: '/' });
  });

  it('is 30-1114 when the restricted folder is empty or missing', async () => {
    s3.on(ListObjectsV2Command).resolves({ KeyCount: 0 });
    const error = await failureOf('sales-data/2024');
    expect(error.code).toBe('30-1114');
    expect(error.message).toBe('Path sales-data/2024/ does not exist');
  });

  it('accepts an empty bucket restricted to the whole bucket', async () => {
    s3.on(ListObjectsV2Command).resolves({ KeyCount: 0 });
    await expect(
      testObjectStore({
        endpoint: 'https://s3.eu-west-1.amazonaws.com',
        accessKeyId: 'a',
        secretAccessKey: 'b',
        pathRestriction: 'sales-data',
      }),
    ).resolves.toBeUndefined();
  });

  it('lists buckets when there is no path restriction', async () => {
    s3.on(ListBucketsCommand).resolves({ Buckets: [] });
    await expect(
      testObjectStore({
        endpoint: 'https://s3.eu-west-1.amazonaws.com',
        accessKeyId: 'a',
        secretAccessKey: 'b',
        pathRestriction: undefined,
      }),
    ).resolves.toBeUndefined();
    expect(s3.commandCalls(ListBucketsCommand)).toHaveLength(1);
    expect(s3.commandCalls(ListObjectsV2Command)).toHaveLength(0);
  });
});

describe('objectStoreError', () => {
  it('passes an AppError through unchanged', () => {
    const original = new AppError('30-1114', { params: ['b/x/'] });
    expect(objectStoreError(original, 'b')).toBe(original);
  });

  it('prefers the provider Code over the exception name', () => {
    const error = Object.assign(serviceError('Unknown', 400), { Code: 'NoSuchBucket' });
    const mapped = objectStoreError(error, 'reports');
    expect(mapped.code).toBe('30-1108');
    expect(mapped.message).toBe('Bucket reports does not exist');
  });

  it('keeps the provider error as the technical cause', () => {
    const error = serviceError('SignatureDoesNotMatch', 403);
    expect(objectStoreError(error, 'b').cause).toBe(error);
  });

  it('maps a failure that is not an object to 30-1100 Unknown', () => {
    expect(objectStoreError(undefined, undefined).extraDetails).toEqual({ provider_error: 'Unknown' });
  });
});
