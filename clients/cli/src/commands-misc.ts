/**
 * Commands beside the resources: waiting for a job started elsewhere (the hint a stopped wait
 * prints), and calling any operation of the API by its operationId.
 */
import { IDEMPOTENT_CREATES, OPERATIONS } from '../../typescript/src/generated/operations';
import type { JobRef } from '../../typescript/src/jobs';
import { ProblemError, problemOf } from '../../typescript/src/problem';
import { id, maybe, text, UsageError } from './spec';

/** The job a `dps wait <kind> <ids...>` names. */
export function jobOf(kind: string, ids: readonly string[]): JobRef {
  const n = (index: number) => id(ids[index], `${kind} id ${index + 1}`);
  switch (kind) {
    case 'import':
    case 'table-analysis':
      return { kind, dataTableId: n(0), versionNumber: n(1) };
    case 'run':
    case 'node-analysis':
      return { kind, datasetId: n(0), versionNumber: n(1), nodeId: n(2) };
    case 'export':
      return { kind, exportId: n(0) };
    case 'transfer':
      return { kind, transferId: n(0) };
    case 'direct-export':
    case 'multipart-export':
      return { kind, jobId: text(ids[0], 'job-id') };
    default:
      throw new UsageError(
        `unknown job kind ${kind}: import, table-analysis, run, node-analysis, export, direct-export, multipart-export or transfer`,
      );
  }
}

/** The command that follows `job`: what a stopped wait prints. */
export function followCommand(job: JobRef): string {
  switch (job.kind) {
    case 'import':
    case 'table-analysis':
      return `dps wait ${job.kind} ${job.dataTableId} ${job.versionNumber}`;
    case 'run':
    case 'node-analysis':
      return `dps wait ${job.kind} ${job.datasetId} ${job.versionNumber} ${job.nodeId}`;
    case 'export':
      return `dps wait export ${job.exportId}`;
    case 'transfer':
      return `dps wait transfer ${job.transferId}`;
    case 'direct-export':
    case 'multipart-export':
      return `dps wait ${job.kind} ${job.jobId}`;
  }
}

/** `name=value` pairs as an object; values that are whole numbers become numbers. */
function pairs(values: readonly string[]): Record<string, string | number> {
  return Object.fromEntries(
    values.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new UsageError(`${pair}: expected name=value`);
      const value = pair.slice(at + 1);
      return [pair.slice(0, at), /^\d+$/.test(value) ? Number(value) : value];
    }),
  );
}

/** `dps wait` and `dps call`: single commands, not groups. */
export const single = {
  wait: {
    name: 'wait <kind> <ids...>',
    description:
      'Wait for a job: import|table-analysis <table> <version>, run|node-analysis <dataset> <version> <node>, export|transfer <id>, direct-export|multipart-export <job-id>',
    examples: ['dps wait import 1 1', 'dps wait run 1 1 4', 'dps wait export 3 --json'],
    run: async (_context: unknown, args: readonly string[]) => {
      const [kind, ...ids] = args;
      return { body: { waiting_for: kind }, job: jobOf(text(kind, 'kind'), ids) };
    },
  },
  call: {
    name: 'call <operation-id>',
    description:
      'Call any operation of the API by its operationId (its operationId in the OpenAPI document, e.g. getDataTable)',
    options: [
      { flags: '--path <name=value>', description: 'a path parameter (repeat)', repeatable: true },
      { flags: '--query <name=value>', description: 'a query parameter (repeat)', repeatable: true },
      { flags: '--body-file <path>', description: 'the JSON request body (- for stdin)' },
    ],
    examples: [
      'dps call getDataTable --path data_table_id=1',
      'dps call listRoles --query "filter=name eq \'viewer\'"',
    ],
    run: async (
      context: {
        client: { baseUrl: string; api: { request: unknown } };
        readJson(path: string): Promise<unknown>;
        fetchRaw(request: Request): Promise<Response>;
      },
      [operationId]: readonly string[],
      options: Readonly<Record<string, unknown>>,
    ) => {
      const operation = (OPERATIONS as Record<string, { method: string; path: string } | undefined>)[
        text(operationId, 'operation-id')
      ];
      if (!operation) throw new UsageError(`unknown operation ${operationId}`);
      const path = pairs((options.path as string[] | undefined) ?? []);
      const query = new URLSearchParams(
        Object.entries(pairs((options.query as string[] | undefined) ?? [])).map(([k, v]): [string, string] => [
          k,
          String(v),
        ]),
      ).toString();
      const url =
        context.client.baseUrl +
        operation.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
          if (!(name in path)) throw new UsageError(`--path ${name}=... is required`);
          return encodeURIComponent(String(path[name]));
        }) +
        (query ? `?${query}` : '');
      const bodyFile = maybe(options.bodyFile);
      const body = bodyFile ? JSON.stringify(await context.readJson(bodyFile)) : undefined;
      const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
      // A create gets its key here too: the transport's retries then never create twice.
      if (IDEMPOTENT_CREATES.has(`${operation.method} ${operation.path}`))
        headers['idempotency-key'] = globalThis.crypto.randomUUID();
      const response = await context.fetchRaw(
        new Request(url, { method: operation.method, headers, ...(body ? { body } : {}) }),
      );
      if (!response.ok)
        throw new ProblemError(response.status, await problemOf(response), `${operation.method} ${operation.path}`);
      const text_ = await response.text();
      return { body: /json/.test(response.headers.get('content-type') ?? '') && text_ ? JSON.parse(text_) : text_ };
    },
  },
};
