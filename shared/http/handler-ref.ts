/**
 * Where a function's handler is: a module under functions/ and the export that is the handler.
 * Most modules export one, `handler` ('connections/create'); a declared entity's module exports
 * its one-line route handlers side by side ('targets/entity#list', shared/http/entity-handlers.ts),
 * each still deployed as its own function with its own access. CDK, the bundler, the local HTTP
 * server and the tests read a reference only through this module.
 */

/** A handler reference taken apart. */
export interface HandlerRef {
  /** Module under functions/, without extension. */
  readonly module: string;
  /** The module's export that is the handler. */
  readonly exportName: string;
}

const DEFAULT_EXPORT = 'handler';

/** 'targets/entity#list' → { module: 'targets/entity', exportName: 'list' }; no '#' → the `handler` export. */
export function handlerRef(handler: string): HandlerRef {
  const at = handler.indexOf('#');
  if (at < 0) return { module: handler, exportName: DEFAULT_EXPORT };
  return { module: handler.slice(0, at), exportName: handler.slice(at + 1) };
}

/** The module's path from the project root: 'functions/targets/entity.ts'. */
export const handlerModulePath = (handler: string): string => `functions/${handlerRef(handler).module}.ts`;

/** How descriptions name the handler: 'functions/targets/create.ts', 'functions/targets/entity.ts#list'. */
export function handlerLabel(handler: string): string {
  const { exportName } = handlerRef(handler);
  return exportName === DEFAULT_EXPORT ? handlerModulePath(handler) : `${handlerModulePath(handler)}#${exportName}`;
}

/** A function name made of the reference: 'targets-create', 'targets-entity-list'. */
export const handlerFunctionName = (handler: string): string => handler.replace(/[/#]/g, '-');
