/**
 * A data bucket that fails to give a bundle's files back (docs/apps.md): every S3 request of
 * this twin's functions goes through the relay of test/support/s3-gate.ts, which resets the
 * connections of the reads of one file, as a failing store does (the key exists: it is not a
 * missing file). Publishing then answers 502 80-8038 and leaves the version unpublished; serving
 * an asset answers 502 80-8039 while the app's other files are served. Both work on retry once
 * the store answers again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLocalPort } from '../../../infra/local/fakes/local-server';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { startS3Gate, type S3Gate } from '../../support/s3-gate';
import { appsClient, bundleWith, expectProblem, installed, opened } from './app-support';

const TENANT = 'apps-bundle-read';

let env: TestTwin;
let gate: S3Gate;
let admin: ApiClient;

beforeAll(async () => {
  const s3Port = await freeLocalPort();
  gate = await startS3Gate(`http://127.0.0.1:${s3Port}`);
  env = await startTestTwin({ s3Port, environment: { AWS_ENDPOINT_URL_S3: gate.endpoint } });
  admin = await appsClient(env, TENANT);
});
afterAll(async () => {
  await env?.close();
  await gate?.close();
});

/** Where the relay sees a file of version 1 of a bundle (path-style: /<bucket>/<key>). */
const fileOf = (bundleId: number, name: string) => `/apps/${TENANT}/${bundleId}/v1/${name}`;

describe('publishing while the bucket fails to give manifest.json back', () => {
  it('answers 80-8038 and keeps the version unpublished; a retry publishes it', async () => {
    const bundleId = await bundleWith(admin, 'Unreadable manifest', undefined, false);
    const publish = () => admin.call('publishAppBundleVersion', { params: { bundle_id: bundleId, version_number: 1 } });
    gate.breakReads(fileOf(bundleId, 'manifest.json'));
    let failed;
    try {
      failed = await publish();
    } finally {
      expect(gate.restoreReads()).toBeGreaterThan(0);
    }
    expectProblem(failed, 502, '80-8038');
    expect(failed.problem.detail).toBe(
      `Bundle ${bundleId} version 1 not published: manifest.json could not be read; retry`,
    );
    const bundle = await admin.call('getAppBundle', { params: { bundle_id: bundleId } });
    expect(bundle.body).toMatchObject({ published_version: null, versions: [{ status: 'UPLOADED', manifest: null }] });
    const retried = await publish();
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.published_version).toBe(1);
  });
});

describe('serving an asset the bucket fails to give back', () => {
  it('answers 80-8039 for that file only; the same request serves it once the bucket answers', async () => {
    const bundleId = await bundleWith(admin, 'Unreadable script');
    await installed(admin, bundleId);
    const { sessionId } = await opened(admin, bundleId);
    const asset = (name: string) =>
      env.anonymous.raw('GET', `/apps/installs/${bundleId}/sessions/${sessionId}/assets/${name}`);
    gate.breakReads(fileOf(bundleId, 'app.js'));
    let failed;
    let page;
    try {
      failed = await asset('app.js');
      page = await asset('index.html');
    } finally {
      expect(gate.restoreReads()).toBeGreaterThan(0);
    }
    expectProblem(failed, 502, '80-8039');
    expect(failed.problem.detail).toBe('Asset app.js could not be read; retry');
    expect(page.status, page.text).toBe(200);
    const served = await asset('app.js');
    expect(served.status, served.text).toBe(200);
    expect(served.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });
});
