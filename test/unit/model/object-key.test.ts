/**
 * The object-key rule (S3's 1024 bytes of UTF-8, a file name's 255 bytes per segment) as the
 * request schemas apply it to every key a user chooses.
 */
import { describe, expect, it } from 'vitest';
import { BrowseRequest } from '../../../shared/model/browse';
import { DataSourceCreateRequest } from '../../../shared/model/data-source';
import { DirectExportRequest } from '../../../shared/model/export';
import { objectKeyProblem } from '../../../shared/model/object-key';
import { TargetCreateRequest } from '../../../shared/model/target';

const segment = (bytes: number, unit = 'x') => unit.repeat(bytes / Buffer.byteLength(unit));

describe('objectKeyProblem', () => {
  // Four folders of 200 bytes and their slashes: 804 bytes; 110 é are 220 more.
  const folders = Array.from({ length: 4 }, () => segment(200)).join('/');

  it('accepts a key of 1024 bytes and a segment of 255 bytes, counted in UTF-8', () => {
    const key = `${folders}/${segment(220, 'é')}`;
    expect(Buffer.byteLength(key)).toBe(1024);
    expect(objectKeyProblem(key)).toBeUndefined();
    expect(objectKeyProblem(`out/${segment(255)}`)).toBeUndefined();
  });

  it('refuses 1025 bytes, and a segment of 256 bytes, also when the characters number fewer', () => {
    expect(objectKeyProblem(`${folders}/${segment(220, 'é')}x`)).toMatch(/at most 1024 bytes.*not 1025/);
    expect(objectKeyProblem(`out/${segment(256)}`)).toMatch(/longer than 255 bytes.*not 256/);
    // 128 characters, 256 bytes.
    expect(objectKeyProblem(`out/${segment(256, 'é')}/x`)).toMatch(/longer than 255 bytes.*not 256/);
  });
});

describe('request schemas', () => {
  const issuePaths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
    result.error?.issues.map((issue) => issue.path.join('.')) ?? [];

  it("refuse an export's key, a data source's path, a target's folder and a browse path that cannot be stored", () => {
    const export_ = DirectExportRequest.safeParse({
      source_type: 'datatable',
      source_id: 1,
      source_version: 1,
      bucket: 'exports',
      key: `out/${segment(300)}.parquet`,
      endpoint: 'https://s3.example.com',
      access_key: 'AKIAEXAMPLE',
      secret_key: 'b',
    });
    expect(issuePaths(export_)).toEqual(['key']);
    const source = DataSourceCreateRequest.safeParse({
      name: 'n',
      type: 'bucket',
      connection_id: 1,
      path: `landing/${segment(256)}/`,
    });
    expect(issuePaths(source)).toEqual(['path']);
    const target = TargetCreateRequest.safeParse({
      name: 'n',
      type: 'bucket',
      connection_id: 1,
      path: `exports/${segment(100)}/${segment(257)}`,
    });
    expect(issuePaths(target)).toEqual(['path']);
    expect(issuePaths(BrowseRequest.safeParse({ path: `landing/${segment(256)}/` }))).toEqual(['path']);
  });

  it('count the bucket out of a path: a 255-byte folder after it is storable', () => {
    const source = DataSourceCreateRequest.safeParse({
      name: 'n',
      type: 'bucket',
      connection_id: 1,
      path: `landing/${segment(255)}/`,
    });
    expect(source.success, JSON.stringify(source.error)).toBe(true);
    expect(BrowseRequest.safeParse({ path: `/landing/${segment(255)}/` }).success).toBe(true);
  });
});
