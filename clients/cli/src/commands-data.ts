/**
 * Commands for the first half of the value chain: connections, data sources, tables and their
 * imports, recipes (SQL from a file) and datasets with their node runs and release.
 */
import { ok } from '../../typescript/src/client';
import { ProblemError } from '../../typescript/src/problem';
import { id, listQuery, maybe, text, type Options } from './spec';
import type { GroupSpec } from './table';

const FROM_FILE = { flags: '--from-file <path>', description: 'the request body as a JSON file (- for stdin)' };

/** The body: the JSON file when --from-file is given, else the one the options make. */
async function bodyOf<T>(
  context: { readJson(path: string): Promise<unknown> },
  options: Options,
  make: () => T | Promise<T>,
): Promise<T> {
  const file = maybe(options.fromFile);
  return file ? ((await context.readJson(file)) as T) : make();
}

export const connections: GroupSpec = {
  name: 'connections',
  description: 'Connections to data systems (secrets are write-only)',
  commands: [
    {
      name: 'list',
      description: 'List connections',
      list: true,
      examples: ['dps connections list --filter "type eq \'object_store\'" --sort -created_date'],
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.GET('/connections', { params: { query: listQuery(options) } })),
      }),
    },
    {
      name: 'get <connection-id>',
      description: 'Show a connection',
      run: async ({ client }, [connection]) => ({
        body: await ok(
          client.api.GET('/connections/{connection_id}', {
            params: { path: { connection_id: id(connection, 'connection-id') } },
          }),
        ),
      }),
    },
    {
      name: 'create',
      description:
        'Create an S3-compatible object-store connection (or any type with --from-file); the secret key is read from DPS_SECRET_ACCESS_KEY, --secret-key-file, stdin or a prompt, never from the command line',
      options: [
        { flags: '--name <name>', description: 'the connection name' },
        { flags: '--endpoint <url>', description: 'the store endpoint, e.g. http://127.0.0.1:4569' },
        { flags: '--access-key-id <id>', description: 'the access key id' },
        { flags: '--secret-key-file <path>', description: 'a file holding the secret access key' },
        { flags: '--path-restriction <path>', description: 'bucket/prefix/ the connection may reach' },
        { flags: '--write', description: 'the connection may be written to (export targets)' },
        FROM_FILE,
      ],
      examples: [
        'DPS_SECRET_ACCESS_KEY=S3RVER dps connections create --name "demo lake" --endpoint http://127.0.0.1:4569 --access-key-id S3RVER --path-restriction demo/sales/',
        'dps connections create --from-file warehouse.json',
      ],
      run: async (context, _args, options) => {
        const body = await bodyOf(context, options, async () => ({
          name: text(options.name, '--name'),
          type: 'object_store' as const,
          ...(maybe(options.pathRestriction) ? { path_restriction: maybe(options.pathRestriction) } : {}),
          ...(options.write === true ? { write: true } : {}),
          auth: {
            auth_type: 'secret_key' as const,
            access_key_id: text(options.accessKeyId, '--access-key-id'),
            secret_access_key: await context.secret(
              'secret access key',
              'DPS_SECRET_ACCESS_KEY',
              options.secretKeyFile,
            ),
            ...(maybe(options.endpoint) ? { endpoint: maybe(options.endpoint) } : {}),
          },
        }));
        return { body: await ok(context.client.api.POST('/connections', { body: body as never })) };
      },
    },
    {
      name: 'test <connection-id>',
      description: 'Test a stored connection',
      options: [{ flags: '--type <type>', description: 'the connection type (default object_store)' }],
      run: async ({ client }, [connection], options) => ({
        body: await ok(
          client.api.POST('/connections/{connection_id}/test', {
            params: { path: { connection_id: id(connection, 'connection-id') } },
            body: { type: (maybe(options.type) ?? 'object_store') as never },
          }),
        ),
      }),
    },
    {
      name: 'browse <connection-id> [path]',
      description: 'List the folders and files under a path of a connection',
      run: async ({ client }, [connection, path]) => ({
        body: await ok(
          client.api.POST('/connections/{connection_id}/browse', {
            params: { path: { connection_id: id(connection, 'connection-id') } },
            body: (path ? { path } : {}) as never,
          }),
        ),
      }),
    },
    {
      name: 'delete <connection-id>',
      description: 'Delete a connection',
      run: async ({ client }, [connection]) => ({
        body: await ok(
          client.api.DELETE('/connections/{connection_id}', {
            params: { path: { connection_id: id(connection, 'connection-id') } },
          }),
        ),
      }),
    },
  ],
};

