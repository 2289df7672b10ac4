/**
 * The contract says what the service enforces. A corpus of valid and invalid requests over
 * every operation (test/contract/corpus.ts) is judged twice: by the served OpenAPI document
 * alone (Ajv over its schemas, test/contract/openapi-validator.ts) and by the service. They
 * must agree on every request: the document refuses exactly what the service refuses as
 * unreadable or invalid (10-400, 10-1400, 401, 405, 413, 415); whatever else the service
 * answers (a 404, a conflict, a connector's refusal) the document accepted. Every answer,
 * success or problem, must be one the document declares, with a body its schema describes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, routeTable } from '../../../functions/routes';
import { contractCorpus, type ContractCase } from '../../contract/corpus';
import { CONTRACT_BUCKET, contractFixtures } from '../../contract/fixtures';
import { mediaTypeOf, OpenApiValidator } from '../../contract/openapi-validator';
import { QUALITY_SCHEDULE_DIVERGENCES } from '../../contract/quality-schedule-divergences';
import { startTestTwin, type TestTwin } from '../../support/harness';

/**
 * Where the document cannot say what the service decides, each with the reason: the case's
 * label and which side refuses. The test fails if one of them stops diverging that way.
 */
const KNOWN_DIVERGENCES: Readonly<
  Record<string, { readonly refusedBy: 'service' | 'document'; readonly reason: string }>
> = {
  'uploadAppBundleVersion: body .files = repeated item': {
    refusedBy: 'service',
    reason:
      'a bundle version holds each path once, whatever the contents (10-1400 naming files); JSON Schema can only say that no two whole items are equal',
  },
  'putAppLink: body .details.__proto__ = 1': {
    refusedBy: 'document',
    reason:
      "a record's parse copies members by assignment, which drops __proto__: the service ignores it, the document refuses its value like any other that is not a string",
  },
  ...Object.fromEntries(
    ['startDirectExport: body .key = 256 characters', 'startDirectExport: body .key = blank then 255'].map((label) => [
      label,
      {
        refusedBy: 'service',
        reason:
          "a key's segments are bounded in bytes of UTF-8 (255, a file name's limit: shared/model/object-key.ts), which JSON Schema cannot count",
      },
    ]),
  ),
  ...Object.fromEntries(
    ['issueToken: body .client_id removed', 'issueToken: body .client_secret removed'].map((label) => [
      label,
      {
        refusedBy: 'service',
        reason:
          'the credentials may come in an HTTP Basic Authorization header instead (RFC 6749 §2.3.1), which a body schema cannot see',
      },
    ]),
  ),
  ...Object.fromEntries(
    [
      'testStoredConnection: body .type = "cloud_store"',
      'mergeDataSource: body .type = "rdbms"',
      'mergeDataSource: body .type = "delta_sharing"',
      'mergeDataSource: body .type = "delta sharing"',
      'mergeDataSource: body .type = "analytics_db"',
    ].map((label) => [
      label,
      {
        refusedBy: 'service',
        reason: 'the type must be the stored one, which the document cannot know (10-1400 naming type)',
      },
    ]),
  ),
  ...Object.fromEntries(
    [
      'mergeConnection: body (body).__proto__ = 1',
      'mergeDataSource: body (body).__proto__ = 1',
      'mergeTarget: body (body).__proto__ = 1',
    ].map((label) => [
      label,
      {
        refusedBy: 'document',
        reason:
          "a patch's first validation step copies members by assignment, which drops __proto__: the service ignores it, the document refuses it like any other unknown member that is not null",
      },
    ]),
  ),
  ...Object.fromEntries(
    ['mergeTarget: body .type = "table"', 'mergeTarget: body .type = "pricing"'].map((label) => [
      label,
      {
        refusedBy: 'service',
        reason:
          'a new kind needs its own fields and null for the stored kind’s, which the document cannot know (10-1400 naming them)',
      },
    ]),
  ),
  ...Object.fromEntries(
    ['aliases = text items', 'aliases[0] = another word', 'tables.t removed'].map((label) => [
      `analyzeRecipe: body .${label}`,
      {
        refusedBy: 'service',
        reason:
          'tables must name exactly the aliases: keys that must equal the items of another member are beyond JSON Schema',
      },
    ]),
  ),
  ...Object.fromEntries(
    [
      'tables.t = repeated item',
      ...['tab-padded', 'blank', 'NUL inside', 'another word', 'unicode', '129 characters', '"1"'].map(
        (edge) => `tables.t[0].type = ${edge}`,
      ),
    ].map((label) => [
      `analyzeRecipe: body .${label}`,
      {
        refusedBy: 'service',
        reason: 'column types and distinct column names are checked by DuckDB, which creates the table',
      },
    ]),
  ),
  'analyzeRecipe: body .tables.__proto__ = 1': {
    refusedBy: 'document',
    reason:
      'zod copies record members by assignment, which drops __proto__: the service ignores it, the document refuses a member that is not a list of columns',
  },
  'mergeRecipe: body (body).__proto__ = 1': { refusedBy: 'document', reason: 'as for the other merge patches' },
  'addDatasetNode: body .data_table_id removed': {
    refusedBy: 'service',
    reason:
      'data_table_id is required for a TABLE node only; node_type is any text so that an unsupported type is 20-1012, so the document has no discriminator to make it required by',
  },
  ...Object.fromEntries(
    [
      ...['1000', '1001', '100000', '9007199254740991'].map((id) => `path node_id = "${id}"`),
      ...['2', '1000', '1001', '9007199254740991'].map((id) => `body .id = ${id}`),
    ].map((label) => [
      `updateDatasetNode: ${label}`,
      {
        refusedBy: 'service',
        reason:
          'the body id must equal the node_id of the path: a body member that must equal a path parameter is beyond JSON Schema',
      },
    ]),
  ),
  'createConnection: body tags equal once trimmed': {
    refusedBy: 'service',
    reason: 'tags must be unique once trimmed; uniqueItems compares them as sent',
  },
  'updateConnection: body created_by nested 65 levels': {
    refusedBy: 'service',
    reason:
      'JSON deeper than 64 levels is refused before parsing (docs/decisions.md); JSON Schema has no depth bound, and echoed read-only members take any value',
  },
  ...QUALITY_SCHEDULE_DIVERGENCES,
  'updateConnection: body created_by of 300 KiB': {
    refusedBy: 'service',
    reason:
      'a body over MAX_BODY_BYTES is 413; JSON Schema bounds no byte size, and echoed read-only members take any value (the 413 answer is declared)',
  },
};

