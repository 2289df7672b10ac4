/**
 * What a Fargate task reaches on AWS (shared/jobs/task-reach.ts): the S3 of its stage's region
 * through the gateway endpoint, and what FARGATE_TASK_OUTBOUND names; the twin's tests
 * (test/integration/jobs/fargate.test.ts) cover its S3 stand-in.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors/app-error';
import { endpointSystems, launchOffTasks, launchReaching } from '../../../shared/jobs/task-reach';

const VARIABLES = ['AWS_ENDPOINT_URL_S3', 'AWS_REGION', 'FARGATE_TASK_OUTBOUND'] as const;
let saved: Partial<Record<(typeof VARIABLES)[number], string>>;

beforeEach(() => {
  saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  delete process.env.AWS_ENDPOINT_URL_S3;
  delete process.env.FARGATE_TASK_OUTBOUND;
  process.env.AWS_REGION = 'eu-west-1';
});

afterEach(() => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('what an engine task reaches on AWS', () => {
  it('the S3 of its region, path or bucket style, pre-signed or not; no other region, no other store', () => {
    expect(
      endpointSystems([
        'https://s3.eu-west-1.amazonaws.com',
        'https://exports.s3.eu-west-1.amazonaws.com/out/part?partNumber=1&X-Amz-Signature=abc',
      ]),
    ).toEqual([]);
    expect(endpointSystems(['https://s3.us-east-1.amazonaws.com', 'https://minio.example.com:9000'])).toEqual([
      { what: 'the endpoint https://s3.us-east-1.amazonaws.com', hosts: ['s3.us-east-1.amazonaws.com:443'] },
      { what: 'the endpoint https://minio.example.com:9000', hosts: ['minio.example.com:9000'] },
    ]);
  });

  it('auto stays on Lambda for a system it cannot reach; fargate forced is 10-1400 naming launch; lambda is left alone', () => {
    const outside = endpointSystems(['https://minio.example.com:9000']);
    expect(launchReaching('auto', outside)).toBe('lambda');
    expect(launchReaching('lambda', outside)).toBe('lambda');
    let refusal: unknown;
    try {
      launchReaching('fargate', outside);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({
      code: '10-1400',
      extraDetails: { launch: expect.stringContaining('the endpoint https://minio.example.com:9000') },
    });
    expect(launchReaching('fargate', endpointSystems(['https://s3.eu-west-1.amazonaws.com']))).toBe('fargate');
  });

  it('work that never runs on a task (a trino-sql build) stays off tasks even where tasks reach everywhere', () => {
    process.env.FARGATE_TASK_OUTBOUND = '*';
    const why = 'the run builds node 4, a trino-sql recipe';
    expect(launchOffTasks('auto', why)).toBe('lambda');
    expect(launchOffTasks('lambda', why)).toBe('lambda');
    expect(() => launchOffTasks('fargate', why)).toThrow(
      expect.objectContaining({ code: '10-1400', extraDetails: { launch: expect.stringContaining(why) } }),
    );
    expect(launchOffTasks('fargate', undefined)).toBe('fargate');
    expect(launchOffTasks('auto', undefined)).toBe('auto');
  });

  it('FARGATE_TASK_OUTBOUND: a host and port, a host on any port, or * for anywhere', () => {
    const outside = endpointSystems(['https://minio.example.com:9000']);
    for (const entry of ['minio.example.com:9000', 'MINIO.example.com', '*']) {
      process.env.FARGATE_TASK_OUTBOUND = `other.example.com:1, ${entry}`;
      expect(launchReaching('auto', outside)).toBe('auto');
      expect(launchReaching('fargate', outside)).toBe('fargate');
    }
    process.env.FARGATE_TASK_OUTBOUND = 'minio.example.com:9001';
    expect(launchReaching('auto', outside)).toBe('lambda');
    // A system whose hosts are not all known (a warehouse's driver): only `*` reaches it.
    const unknown = [{ what: 'connection 3 (warehouse)', hosts: [] }];
    expect(launchReaching('auto', unknown)).toBe('lambda');
    process.env.FARGATE_TASK_OUTBOUND = '*';
    expect(launchReaching('auto', unknown)).toBe('auto');
  });
});
