import { describe, expect, it } from 'vitest';
import {
  GCS_BUCKETS,
  S3_BUCKETS,
  assertWithin,
  formatLocation,
  parseBucketLocation,
  type BucketRules,
} from '../../../shared/connectors/bucket-location';
import { refusal } from '../../support/refusal';

describe('S3 bucket names', () => {
  it.each(['abc', 'my-bucket', 'my.bucket.name', 'bucket123', '123bucket', 'a'.repeat(63), 'a-b.c-d', '1.2.3'])(
    'accepts %s',
    (name) => {
      expect(S3_BUCKETS.isValidBucketName(name)).toBe(true);
    },
  );

  it.each([
    ['too short', 'ab'],
    ['too long', 'a'.repeat(64)],
    ['uppercase', 'My-Bucket'],
    ['underscore', 'my_bucket'],
    ['leading hyphen', '-bucket'],
    ['trailing hyphen', 'bucket-'],
    ['leading dot', '.bucket'],
    ['trailing dot', 'bucket.'],
    ['adjacent dots', 'my..bucket'],
    ['IP address', '192.168.5.4'],
    ['xn-- prefix', 'xn--bucket'],
    ['sthree- prefix', 'sthree-bucket'],
    ['-s3alias suffix', 'bucket-s3alias'],
    ['--ol-s3 suffix', 'bucket--ol-s3'],
    ['space', 'my bucket'],
    ['empty', ''],
  ])('refuses %s (%s)', (_label, name) => {
    expect(S3_BUCKETS.isValidBucketName(name)).toBe(false);
  });
});

describe('GCS bucket names', () => {
  it.each([
    'abc',
    'my-bucket',
    'my_bucket',
    'my.bucket',
    `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}`,
    'xn--bucket',
  ])('accepts %s', (name) => {
    expect(GCS_BUCKETS.isValidBucketName(name)).toBe(true);
  });

  it.each([
    ['too short', 'ab'],
    ['component longer than 63', 'a'.repeat(64)],
    ['dotted name longer than 222', `${'a'.repeat(60)}.`.repeat(4) + 'a'.repeat(10)],
    ['uppercase', 'MyBucket'],
    ['leading underscore', '_bucket'],
    ['trailing hyphen', 'bucket-'],
    ['adjacent dots', 'my..bucket'],
    ['IP address', '10.0.0.1'],
    ['goog prefix', 'goog-bucket'],
    ['contains google', 'my-google-bucket'],
    ['empty', ''],
  ])('refuses %s (%s)', (_label, name) => {
    expect(GCS_BUCKETS.isValidBucketName(name)).toBe(false);
  });
});

describe.each([
  ['S3', S3_BUCKETS, '30-1113'],
  ['GCS', GCS_BUCKETS, '30-1304'],
] as const)('parseBucketLocation (%s)', (_store, rules: BucketRules, invalidPathCode) => {
  it('reads a bucket alone as the whole bucket', () => {
    expect(parseBucketLocation('my-bucket', rules)).toEqual({ bucket: 'my-bucket', prefix: '' });
    expect(parseBucketLocation('my-bucket/', rules)).toEqual({ bucket: 'my-bucket', prefix: '' });
  });

  it('reads a folder as a prefix ending in "/"', () => {
    expect(parseBucketLocation('my-bucket/a/b', rules)).toEqual({ bucket: 'my-bucket', prefix: 'a/b/' });
    expect(parseBucketLocation('my-bucket/a/b/', rules)).toEqual({ bucket: 'my-bucket', prefix: 'a/b/' });
    expect(parseBucketLocation('my-bucket/folder with space/x.y', rules)).toEqual({
      bucket: 'my-bucket',
      prefix: 'folder with space/x.y/',
    });
  });

  it('tolerates leading slashes and surrounding space', () => {
    expect(parseBucketLocation('/my-bucket/a', rules)).toEqual({ bucket: 'my-bucket', prefix: 'a/' });
    expect(parseBucketLocation('//my-bucket', rules)).toEqual({ bucket: 'my-bucket', prefix: '' });
    expect(parseBucketLocation('  my-bucket/a  ', rules)).toEqual({ bucket: 'my-bucket', prefix: 'a/' });
  });

  it.each([
    ['an empty segment', 'my-bucket/a//b'],
    ['only slashes after the bucket', 'my-bucket//'],
    ['a parent segment', 'my-bucket/a/../b'],
    ['a leading parent segment', 'my-bucket/..'],
    ['a current segment', 'my-bucket/./a'],
    ['a backslash', 'my-bucket/a\\b'],
    ['a NUL', 'my-bucket/a\u0000b'],
    ['a newline', 'my-bucket/a\nb'],
    ['a DEL', 'my-bucket/a\u007fb'],
    ['more than 1024 characters', `my-bucket/${'a'.repeat(1025)}`],
  ])('refuses a path with %s', (_label, raw) => {
    const error = refusal(() => parseBucketLocation(raw, rules));
    expect(error.code).toBe(invalidPathCode);
    expect(error.status).toBe(400);
    expect(error.extraDetails).toEqual({ path: raw });
  });
});

