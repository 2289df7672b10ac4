/**
 * The documents against the service: every route README.md and docs/*.md mention is in the route
 * table (functions/routes.ts) with the method they give it, so a renamed or invented path fails
 * here, naming the document, its line and the path, instead of misleading a reader. The scanner
 * and what it counts as a mention: test/support/doc-routes.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APP_CONTENT_SECURITY_POLICY } from '../../../functions/apps/asset';
import { routes, routeTable } from '../../../functions/routes';
import { assertTablesView } from '../../../shared/connectors/tables';
import { AppError } from '../../../shared/errors/app-error';
import { CONNECTION_TYPES } from '../../../shared/model/connection';
import { mentionsIn, routeFindings, type Finding, type TableRoute } from '../../support/doc-routes';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const DOCUMENTS = [
  'README.md',
  ...readdirSync(`${ROOT}docs`)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/**
 * Routes of other systems that documents name with a method: the pricing system's DIM protocol
 * (docs/pricing.md), which a transfer calls. They are allowed only in the documents that
 * describe that system or what the service does with it.
 */
const OTHER_SYSTEMS: readonly { readonly documents: readonly string[]; readonly routes: readonly TableRoute[] }[] = [
  {
    documents: ['docs/pricing.md', 'docs/transfers.md', 'docs/decisions.md'],
    routes: [
      { method: 'GET', path: '/ping' },
      { method: 'GET', path: '/import' },
      { method: 'POST', path: '/uploads' },
      { method: 'PUT', path: '/uploads/{upload_id}/batches/{sequence}' },
      { method: 'POST', path: '/uploads/{upload_id}/commit' },
      { method: 'POST', path: '/uploads/{upload_id}/abort' },
    ],
  },
];

const tableOf = (document: string): TableRoute[] => [
  ...routes,
  ...OTHER_SYSTEMS.filter(({ documents }) => documents.includes(document)).flatMap((system) => system.routes),
];

const said = (document: string, finding: Finding) =>
  `${document}:${finding.line}: ${finding.method ?? '(any method)'} ${finding.path}: ${finding.reason}`;

const read = (document: string) => readFileSync(`${ROOT}${document}`, 'utf8');

describe('the routes the documents mention', () => {
  it.each(DOCUMENTS)('%s names only routes of the route table, with their methods', (document) => {
    const findings = routeFindings(read(document), tableOf(document)).map((finding) => said(document, finding));
    expect(findings).toEqual([]);
  });

  it('are found: the README walkthrough’s curl commands and the prose mentions of the docs', () => {
    const segments = new Set(routes.map((route) => route.path.split('/')[1]!));
    const readme = mentionsIn(read('README.md'), segments);
    // Step 17's override, with its method from -X, and a -G listing read as the GET it is.
    expect(readme).toContainEqual({
      line: expect.any(Number) as number,
      method: 'PUT',
      path: '/admin/feature-toggles/connector.object_store/tenants/local',
    });
    expect(readme).toContainEqual({ line: expect.any(Number) as number, method: 'GET', path: '/roles' });
    const mentioned = DOCUMENTS.flatMap((document) => mentionsIn(read(document), segments));
    expect(mentioned.length).toBeGreaterThan(250);
  });
});

describe('the check', () => {
  const text = [
    'Turn it on with `PUT /admin/feature-toggles/delta_sharing/overrides/{tenant}`.',
    'curl -s -X PATCH $BASE/transfers/1 \\',
    "  -H 'content-type: application/json' -d '{}'",
    'curl -s "$BASE/connections/3/tables?limit=5" -H "authorization: Bearer $TOKEN"',
    'See `/quota/usage`, `/quota/limits` and `GET /datasets/.../nodes/{node_id}/run-status`.',
  ].join('\n');

  it('names the line, method and path of each route the table does not have, and why', () => {
    expect(routeFindings(text, routes)).toEqual([
      {
        line: 1,
        method: 'PUT',
        path: '/admin/feature-toggles/delta_sharing/overrides/{tenant}',
        reason: 'no route has this path',
      },
      { line: 2, method: 'PATCH', path: '/transfers/1', reason: 'this path has no PATCH route (only GET)' },
      { line: 5, method: undefined, path: '/quota/limits', reason: 'no route has this path' },
    ]);
  });

  it('tells a parameter from a literal: `{tenant}` fits no literal segment, a value fits a parameter', () => {
    const table = [{ method: 'GET', path: '/recipes/analyze' }];
    expect(routeFindings('`GET /recipes/{recipe_id}`', table)).toHaveLength(1);
    expect(routeFindings('`GET /recipes/analyze`', [{ method: 'GET', path: '/recipes/{recipe_id}' }])).toEqual([]);
  });
});

describe('the OpenAPI text of the connection table routes', () => {
  const { listConnectionTables, getConnectionTable } = routeTable;
  const named = (text: string) => CONNECTION_TYPES.filter((type) => new RegExp(`\\b${type}\\b`).test(text));

  it.each(CONNECTION_TYPES.map((type) => [type]))(
    '%s is named by both summaries exactly when the service has tables for it (else 30-3001)',
    async (type) => {
      const inSummaries = [listConnectionTables.summary, getConnectionTable.summary].map((summary) =>
        named(summary).includes(type),
      );
      // The type check comes before the toggle's and the secret's: a type without tables touches no store.
      const refused = await assertTablesView('t', type, 1).then(
        () => false,
        (error: unknown) => error instanceof AppError && error.code === '30-3001',
      );
      expect(inSummaries).toEqual([!refused, !refused]);
    },
  );
});

describe('docs/apps.md', () => {
  it('gives the content security policy the asset route serves, word for word', () => {
    const policies = [...read('docs/apps.md').matchAll(/^default-src .*$/gm)].map((match) => match[0]);
    expect(policies).toEqual([APP_CONTENT_SECURITY_POLICY]);
  });
});

describe('README.md’s table of capabilities', () => {
  const readme = read('README.md');
  const start = readme.indexOf('\n## What it does, and where to try it\n');
  const table = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const links = [...table.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1]!);
  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
  const anchorOf = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
  const anchors = new Set([...readme.matchAll(/^#{2,3} (.+)$/gm)].map((match) => anchorOf(match[1]!)));

  it('links every step of the walkthrough', () => {
    const steps = [...readme.matchAll(/^### (\d+\. .+)$/gm)].map((match) => `#${anchorOf(match[1]!)}`);
    expect(steps.length).toBeGreaterThan(20);
    expect(steps.filter((step) => !links.includes(step))).toEqual([]);
  });

  it('links only headings and documents that exist', () => {
    const broken = links.filter((link) =>
      link.startsWith('#') ? !anchors.has(link.slice(1)) : !existsSync(`${ROOT}${link}`),
    );
    expect(links.length).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });
});
