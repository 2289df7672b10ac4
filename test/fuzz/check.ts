/**
 * Sends fuzz requests through the typed client's `raw` and judges each answer: never a 5xx,
 * every 4xx an RFC 7807 problem with a catalogue code that repeats no submitted value beyond
 * ECHO_LENGTH characters and no control character, and no internal names anywhere.
 */
import { ECHO_LENGTH } from '../../shared/errors/app-error';
import { errorCatalogue, type ErrorCode } from '../../shared/errors/catalogue';
import { FORM_REFUSAL_STATUSES } from '../../shared/http/form-refusals';
import { Problem } from '../../shared/errors/problem-body';
import type { ApiClient, ApiResponse } from '../support/api-client';
import { BAD_PATH_SEGMENTS, BAD_QUERY_VALUES, NASTY_STRINGS } from './hostile';
import type { FuzzRequest } from './requests';

export interface FuzzOutcome {
  readonly request: FuzzRequest;
  readonly status: number;
  /** The problem's catalogue code, for failure answers. */
  readonly code: string | undefined;
  /** A 10-1400 refusal naming a missing field: the request stopped before any deep check. */
  readonly missingField: boolean;
  readonly durationMs: number;
  /** What is wrong with the answer; empty when it is right. */
  readonly violations: readonly string[];
}

/**
 * Traces of the implementation: stack frames, source and dependency paths, exception class
 * names. The generated input never contains them, so an answer that does leaked them.
 */
const INTERNAL_NAMES: readonly RegExp[] = [
  /\bat [\w$.<>]+ \(/,
  /\bat (?:file:\/\/|\/)\S+:\d+:\d+/,
  /node_modules/,
  /\/work\/|file:\/\//,
  /[\w-]+\.(?:ts|js|mjs|cjs):\d+/,
  /\b(?:Type|Range|Syntax|Reference|URI|Eval|Aggregate)Error\b/,
  // An exception's own text ("Error: x", "AppError: x"), not a reason phrase such as "Internal Server Error: 10-500".
  /(?:^|[^\w\s])Error:|\wError:/,
  /\bERR_[A-Z_]+\b/,
  /\bE(?:CONNREFUSED|NOTFOUND|ACCES|PIPE|CONNRESET)\b/,
];

/**
 * The fuzzer's own strings as a JSON answer would echo them (a stored name, a refused value):
 * one of them spells a path ("file:///etc/passwd"), and repeating input leaks nothing.
 */
const ECHOES: readonly string[] = [...new Set([...NASTY_STRINGS, ...BAD_PATH_SEGMENTS, ...BAD_QUERY_VALUES])]
  .filter((value) => INTERNAL_NAMES.some((pattern) => pattern.test(value)))
  .map((value) => JSON.stringify(value).slice(1, -1));

const withoutEchoes = (text: string): string => ECHOES.reduce((rest, echo) => rest.split(echo).join(''), text);

/**
 * The one 5xx the catalogue means as an answer, not a failure: 10-1501, a connector that is
 * not built yet (spec: "feature disabled unless feature flag {0} is on").
 */
function deliberate(response: ApiResponse<unknown>): boolean {
  return response.status === 501 && Problem.safeParse(response.json).data?.code === '10-1501';
}

/** Statuses a catalogue code may carry besides its own: a wrong method, an oversize body and a wrong media type are 405, 413 and 415 with 10-400. */
function statusFits(code: ErrorCode, status: number): boolean {
  return (
    errorCatalogue[code].status === status ||
    (code === '10-400' && (Object.values(FORM_REFUSAL_STATUSES) as number[]).includes(status))
  );
}

/** Characters an error body never carries as they are: control and format characters, separators, lone surrogates. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** Every text of a JSON value, member names included, walked without recursion (bodies nest deep). */
function textsOf(value: unknown): string[] {
  const texts: string[] = [];
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === 'string') texts.push(node);
    else if (Array.isArray(node)) pending.push(...node);
    else if (typeof node === 'object' && node !== null)
      for (const [key, item] of Object.entries(node)) {
        texts.push(key);
        pending.push(item);
      }
  }
  return texts;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** What the request sent that an answer could repeat: the path as sent and decoded, query names and values, body texts, headers. */
function submittedTexts(request: FuzzRequest): string[] {
  const [path = '', query = ''] = request.path.split('?', 2);
  const texts = [request.path, ...path.split('/').map(decoded), ...Object.values(request.headers)];
  for (const pair of query.split('&')) texts.push(...pair.split('=', 2).map(decoded));
  if (request.body !== undefined) {
    texts.push(request.body);
    try {
      texts.push(...textsOf(JSON.parse(request.body)));
    } catch {
      for (const [name, value] of new URLSearchParams(request.body)) texts.push(name, value);
    }
  }
  return texts;
}

/**
 * Whether an error body repeats more than ECHO_LENGTH characters of a submitted value, or carries
 * a control or invisible character: it looks for runs of ECHO_LENGTH + 1 characters taken at the
 * start, middle and end of every long submitted text.
 */
