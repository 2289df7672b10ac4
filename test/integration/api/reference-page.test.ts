/**
 * GET /docs, the API reference page, opened as a person would: in a real browser (Chromium,
 * headless, driven by playwright-core; a system one where the machine has it, else the one the
 * `@sparticuz/chromium` dev dependency ships, so `npm ci` is all the set-up: see
 * test/support/chromium.ts). Every domain of the OpenAPI document and every operation in it is
 * on the page; the page asks nothing of any host but the service. The renderer is served by
 * the service as deployed too: the bundled function answers it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { routes } from '../../../functions/routes';
import { bundleFunction } from '../../../infra/bundling';
import type { ApiEvent, ApiHandler } from '../../../shared/http/handler';
import { chromiumExecutable } from '../../support/chromium';
import { startTestTwin, type TestTwin } from '../../support/harness';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Kept out of the repository: where the test leaves its picture of the page. */
const SCREENSHOT = join(tmpdir(), 'dps-api-reference.png');

const OpenApiDocument = z.looseObject({
  tags: z.array(z.object({ name: z.string(), description: z.string() })),
  paths: z.record(
    z.string(),
    z.record(z.string(), z.looseObject({ operationId: z.string(), summary: z.string(), tags: z.tuple([z.string()]) })),
  ),
});
/** Ids and texts as the page reads them; the renderer adds a link anchor and a space to headings. */
const DrawnText = z.object({
  headings: z.array(z.tuple([z.string(), z.string()])),
  labels: z.array(z.tuple([z.string(), z.string()])),
});
type Operation = { readonly operationId: string; readonly summary: string; readonly tag: string };

let env: TestTwin;
let operations: Operation[];
let tags: string[];
let profile: string;
let browser: BrowserContext;

beforeAll(async () => {
  env = await startTestTwin();
  const document = OpenApiDocument.parse((await env.anonymous.call('getOpenApiDocument')).body);
  tags = document.tags.map((tag) => tag.name);
  operations = Object.values(document.paths).flatMap((methods) =>
    Object.values(methods).map(({ operationId, summary, tags: [tag] }) => ({ operationId, summary, tag })),
  );
  profile = mkdtempSync(join(tmpdir(), 'dps-chromium-'));
  const executablePath = await chromiumExecutable();
  browser = await chromium
    .launchPersistentContext(profile, {
      executablePath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
    .catch((error: unknown) => {
      throw new Error(
        `${executablePath} did not start (CHROMIUM names another; test/support/chromium.ts): ${String(error)}`,
      );
    });
});
afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await env?.close();
});

/**
 * What the page shows, read in one call to the browser: each section's first heading and each side
 * menu entry's label, by their ids. One locator round trip per operation (hundreds of them) took
 * longer than a test's time limit on a loaded 2-core machine.
 */
async function drawnText(page: Page): Promise<{ headings: Map<string, string>; labels: Map<string, string> }> {
  // A string, run in the page: this project's types describe Node, not the browser's DOM.
  const { headings, labels } = DrawnText.parse(
    await page.evaluate(`({
      headings: [...document.querySelectorAll('[data-section-id]')].map((section) => [
        section.getAttribute('data-section-id'),
        section.querySelector('h2')?.textContent?.trim() ?? '',
      ]),
      labels: [...document.querySelectorAll('li[data-item-id]')].map((item) => [
        item.getAttribute('data-item-id'),
        item.querySelector(':scope > label')?.textContent ?? '',
      ]),
    })`),
  );
  return { headings: new Map(headings), labels: new Map(labels) };
}

/** Opens the page and waits until the renderer has drawn the document. */
async function open(page: Page): Promise<void> {
  const response = await page.goto(`${env.twin.apiUrl}/docs`);
  expect(response?.status()).toBe(200);
  await page.waitForSelector(`[data-section-id="tag/${tags.at(-1)}"]`, { timeout: 20_000 });
}

