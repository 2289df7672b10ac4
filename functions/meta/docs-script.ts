/**
 * GET /docs/redoc.standalone.js: the renderer of the API reference page, Redoc's standalone
 * bundle at the exact version package.json pins, served by the service itself so the page
 * needs no CDN. Only this function carries it (about 1.1 MB, a budget of its own in
 * infra/bundling.ts); API calls never load it.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { metaRoutes } from './routes';
import { staticContentHandler } from './static-content';

const RENDERER = 'redoc/bundles/redoc.standalone.js';

/**
 * The one thing the bundle fetches from elsewhere: Redocly's logo beside "API docs by
 * Redocly". It becomes an empty image in place, so the page fetches nothing outside the
 * service (the browser test of the page would see it if a new version fetched something else).
 */
const EXTERNAL_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E';

async function rendererSource(): Promise<string> {
  // From its TypeScript source (the twin and the tests, under tsx or vitest, which cannot
  // import text), the file is read from node_modules. Bundled for Lambda, it never is: esbuild
  // inlines it through the text import.
  if (import.meta.url.endsWith('.ts')) return readFile(createRequire(import.meta.url).resolve(RENDERER), 'utf8');
  return (await import('redoc/bundles/redoc.standalone.js', { with: { type: 'text' } })).default;
}

/** The bundle as served: without the external logo, and without a source map reference the service does not serve. */
export function servedRenderer(source: string): string {
  return source.replaceAll(EXTERNAL_LOGO, EMPTY_IMAGE).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
}

export const handler = staticContentHandler(metaRoutes.apiReferenceScript, async () => ({
  contentType: 'text/javascript; charset=utf-8',
  text: servedRenderer(await rendererSource()),
  headers: { 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=86400' },
}));