/**
 * Domains whose operations arrived while this corpus was written and have no valid request in
 * test/contract/corpus.ts yet; the test fails for an operation of any other domain without
 * one, and for these once one of them has one (then remove the domain here).
 */
const AWAITING_CASES: ReadonlySet<string> = new Set([]);
const awaitingCases = (operationId: string) =>
  AWAITING_CASES.has(routes.find((route) => route.operationId === operationId)?.tag ?? '');

interface Outcome {
  readonly item: ContractCase;
  readonly documentProblems: readonly string[];
  readonly status: number;
  readonly code: string | undefined;
  readonly answerProblems: readonly string[];
  readonly text: string;
}

let env: TestTwin;
let validator: OpenApiValidator;
let corpus: ContractCase[];
const outcomes: Outcome[] = [];

/**
 * The service refused the request as unreadable or invalid, before looking at any stored
 * state: 10-400 (with 400, 405, 413 or 415), 10-1400, a missing token on an operation that
 * asks for one, or an answer for no route (404, 405) to a request the document has no
 * operation for. Anything else (an unknown entity, a conflict, a wrong client secret, a
 * connector's refusal) came after the request was found valid.
 */
function serviceRefused(outcome: Pick<Outcome, 'item' | 'status' | 'code'>): boolean {
  const { method, path } = outcome.item.request;
  if (!validator.operationFor(method, path)) return outcome.status === 404 || outcome.status === 405;
  return (
    outcome.code === '10-400' ||
    outcome.code === '10-1400' ||
    (outcome.status === 401 && validator.isSecured(outcome.item.operationId))
  );
}

