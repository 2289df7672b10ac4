import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors/app-error';
import { parseObjectStoreEndpoint } from '../../../../shared/connectors/object-store/endpoint';

function refusal(raw: string): AppError {
  try {
    parseObjectStoreEndpoint(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error(`expected ${raw} to be refused`);
}

describe('parseObjectStoreEndpoint', () => {
  it.each([
    ['https://s3.eu-west-1.amazonaws.com', 'eu-west-1'],
    ['https://s3-us-west-2.amazonaws.com', 'us-west-2'],
    ['https://s3.dualstack.eu-central-1.amazonaws.com', 'eu-central-1'],
    ['https://bucket.s3.ap-south-1.amazonaws.com', 'ap-south-1'],
    ['https://s3-fips.us-gov-west-1.amazonaws.com', 'us-gov-west-1'],
    ['https://s3.cn-north-1.amazonaws.com.cn', 'cn-north-1'],
    ['https://S3.AP-SOUTHEAST-2.AMAZONAWS.COM', 'ap-southeast-2'],
    ['https://s3.amazonaws.com', 'us-east-1'],
    ['https://legacy-bucket.s3.amazonaws.com', 'us-east-1'],
    ['https://s3-external-1.amazonaws.com', 'us-east-1'],
  ])('takes the region of %s: %s', (raw, region) => {
    expect(parseObjectStoreEndpoint(raw).region).toBe(region);
  });

  it('signs for us-east-1 on hosts that are not AWS', () => {
    expect(parseObjectStoreEndpoint('https://minio.example.com:9000').region).toBe('us-east-1');
    expect(parseObjectStoreEndpoint('https://storage.googleapis.com').region).toBe('us-east-1');
    expect(parseObjectStoreEndpoint('https://s3.eu-west-1.amazonaws.com.example.org').region).toBe('us-east-1');
  });

  it('returns the parsed URL', () => {
    const { url } = parseObjectStoreEndpoint('https://minio.example.com:9000/');
    expect(url.origin).toBe('https://minio.example.com:9000');
  });

  it('refuses an AWS host without a valid region with 30-1111', () => {
    for (const raw of [
      'https://ec2.amazonaws.com',
      'https://s3.nowhere.amazonaws.com',
      'https://s3.eu-west.amazonaws.com',
    ]) {
      const error = refusal(raw);
      expect(error.code, raw).toBe('30-1111');
      expect(error.status).toBe(400);
      expect(error.message).toBe('The connection endpoint must contain a valid region');
      expect(error.extraDetails).toEqual({ endpoint: new URL(raw).origin });
    }
  });

  it('applies the service URL rules to the endpoint field', () => {
    const insecure = refusal('http://s3.eu-west-1.amazonaws.com');
    expect(insecure.code).toBe('10-1008');
    expect(insecure.extraDetails).toEqual({ 'auth.endpoint': 'must be an absolute https:// URL' });
    expect(refusal('https://169.254.169.254').code).toBe('30-1130');
  });
});
