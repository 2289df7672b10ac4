/**
 * The operations of the served OpenAPI document, as much of each as the fuzzer needs: method,
 * path, parameters and body schemas by media type.
 */
import type { JsonSchema } from './schema-values';

export interface FuzzParameter {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly required: boolean;
}

/** One operation of the document, as much of it as the fuzzer needs. */
export interface FuzzOperation {
  readonly operationId: string;
  readonly method: string;
  /** Template under the API base path, e.g. `/connections/{connection_id}`. */
  readonly path: string;
  readonly pathParameters: readonly FuzzParameter[];
  readonly queryParameters: readonly FuzzParameter[];
  /** Media type → body schema; empty when the operation takes no body. */
  readonly bodies: Readonly<Record<string, JsonSchema>>;
  readonly idempotent: boolean;
}

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The operations of an OpenAPI 3.1 document. */
export function operationsOf(document: unknown): FuzzOperation[] {
  if (!isObject(document) || !isObject(document.paths)) throw new Error('not an OpenAPI document');
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || typeof operation.operationId !== 'string') continue;
      const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).filter(isObject);
      const of = (location: string): FuzzParameter[] =>
        parameters
          .filter((parameter) => parameter.in === location)
          .map((parameter) => ({
            name: String(parameter.name),
            schema: isObject(parameter.schema) ? parameter.schema : {},
            required: parameter.required === true,
          }));
      const content =
        isObject(operation.requestBody) && isObject(operation.requestBody.content) ? operation.requestBody.content : {};
      const bodies = Object.fromEntries(
        Object.entries(content).map(([type, media]) => [
          type,
          isObject(media) && isObject(media.schema) ? media.schema : {},
        ]),
      );
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        pathParameters: of('path'),
        queryParameters: of('query'),
        bodies,
        idempotent: parameters.some(
          (parameter) => parameter.in === 'header' && String(parameter.name).toLowerCase() === 'idempotency-key',
        ),
      });
    }
  }
  return operations;
}

/** Resolves local `#/...` references of the document. */
export function resolverOf(document: unknown): (ref: string) => JsonSchema {
  return (ref) => {
    let node: unknown = document;
    for (const part of ref.replace(/^#\//, '').split('/'))
      node = isObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    if (!isObject(node)) throw new Error(`unresolved reference ${ref}`);
    return node;
  };
}

/** The operations that take a body and have no starting request in `starts` (by operationId). */
export function operationsWithoutStart(
  operations: readonly FuzzOperation[],
  starts: Readonly<Record<string, unknown>>,
): string[] {
  return operations
    .filter((operation) => Object.keys(operation.bodies).length > 0 && !Object.hasOwn(starts, operation.operationId))
    .map((operation) => operation.operationId);
}