describe('parseBucketLocation: invalid bucket names', () => {
  it('is 30-1115 naming the bucket for S3', () => {
    const error = refusal(() => parseBucketLocation('My_Bucket/folder', S3_BUCKETS));
    expect(error.code).toBe('30-1115');
    expect(error.message).toBe('Bucket name My_Bucket is invalid');
    expect(refusal(() => parseBucketLocation('192.168.1.1', S3_BUCKETS)).message).toBe(
      'Bucket name 192.168.1.1 is invalid',
    );
    expect(refusal(() => parseBucketLocation('', S3_BUCKETS)).code).toBe('30-1115');
  });

  it('is 30-1304 with the path for GCS', () => {
    const error = refusal(() => parseBucketLocation('goog-bucket/folder', GCS_BUCKETS));
    expect(error.code).toBe('30-1304');
    expect(error.message).toBe('Path invalid');
    expect(error.extraDetails).toEqual({ path: 'goog-bucket/folder' });
  });
});

describe('assertWithin', () => {
  const at = (raw: string, rules: BucketRules = S3_BUCKETS) => parseBucketLocation(raw, rules);

  it('allows the restriction itself and anything below it', () => {
    expect(() => assertWithin(at('data/a'), at('data/a'), S3_BUCKETS)).not.toThrow();
    expect(() => assertWithin(at('data/a/b/c'), at('data/a'), S3_BUCKETS)).not.toThrow();
    expect(() => assertWithin(at('data/anything'), at('data'), S3_BUCKETS)).not.toThrow();
    expect(() => assertWithin(at('data'), at('data'), S3_BUCKETS)).not.toThrow();
  });

  it('refuses a sibling folder that shares the prefix text, with both paths in the message (S3: 30-1106)', () => {
    const error = refusal(() => assertWithin(at('data/ab'), at('data/a'), S3_BUCKETS));
    expect(error.code).toBe('30-1106');
    expect(error.message).toBe('Path data/ab/ is out of path restriction bounds data/a/');
  });

  it('refuses a parent folder and another bucket', () => {
    expect(refusal(() => assertWithin(at('data'), at('data/a'), S3_BUCKETS)).message).toBe(
      'Path data/ is out of path restriction bounds data/a/',
    );
    expect(refusal(() => assertWithin(at('other/a'), at('data/a'), S3_BUCKETS)).message).toBe(
      'Path other/a/ is out of path restriction bounds data/a/',
    );
  });

  it('is 30-1306 with both paths for GCS', () => {
    const error = refusal(() =>
      assertWithin(at('bucket-x/b', GCS_BUCKETS), at('bucket-x/a', GCS_BUCKETS), GCS_BUCKETS),
    );
    expect(error.code).toBe('30-1306');
    expect(error.message).toBe('Path bucket-x/b/ is out of path restriction bounds bucket-x/a/');
  });

  it('formats a location as bucket/prefix', () => {
    expect(formatLocation({ bucket: 'b', prefix: '' })).toBe('b/');
    expect(formatLocation({ bucket: 'b', prefix: 'x/y/' })).toBe('b/x/y/');
  });
});