export const dataSources: GroupSpec = {
  name: 'data-sources',
  description: 'Data sources: what to read through a connection',
  commands: [
    {
      name: 'list',
      description: 'List data sources',
      list: true,
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.GET('/data-sources', { params: { query: listQuery(options) } })),
      }),
    },
    {
      name: 'get <data-source-id>',
      description: 'Show a data source',
      run: async ({ client }, [source]) => ({
        body: await ok(
          client.api.GET('/data-sources/{data_source_id}', {
            params: { path: { data_source_id: id(source, 'data-source-id') } },
          }),
        ),
      }),
    },
    {
      name: 'create',
      description: 'Create a bucket data source (a folder of a connection), or any type with --from-file',
      options: [
        { flags: '--name <name>', description: 'the data source name' },
        { flags: '--connection <connection-id>', description: 'the connection to read through' },
        { flags: '--path <path>', description: 'bucket/folder/ to read' },
        FROM_FILE,
      ],
      examples: ['dps data-sources create --name "sales files" --connection 1 --path demo/sales/'],
      run: async (context, _args, options) => {
        const body = await bodyOf(context, options, () => ({
          name: text(options.name, '--name'),
          type: 'bucket' as const,
          connection_id: id(text(options.connection, '--connection'), '--connection'),
          path: text(options.path, '--path'),
        }));
        return { body: await ok(context.client.api.POST('/data-sources', { body: body as never })) };
      },
    },
  ],
};

const versionPath = (table: string | undefined, version: string | undefined) => ({
  data_table_id: id(table, 'table-id'),
  version_number: id(version, 'version'),
});

export const tables: GroupSpec = {
  name: 'tables',
  description: 'Data tables, their imported versions, previews and schema analyses',
  commands: [
    {
      name: 'list',
      description: 'List data tables',
      list: true,
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.GET('/data-tables', { params: { query: listQuery(options) } })),
      }),
    },
    {
      name: 'get <table-id>',
      description: 'Show a data table',
      run: async ({ client }, [table]) => ({
        body: await ok(
          client.api.GET('/data-tables/{data_table_id}', {
            params: { path: { data_table_id: id(table, 'table-id') } },
          }),
        ),
      }),
    },
    {
      name: 'create',
      description: 'Create a data table over a data source',
      options: [
        { flags: '--name <name>', description: 'the table name' },
        { flags: '--data-source <data-source-id>', description: 'the data source it imports' },
      ],
      examples: ['dps tables create --name sales --data-source 1'],
      run: async ({ client }, _args, options) => ({
        body: await ok(
          client.api.POST('/data-tables', {
            body: {
              name: text(options.name, '--name'),
              data_source_id: id(text(options.dataSource, '--data-source'), '--data-source'),
            },
          }),
        ),
      }),
    },
    {
      name: 'import <table-id>',
      description: 'Import a new version of a table (a job: waits for it unless --no-wait)',
      job: true,
      examples: ['dps tables import 1', 'dps tables import 1 --no-wait --json'],
      run: async ({ client }, [table]) => {
        const dataTableId = id(table, 'table-id');
        const body = await ok(
          client.api.POST('/data-versions/batch-create', { body: { data_table_ids: [dataTableId] } }),
        );
        const [result] = body.results;
        // A table the batch refused is a refusal like any other: its code, exit code 3.
        if (result?.status !== 'ACCEPTED' || result.data_version === undefined)
          throw new ProblemError(
            result?.error?.status ?? 409,
            { code: result?.error?.code, detail: result?.error?.message },
            'POST /data-versions/batch-create',
          );
        const versionNumber = result.data_version.version_number;
        return { body, job: { kind: 'import', dataTableId, versionNumber } };
      },
    },
    {
      name: 'versions <table-id>',
      description: 'List the versions of a table',
      list: true,
      run: async ({ client }, [table], options) => ({
        body: await ok(
          client.api.GET('/data-tables/{data_table_id}/versions', {
            params: { path: { data_table_id: id(table, 'table-id') }, query: listQuery(options) },
          }),
        ),
      }),
    },
    {
      name: 'version <table-id> <version>',
      description: 'Show a version and its import',
      run: async ({ client }, [table, version]) => ({
        body: await ok(
          client.api.GET('/data-tables/{data_table_id}/versions/{version_number}', {
            params: { path: versionPath(table, version) },
          }),
        ),
      }),
    },
    {
      name: 'preview <table-id> <version>',
      description: 'The first rows of a version, with its schema',
      run: async ({ client }, [table, version]) => ({
        body: await ok(
          client.api.GET('/data-tables/{data_table_id}/versions/{version_number}/preview', {
            params: { path: versionPath(table, version) },
          }),
        ),
      }),
    },
    {
      name: 'analyse <table-id> <version>',
      description: 'Analyse a version’s schema (a job)',
      job: true,
      options: [{ flags: '--depth <depth>', description: 'SHALLOW or FULL (default FULL)' }],
      run: async ({ client }, [table, version], options) => {
        const path = versionPath(table, version);
        const body = await ok(
          client.api.POST('/data-tables/{data_table_id}/versions/{version_number}/schema-analysis', {
            params: { path },
            body: { depth: (maybe(options.depth) ?? 'FULL') as 'FULL' },
          }),
        );
        return {
          body,
          job: { kind: 'table-analysis', dataTableId: path.data_table_id, versionNumber: path.version_number },
        };
      },
    },
  ],
};