describe('GET /docs in a browser', () => {
  it('lists every domain and every operation of the OpenAPI document', async () => {
    const page = await browser.newPage();
    try {
      await open(page);
      // Every domain of the route table is in the document; the page must show them all.
      expect(tags).toEqual([...new Set(routes.map((route) => route.tag))].sort());
      const { headings, labels } = await drawnText(page);
      for (const tag of tags) {
        expect(headings.get(`tag/${tag}`), tag).toBe(tag);
        // The side menu names the domain, and each of its operations by summary.
        expect(labels.get(`tag/${tag}`), tag).toContain(tag);
      }
      for (const { operationId, summary, tag } of operations) {
        expect(headings.get(`tag/${tag}/operation/${operationId}`), operationId).toBe(summary);
        expect(labels.get(`tag/${tag}/operation/${operationId}`), operationId).toContain(summary);
      }
      expect([...headings.keys()].filter((id) => id.includes('/operation/'))).toHaveLength(operations.length);
      // The picture shows a domain opened in the side menu, with its operations.
      await page.locator('li[data-item-id="tag/connections"] > label').click();
      await page.screenshot({ path: SCREENSHOT });
      // Where to look at the page: printed with the test run (warn: the lint allows warn and error).
      console.warn(
        `API reference page: ${tags.length} domains, ${operations.length} operations; screenshot ${SCREENSHOT}`,
      );
    } finally {
      await page.close();
    }
  });

  it('asks nothing of any host but the service, and the browser reports no error', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('requestfailed', (request) => problems.push(`${request.url()} failed: ${request.failure()?.errorText}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      await open(page);
      await page.waitForLoadState('networkidle');
      const origin = new URL(env.twin.apiUrl).origin;
      // blob: URLs are made by the page itself (the renderer's search worker), not fetched.
      const outside = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith(`blob:${origin}/`));
      expect(outside).toEqual([]);
      expect(requested.filter((url) => url.startsWith(`${origin}/`)).map((url) => url.slice(origin.length))).toEqual([
        '/api/data/v1/docs',
        '/api/data/v1/docs/redoc.standalone.js',
        '/api/data/v1/openapi.json',
      ]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe('GET /docs over HTTP', () => {
  it('answers the page with a policy that lets the browser fetch only from the service', async () => {
    const response = await env.anonymous.call('getApiReference');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'; script-src 'self';");
    expect(response.text).toContain('<redoc spec-url="openapi.json"></redoc>');
    expect(response.text).toContain('<script src="docs/redoc.standalone.js"></script>');
  });

  it('serves the renderer gzip-compressed to a client that accepts it, and whole to one that does not', async () => {
    const whole = await fetch(`${env.twin.apiUrl}/docs/redoc.standalone.js`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(whole.headers.get('content-encoding')).toBeNull();
    const script = await whole.text();
    expect(script.length).toBeGreaterThan(1_000_000);
    // Compared as booleans: a failure message quoting a megabyte of script helps nobody.
    expect(script.includes('https://cdn.redoc.ly/'), 'the external logo is left in').toBe(false);
    expect(/\/\/# sourceMappingURL=\S+\s*$/.test(script), 'the source map reference is left in').toBe(false);

    const compressed = await env.anonymous.call('getApiReferenceScript', { headers: { 'accept-encoding': 'gzip' } });
    expect(compressed.headers.get('content-encoding')).toBe('gzip');
    expect(Number(compressed.headers.get('content-length'))).toBeLessThan(script.length / 2);
    expect(compressed.text === script, 'the compressed answer decompresses to the script').toBe(true);
  });

  it('refuses a query string as every route does, with a problem', async () => {
    // The route declares no query: a query string is input no operation describes.
    const response = await env.anonymous.raw('GET', '/docs?theme=dark');
    expect(response.status).toBe(400);
    expect(response.problem).toMatchObject({ code: '10-1400', extraDetails: { theme: 'is not a known field' } });
  });

  it('is served by the function as bundled for Lambda, where the renderer is inlined by esbuild', async () => {
    const { code } = await bundleFunction('functions/meta/docs-script.ts');
    // Inside the project, so the bundle's external imports resolve as in Lambda's runtime.
    const folder = join(ROOT, 'node_modules', '.cache', 'dps-bundled-docs-script');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'index.mjs'), code);
    const { handler } = (await import(join(folder, 'index.mjs'))) as { handler: ApiHandler };
    const event = {
      version: '2.0',
      routeKey: 'GET /api/data/v1/docs/redoc.standalone.js',
      rawPath: '/api/data/v1/docs/redoc.standalone.js',
      rawQueryString: '',
      headers: {},
      isBase64Encoded: false,
      requestContext: { requestId: 'bundled', http: { method: 'GET', path: '/api/data/v1/docs/redoc.standalone.js' } },
    } as unknown as ApiEvent;
    const answer = await handler(event, {} as Parameters<ApiHandler>[1]);
    const served = await fetch(`${env.twin.apiUrl}/docs/redoc.standalone.js`).then((response) => response.text());
    expect(answer).toMatchObject({ statusCode: 200, headers: { 'content-type': 'text/javascript; charset=utf-8' } });
    expect(answer.body === served, 'the bundled function answers what the twin serves').toBe(true);
  });
});