function echoViolations(request: FuzzRequest, problem: unknown): string[] {
  const answered = textsOf(problem);
  const violations: string[] = [];
  const hidden = answered.find((text) => HIDDEN.test(text));
  if (hidden !== undefined) violations.push(`echoes a control character: ${JSON.stringify(hidden).slice(0, 120)}`);
  const runs = submittedTexts(request)
    .filter((text) => text.length > ECHO_LENGTH)
    .flatMap((text) =>
      [0, Math.floor((text.length - ECHO_LENGTH) / 2), text.length - ECHO_LENGTH - 1].map((at) =>
        text.slice(at, at + ECHO_LENGTH + 1),
      ),
    );
  const repeated = runs.find((run) => answered.some((text) => text.includes(run)));
  if (repeated !== undefined)
    violations.push(
      `echoes more than ${ECHO_LENGTH} characters of the request: ${JSON.stringify(repeated.slice(0, 60))}…`,
    );
  return violations;
}

/** What is wrong with one answer. */
export function judge(request: FuzzRequest, response: ApiResponse<unknown>): string[] {
  const violations: string[] = [];
  const { status, text } = response;
  if (status >= 500 && !deliberate(response)) violations.push(`answered ${status}`);
  // The reference page's renderer (GET /docs/redoc.standalone.js) is a third-party script served
  // as published: its code names errors and modules, and nothing in it comes from the request.
  const servedScript = (response.headers.get('content-type') ?? '').startsWith('text/javascript');
  for (const pattern of servedScript ? [] : INTERNAL_NAMES)
    if (pattern.test(withoutEchoes(text)))
      violations.push(`leaks an internal name (${pattern.source}): ${text.slice(0, 300)}`);
  // A HEAD answer has no body to judge.
  if (status >= 400 && request.method !== 'HEAD') {
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('application/problem+json')) {
      violations.push(`${status} is not a problem (${type}): ${text.slice(0, 200)}`);
    } else {
      const parsed = Problem.safeParse(response.json);
      violations.push(...echoViolations(request, response.json));
      if (!parsed.success) violations.push(`${status} breaks the Problem schema: ${text.slice(0, 200)}`);
      else if (!Object.hasOwn(errorCatalogue, parsed.data.code))
        violations.push(`${status} carries ${parsed.data.code}, which is not in the catalogue`);
      else if (!statusFits(parsed.data.code as ErrorCode, status))
        violations.push(
          `${status} carries ${parsed.data.code}, a ${errorCatalogue[parsed.data.code as ErrorCode].status} code`,
        );
    }
  }
  return violations;
}

/** Whether the answer is 10-1400 with a field reported missing ("is required", "is required; must be one of: ..."). */
function refusesMissingField(response: ApiResponse<unknown>): boolean {
  const problem = Problem.safeParse(response.json).data;
  return (
    problem?.code === '10-1400' &&
    Object.values(problem.extraDetails ?? {}).some((rule) => typeof rule === 'string' && rule.startsWith('is required'))
  );
}

/** Sends one fuzz request and judges the answer; a transport failure is a violation too. */
export async function send(api: ApiClient, request: FuzzRequest): Promise<FuzzOutcome> {
  const started = performance.now();
  try {
    const response = await api.raw(request.method, request.path, {
      ...(request.body === undefined ? {} : { body: request.body, contentType: request.contentType }),
      headers: request.headers,
      ...(request.token === 'caller' ? {} : { token: request.token }),
    });
    const code = response.status >= 400 ? Problem.safeParse(response.json).data?.code : undefined;
    return {
      request,
      status: response.status,
      code,
      missingField: refusesMissingField(response),
      durationMs: performance.now() - started,
      violations: judge(request, response),
    };
  } catch (error) {
    return {
      request,
      status: 0,
      code: undefined,
      missingField: false,
      durationMs: performance.now() - started,
      violations: [`no answer: ${String(error)}`],
    };
  }
}

/**
 * Sends `requests` in their order with at most `concurrency` in flight, handing each outcome
 * to `onOutcome`. The iterable is read as it goes and nothing is kept, so a long run does
 * not hold its requests.
 */
export async function sendAll(
  api: ApiClient,
  requests: Iterable<FuzzRequest>,
  concurrency: number,
  onOutcome: (outcome: FuzzOutcome) => void,
): Promise<void> {
  const iterator = requests[Symbol.iterator]();
  const worker = async () => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) onOutcome(await send(api, next.value));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** A failed outcome as one line a developer can replay. */
export function describeOutcome({ request, status, violations }: FuzzOutcome): string {
  const body =
    request.body === undefined
      ? ''
      : ` ${request.contentType} ${request.body.length > 160 ? `${request.body.slice(0, 160)}… (${request.body.length} chars)` : request.body}`;
  const path = request.path.length > 200 ? `${request.path.slice(0, 200)}…` : request.path;
  return `${request.operationId} [${request.mutation}] ${request.method} ${path}${body} → ${status}: ${violations.join('; ')}`;
}