async function replay(item: ContractCase): Promise<Outcome> {
  // The admin plane's operations are sent as the platform admin, every other one as the tenant's admin.
  const caller = routeTable[item.operationId].permission === 'platform:admin' ? env.platformAdmin : env.admin;
  const headers = {
    ...item.request.headers,
    ...(item.anonymous ? {} : { authorization: `Bearer ${caller.token ?? ''}` }),
  };
  const request = { ...item.request, headers };
  const response = await caller.raw(request.method, request.path, {
    ...(request.body === undefined ? {} : { body: request.body, contentType: request.contentType ?? '' }),
    headers: item.request.headers ?? {},
    token: item.anonymous ? null : caller.token,
  });
  const contentType = response.headers.get('content-type') ?? '';
  const code = contentType.startsWith('application/problem+json') ? response.problem.code : undefined;
  return {
    item,
    documentProblems: validator.requestProblems(request),
    status: response.status,
    code,
    answerProblems: validator.operationFor(request.method, request.path)
      ? validator.answerProblems(item.operationId, {
          status: response.status,
          contentType: mediaTypeOf(contentType),
          json: response.json,
        })
      : [],
    // What the service said: the problem's details, or the start of a success.
    text:
      code === undefined
        ? response.text.slice(0, 200)
        : JSON.stringify(response.problem.extraDetails ?? {}).slice(0, 300),
  };
}

function describeOutcome(outcome: Outcome): string {
  const verdict =
    outcome.documentProblems.length === 0
      ? 'document accepts'
      : `document refuses (${outcome.documentProblems.slice(0, 2).join('; ')})`;
  return `${outcome.item.label}: ${verdict}; service ${outcome.status} ${outcome.code ?? ''} ${outcome.text}`;
}

beforeAll(async () => {
  env = await startTestTwin({ buckets: [CONTRACT_BUCKET] });
  // The retention and transfer routes answer their own shapes, not 10-1501, for the tenant of the corpus.
  for (const toggle of ['retention', 'transfers'] as const)
    await env.platformAdmin.call('setFeatureToggleOverride', {
      params: { toggle_name: toggle, tenant_id: env.admin.tenantId! },
      body: { strategy: 'on' },
    });
  const document = (await env.anonymous.call('getOpenApiDocument')).body;
  validator = new OpenApiValidator(document);
  corpus = contractCorpus(await contractFixtures(env));
  // A few at a time, in corpus order: the deletes, last, find the entities the rest used.
  const queue = [...corpus];
  const worker = async () => {
    for (let item = queue.shift(); item; item = queue.shift()) outcomes.push(await replay(item));
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}, 600_000);
afterAll(() => env?.close());

describe('the OpenAPI document and the service agree', () => {
  it('replays a corpus over every operation', () => {
    const covered = new Set<string>(corpus.map((item) => item.operationId));
    const uncovered = validator.operationIds.filter(
      (operationId) => !covered.has(operationId) && !awaitingCases(operationId),
    );
    expect(uncovered).toEqual([]);
    expect([...covered].filter(awaitingCases)).toEqual([]);
    expect(outcomes).toHaveLength(corpus.length);
    expect(corpus.length).toBeGreaterThan(2000);
  });

  it('refuses exactly what the service refuses, in both directions', () => {
    const disagreements = outcomes.filter(
      (outcome) =>
        outcome.documentProblems.length > 0 !== serviceRefused(outcome) &&
        !Object.hasOwn(KNOWN_DIVERGENCES, outcome.item.label),
    );
    expect(disagreements.map(describeOutcome)).toEqual([]);
  });

  it('still diverges where it is recorded that it must', () => {
    const byLabel = new Map(outcomes.map((outcome) => [outcome.item.label, outcome]));
    const changed = Object.entries(KNOWN_DIVERGENCES).flatMap(([label, { refusedBy }]) => {
      const outcome = byLabel.get(label);
      if (!outcome) return [`${label}: no such case`];
      const documentRefuses = outcome.documentProblems.length > 0;
      const diverges =
        refusedBy === 'service'
          ? !documentRefuses && serviceRefused(outcome)
          : documentRefuses && !serviceRefused(outcome);
      return diverges ? [] : [describeOutcome(outcome)];
    });
    expect(changed).toEqual([]);
  });

  it('answers only with declared statuses and bodies the document describes', () => {
    const undescribed = outcomes
      .filter((outcome) => outcome.answerProblems.length > 0)
      .map((outcome) => `${describeOutcome(outcome)} → ${outcome.answerProblems.slice(0, 3).join('; ')}`);
    expect(undescribed).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.status < 300).length).toBeGreaterThan(100);
  });
});
