/**
 * Judges HTTP requests and answers by the served OpenAPI document alone, as a validating
 * proxy or a client generated from it would: JSON Schema 2020-12 through Ajv, path and query
 * text read the way the document says (docs/decisions.md, "The contract"), and the list
 * filter's documented format checked against the fields the parameter declares. Nothing here
 * imports the service's schemas: the document is the only source.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { filterFormatProblem, type ListFieldTypes } from './list-filter';

export interface HttpRequest {
  readonly method: string;
  /** Under the API base path, percent-encoded as sent, with its query string. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly contentType?: string;
  /** The body text as sent. */
  readonly body?: string;
}

export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string;
  /** The parsed body; undefined when there is none. */
  readonly json: unknown;
}

type Json = Record<string, unknown>;

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required: boolean;
  readonly schema: Json & { readonly $ref: string };
}

interface Operation {
  readonly operationId: string;
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  readonly pointer: string;
  readonly parameters: readonly Parameter[];
  /** The operation asks for a bearer token (its own security, or the document's). */
  readonly secured: boolean;
  readonly bodyRequired: boolean;
  readonly mediaTypes: readonly string[];
  readonly responses: Json;
}

const DOCUMENT_ID = 'https://contract.invalid/openapi.json';

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON Pointer escaping of one reference token (RFC 6901). */
function token(text: string): string {
  return text.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The bare media type, lower case, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function decodeOrUndefined(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Query pairs as API Gateway hands them on: "+" is a space, each part percent-decoded, and a
 * repeated name joined with commas (HTTP API payload 2.0). A pair that cannot be decoded is
 * undefined.
 */
function queryPairs(search: string): Map<string, string> | undefined {
  const pairs = new Map<string, string>();
  for (const pair of search.split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const name = decodeOrUndefined((separator === -1 ? pair : pair.slice(0, separator)).replace(/\+/g, ' '));
    const value = decodeOrUndefined((separator === -1 ? '' : pair.slice(separator + 1)).replace(/\+/g, ' '));
    if (name === undefined || value === undefined) return undefined;
    pairs.set(name, pairs.has(name) ? `${pairs.get(name)},${value}` : value);
  }
  return pairs;
}

/** The JSON types a schema admits at its top level (through anyOf, oneOf and allOf). */
function typesOf(schema: unknown, resolve: (ref: string) => unknown): Set<string> {
  const types = new Set<string>();
  const visit = (node: unknown): void => {
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string') visit(resolve(node.$ref));
    if (typeof node.type === 'string') types.add(node.type);
    if (Array.isArray(node.type)) for (const type of node.type) types.add(String(type));
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(node[key])) node[key].forEach(visit);
  };
  visit(schema);
  return types;
}

/**
 * A parameter's text as the value its schema describes (OpenAPI style simple and form, for
 * primitives): an integer is written in decimal digits with an optional minus, nothing else;
 * text that is not such a numeral stays text, which an integer schema refuses.
 */
function deserialize(text: string, types: ReadonlySet<string>): unknown {
  if ((types.has('integer') || types.has('number')) && /^-?\d+$/.test(text)) return Number(text);
  if (types.has('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** Validates requests and answers against one OpenAPI 3.1 document. */
export class OpenApiValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly operations: Operation[] = [];

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    // The filter grammar is checked with the fields its schema lists, outside Ajv (see requestProblems); sort has a pattern.
    this.ajv.addFormat('list-filter', true);
    this.ajv.addFormat('list-sort', true);
    this.ajv.addSchema(document, DOCUMENT_ID);
    const paths = isObject(document.paths) ? document.paths : {};
    for (const [template, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      for (const [method, operation] of Object.entries(item)) {
        if (!isObject(operation) || typeof operation.operationId !== 'string') continue;
        const pointer = `/paths/${token(template)}/${method}`;
        const parameters = (Array.isArray(operation.parameters) ? operation.parameters : [])
          .filter(isObject)
          .map((parameter, index): Parameter => ({
            name: String(parameter.name),
            in: String(parameter.in),
            required: parameter.required === true,
            schema: { $ref: `${DOCUMENT_ID}#${pointer}/parameters/${index}/schema` },
          }));
        const body = isObject(operation.requestBody) ? operation.requestBody : undefined;
        const security = Array.isArray(operation.security)
          ? operation.security
          : Array.isArray(document.security)
            ? document.security
            : [];
        const source = template
          .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          .replace(/\\?\{([a-z_][a-z0-9_]*)\\?\}/g, '(?<$1>[^/]+)');
        this.operations.push({
          operationId: operation.operationId,
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${source}$`),
          pointer,
          parameters,
          secured:
            security.length > 0 &&
            !security.some((requirement) => isObject(requirement) && Object.keys(requirement).length === 0),
          bodyRequired: body?.required === true,
          mediaTypes: isObject(body?.content) ? Object.keys(body.content) : [],
          responses: isObject(operation.responses) ? operation.responses : {},
        });
      }
    }
  }

  /** Every operationId of the document. */
  get operationIds(): string[] {
    return this.operations.map((operation) => operation.operationId);
  }

  /** The operation a request is for, by method and path; undefined when the document has none. */
  operationFor(method: string, path: string): Operation | undefined {
    const pathname = path.split('?')[0]!;
    return this.operations.find(
      (operation) => operation.method === method.toUpperCase() && operation.pattern.test(pathname),
    );
  }

  /** The operation asks for a bearer token. */
  isSecured(operationId: string): boolean {
    return this.operations.find((operation) => operation.operationId === operationId)?.secured ?? false;
  }

  /** Why the document refuses the request; empty when it accepts it. */
  requestProblems(request: HttpRequest): string[] {
    const [pathname = '', search = ''] = request.path.split(/\?(.*)/s);
    const operation = this.operationFor(request.method, pathname);
    if (!operation) return [`no operation ${request.method} ${pathname}`];
    const problems: string[] = [];
    const authorization = Object.entries(request.headers ?? {}).find(
      ([name]) => name.toLowerCase() === 'authorization',
    )?.[1];
    if (operation.secured && !/^Bearer \S+$/.test(authorization ?? ''))
      problems.push('security: a bearer token is required');
    const segments = operation.pattern.exec(pathname)?.groups ?? {};
    const query = queryPairs(search);
    if (!query) return ['query: not percent-encoded UTF-8'];
    const declared = new Set(
      operation.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
    );
    for (const name of query.keys())
      if (!declared.has(name)) problems.push(`query ${name}: not a parameter of ${operation.operationId}`);

    for (const parameter of operation.parameters) {
      let text: string | undefined;
      if (parameter.in === 'path') {
        const raw = segments[parameter.name];
        text = raw === undefined ? undefined : decodeOrUndefined(raw);
        if (raw !== undefined && text === undefined) {
          problems.push(`path ${parameter.name}: not percent-encoded UTF-8`);
          continue;
        }
      } else if (parameter.in === 'query') {
        text = query.get(parameter.name);
      } else if (parameter.in === 'header') {
        text = Object.entries(request.headers ?? {}).find(
          ([name]) => name.toLowerCase() === parameter.name.toLowerCase(),
        )?.[1];
      }
      if (text === undefined) {
        if (parameter.required) problems.push(`${parameter.in} ${parameter.name}: required`);
        continue;
      }
      const value = deserialize(
        text,
        typesOf(parameter.schema, (ref) => this.resolve(ref)),
      );
      problems.push(...this.schemaProblems(parameter.schema, value, `${parameter.in} ${parameter.name}`));
      const schema = this.resolve(parameter.schema.$ref);
      if (
        isObject(schema) &&
        schema.format === 'list-filter' &&
        isObject(schema['x-list-fields']) &&
        typeof value === 'string'
      ) {
        const problem = filterFormatProblem(value, schema['x-list-fields'] as ListFieldTypes);
        if (problem) problems.push(`${parameter.in} ${parameter.name}: ${problem}`);
      }
    }

    problems.push(...this.bodyProblems(operation, request));
    return problems;
  }

  private bodyProblems(operation: Operation, request: HttpRequest): string[] {
    if (operation.mediaTypes.length === 0) return [];
    if (request.body === undefined || request.body === '') return operation.bodyRequired ? ['body: required'] : [];
    const mediaType = mediaTypeOf(request.contentType);
    if (!operation.mediaTypes.includes(mediaType))
      return [`body: media type ${mediaType || '(none)'} is not one of ${operation.mediaTypes.join(', ')}`];
    let value: unknown;
    if (mediaType === 'application/x-www-form-urlencoded') {
      value = Object.fromEntries(new URLSearchParams(request.body));
    } else {
      try {
        value = JSON.parse(request.body) as unknown;
      } catch {
        return ['body: not JSON'];
      }
    }
    const schema = { $ref: `${DOCUMENT_ID}#${operation.pointer}/requestBody/content/${token(mediaType)}/schema` };
    return this.schemaProblems(schema, value, 'body');
  }

  /** Why the document does not describe this answer to the operation; empty when it does. */
  answerProblems(operationId: string, answer: HttpAnswer): string[] {
    const operation = this.operations.find((candidate) => candidate.operationId === operationId);
    if (!operation) return [`no operation ${operationId}`];
    const status = String(answer.status);
    const response = operation.responses[status] ?? operation.responses.default;
    if (!isObject(response))
      return [`status ${status} is not declared (declared: ${Object.keys(operation.responses).join(', ')})`];
    const content = isObject(response.content) ? response.content : undefined;
    if (!content) return answer.json === undefined ? [] : [`status ${status} declares no body`];
    const mediaType = mediaTypeOf(answer.contentType);
    if (!Object.hasOwn(content, mediaType))
      return [`status ${status}: media type ${mediaType} is not one of ${Object.keys(content).join(', ')}`];
    const schema = {
      $ref: `${DOCUMENT_ID}#${operation.pointer}/responses/${status in operation.responses ? status : 'default'}/content/${token(mediaType)}/schema`,
    };
    return this.schemaProblems(schema, answer.json, `answer ${status}`);
  }

  private resolve(ref: string): unknown {
    const pointer = ref.startsWith(DOCUMENT_ID) ? ref.slice(DOCUMENT_ID.length) : ref;
    let node: unknown = this.document;
    for (const part of pointer.replace(/^#\//, '').split('/')) {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      node = Array.isArray(node) ? (node as unknown[])[Number(key)] : isObject(node) ? node[key] : undefined;
    }
    return node;
  }

  private schemaProblems(schema: { readonly $ref: string }, value: unknown, label: string): string[] {
    let validate = this.compiled.get(schema.$ref);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema.$ref, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => `${label}${error.instancePath}: ${error.message ?? error.keyword}`);
  }
}
