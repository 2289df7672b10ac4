/**
 * The sample app of examples/apps/table-lister opened as a person would, in the real browser
 * of the API reference page's test (test/support/chromium.ts): published, installed, opened
 * through its session's open_url, it lists the tenant's tables through the API with its SDK
 * token, asks nothing of any other host, and breaks none of its content security policy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumExecutable } from '../../support/chromium';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createBucketSource, createObjectStoreConnection } from '../../support/imports';
import { appsClient, bundleWith, installed, opened } from './app-support';

/** Kept out of the repository: where the test leaves its picture of the app. */
const SCREENSHOT = join(tmpdir(), 'dps-app-table-lister.png');
const TABLES = ['Orders', 'Customers', 'Returns'];

let env: TestTwin;
let profile: string;
let browser: BrowserContext;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'] });
  profile = mkdtempSync(join(tmpdir(), 'dps-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: await chromiumExecutable(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
});
afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await env?.close();
});

it('lists the tenant’s tables in the browser, calling only this API', async () => {
  const admin = await appsClient(env, 'apps-browser');
  const connectionId = await createObjectStoreConnection(admin, env);
  const sourceId = await createBucketSource(admin, connectionId, 'landing/sales/');
  for (const name of TABLES) {
    const table = await admin.call('createDataTable', { body: { name, data_source_id: sourceId } });
    expect(table.status, table.text).toBe(201);
  }
  const bundleId = await bundleWith(admin, 'Table lister');
  await installed(admin, bundleId);
  const { openUrl, sessionId } = await opened(admin, bundleId);

  const page = await browser.newPage();
  const requested: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  try {
    await page.goto(`${env.twin.apiUrl}/${openUrl}`);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 30_000 });
    expect(await page.locator('#tables li').allTextContents()).toEqual([...TABLES].sort());
    expect(await page.locator('#status').textContent()).toBe('3 tables');
    // The token left the address bar as soon as the app read it.
    expect(page.url()).not.toContain('sdk_token');
    const origin = new URL(env.twin.apiUrl).origin;
    expect(requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    expect(problems).toEqual([]);
    const session = await admin.call('getAppSession', { params: { bundle_id: bundleId, session_id: sessionId } });
    expect(session.body.last_activity_date > session.body.started_date).toBe(true);
    await page.screenshot({ path: SCREENSHOT });
    console.warn(`Sample app table-lister: screenshot ${SCREENSHOT}`);
  } finally {
    await page.close();
  }
});
