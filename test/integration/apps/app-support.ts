/**
 * What the app tests share: a tenant with the apps toggle on, the sample bundle of
 * examples/apps/table-lister as an upload body (test/support/app-files.ts), and a bundle published from it.
 */
import { expect } from 'vitest';
import type { RoleName } from '../../../shared/auth/permissions';
import type { ApiClient, ResponseBody } from '../../support/api-client';
import type { TestTwin } from '../../support/harness';
import { sampleFiles } from '../../support/app-files';
import { waitForJob } from '../../support/imports';

export { fileOf, sampleFiles, sampleManifest, type UploadedFiles } from '../../support/app-files';

/** A client of `tenantId` with `roles`; the tenant gets the apps toggle on first unless `appsOn` is false. */
export async function appsClient(
  env: TestTwin,
  tenantId: string,
  roles: readonly RoleName[] = ['admin'],
  appsOn = true,
): Promise<ApiClient> {
  // The client first: it makes the tenant, and only a registered tenant has overrides (50-1003).
  const api = await env.clientFor(tenantId, roles);
  if (appsOn) {
    const override = await env.platformAdmin.call('setFeatureToggleOverride', {
      params: { toggle_name: 'apps', tenant_id: tenantId },
      body: { strategy: 'on' },
    });
    expect(override.status, override.text).toBe(200);
  }
  return api;
}

/** A new bundle with `files` uploaded as version 1, published unless `publish` is false. */
export async function bundleWith(api: ApiClient, name: string, files = sampleFiles(), publish = true): Promise<number> {
  const created = await api.call('createAppBundle', { body: { name } });
  expect(created.status, created.text).toBe(201);
  const bundleId = created.body.id;
  const uploaded = await api.call('uploadAppBundleVersion', { params: { bundle_id: bundleId }, body: { files } });
  expect(uploaded.status, uploaded.text).toBe(201);
  if (publish) {
    const published = await api.call('publishAppBundleVersion', { params: { bundle_id: bundleId, version_number: 1 } });
    expect(published.status, published.text).toBe(200);
  }
  return bundleId;
}

/** Polls the install until its latest job has ended (test/support/imports.ts waitForJob); the install then. */
export function settledInstall(api: ApiClient, bundleId: number): Promise<ResponseBody<'getAppInstall'>> {
  return waitForJob(
    () => api.call('getAppInstall', { params: { bundle_id: bundleId } }),
    (install) => install.execution ?? { status: 'COMPLETED' },
  );
}

/** Installs the bundle: 202 INSTALLING, then its job makes it INSTALLED. */
export async function installed(api: ApiClient, bundleId: number): Promise<ResponseBody<'getAppInstall'>> {
  const install = await api.call('installApp', { body: { bundle_id: bundleId } });
  expect(install.status, install.text).toBe(202);
  expect(install.body.status).toBe('INSTALLING');
  const settled = await settledInstall(api, bundleId);
  expect(settled.status, JSON.stringify(settled.execution)).toBe('INSTALLED');
  return settled;
}

/** Uninstalls the app: 202 UNINSTALLING, then its job makes it NOT_INSTALLED. */
export async function uninstalled(api: ApiClient, bundleId: number): Promise<void> {
  const uninstall = await api.call('uninstallApp', { params: { bundle_id: bundleId } });
  expect(uninstall.status, uninstall.text).toBe(202);
  expect(uninstall.body.status).toBe('UNINSTALLING');
  const settled = await settledInstall(api, bundleId);
  expect(settled.status, JSON.stringify(settled.execution)).toBe('NOT_INSTALLED');
}

/** Opens the installed app: its session id and SDK token. */
export async function opened(
  api: ApiClient,
  bundleId: number,
): Promise<{ sessionId: string; sdkToken: string; openUrl: string }> {
  const started = await api.call('startAppSession', { params: { bundle_id: bundleId }, body: {} });
  expect(started.status, started.text).toBe(201);
  return { sessionId: started.body.session_id, sdkToken: started.body.sdk_token, openUrl: started.body.open_url };
}

/** Expects a problem answer with `status` and `code`. */
export function expectProblem(
  answer: { status: number; problem: { code: string }; text: string },
  status: number,
  code: string,
): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.problem.code).toBe(code);
}
