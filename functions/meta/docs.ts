/**
 * GET /docs: the API reference, a page that renders this service's OpenAPI document in the
 * browser with Redoc. It loads nothing but the renderer (GET /docs/redoc.standalone.js) and
 * the document (GET /openapi.json), both from this service, so it works offline; its content
 * security policy lets the browser fetch nothing else.
 */
import { API_INFO } from '../routes';
import { metaRoutes } from './routes';
import { staticContentHandler } from './static-content';

/**
 * Only this service: Redoc styles through inline <style> elements, runs its search in a
 * worker made from a blob, and draws icons as data: images.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

// Relative references: the page is at <base>/docs, so both resolve under the API's base path
// whatever host or stage serves it. The empty icon keeps the browser from asking for
// /favicon.ico, which the service does not have.
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(API_INFO.title)} — API reference</title>
    <link rel="icon" href="data:," />
    <style>
      body { margin: 0; }
    </style>
  </head>
  <body>
    <redoc spec-url="openapi.json"></redoc>
    <script src="docs/redoc.standalone.js"></script>
  </body>
</html>
`;

export const handler = staticContentHandler(metaRoutes.apiReference, async () => ({
  contentType: 'text/html; charset=utf-8',
  text: PAGE,
  headers: {
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'public, max-age=300',
  },
}));
