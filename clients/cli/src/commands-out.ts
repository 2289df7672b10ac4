/**
 * Commands for the second half of the value chain: targets, exports (to a target, direct and
 * multi-part), transfers, and the tenant's tokens, quota and retention policy.
 */
import { ok } from '../../typescript/src/client';
import { id, listQuery, maybe, text, UsageError, type Context, type Options } from './spec';
import type { GroupSpec } from './table';

const FROM_FILE = { flags: '--from-file <path>', description: 'the request body as a JSON file (- for stdin)' };

async function fileBody(context: Context, options: Options): Promise<never> {
  return (await context.readJson(text(options.fromFile, '--from-file'))) as never;
}

/** The source of an export or a transfer: --dataset or --table, with --source-version. */
function sourceOf(options: Options): {
  source_type: 'dataset' | 'datatable';
  source_id: number;
  source_version: number;
} {
  const dataset = maybe(options.dataset);
  const table = maybe(options.table);
  if ((dataset === undefined) === (table === undefined)) throw new UsageError('give one of --dataset and --table');
  return {
    source_type: dataset ? 'dataset' : 'datatable',
    source_id: id(dataset ?? table, dataset ? '--dataset' : '--table'),
    source_version: id(text(options.sourceVersion, '--source-version'), '--source-version'),
  };
}

const SOURCE_OPTIONS = [
  { flags: '--dataset <dataset-id>', description: 'a released dataset version’s output' },
  { flags: '--table <table-id>', description: 'or a data table version' },
  { flags: '--source-version <n>', description: 'the version of it' },
];

export const targets: GroupSpec = {
  name: 'targets',
  description: 'Export targets: a writable connection and where in it exports go',
  commands: [
    {
      name: 'list',
      description: 'List targets',
      list: true,
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.GET('/targets', { params: { query: listQuery(options) } })),
      }),
    },
    {
      name: 'get <target-id>',
      description: 'Show a target',
      run: async ({ client }, [target]) => ({
        body: await ok(
          client.api.GET('/targets/{target_id}', { params: { path: { target_id: id(target, 'target-id') } } }),
        ),
      }),
    },
    {
      name: 'create',
      description: 'Create a bucket target (a folder of a writable connection), or any type with --from-file',
      options: [
        { flags: '--name <name>', description: 'the target name' },
        { flags: '--connection <connection-id>', description: 'a connection made with --write' },
        {
          flags: '--path <path>',
          description: 'folder; may hold {dataset_name}, {version}, {date}, {time}, {export_id}',
        },
        FROM_FILE,
      ],
      examples: [
        'dps targets create --name "regional exports" --connection 2 --path "demo/exports/{dataset_name}/v{version}/"',
      ],
      run: async (context, _args, options) => {
        const body = maybe(options.fromFile)
          ? await fileBody(context, options)
          : ({
              name: text(options.name, '--name'),
              type: 'bucket',
              connection_id: id(text(options.connection, '--connection'), '--connection'),
              path: text(options.path, '--path'),
            } as never);
        return { body: await ok(context.client.api.POST('/targets', { body })) };
      },
    },
  ],
};

export const exportsGroup: GroupSpec = {
  name: 'exports',
  description: 'Exports of table and dataset versions (jobs)',
  commands: [
    {
      name: 'list',
      description: 'List exports to targets',
      list: true,
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.GET('/exports', { params: { query: listQuery(options) } })),
      }),
    },
    {
      name: 'get <export-id>',
      description: 'Show an export',
      run: async ({ client }, [exported]) => ({
        body: await ok(
          client.api.GET('/exports/{export_id}', { params: { path: { export_id: id(exported, 'export-id') } } }),
        ),
      }),
    },
    {
      name: 'create',
      description: 'Export a version to a target (a job)',
      job: true,
      options: [
        { flags: '--target <target-id>', description: 'the target' },
        ...SOURCE_OPTIONS,
        { flags: '--format <format>', description: 'parquet or csv' },
        { flags: '--sample', description: 'the sample instead of all rows' },
      ],
      examples: ['dps exports create --target 1 --dataset 1 --source-version 1 --format csv'],
      run: async ({ client }, _args, options) => {
        const format = maybe(options.format);
        const body = await ok(
          client.api.POST('/exports', {
            body: {
              target_id: id(text(options.target, '--target'), '--target'),
              ...sourceOf(options),
              ...(format ? { format: format as 'csv' } : {}),
              ...(options.sample === true ? { use_sample: true } : {}),
            },
          }),
        );
        return { body, job: { kind: 'export', exportId: body.export_id } };
      },
    },
    {
      name: 'direct',
      description:
        'Export straight to an S3-compatible store named in a JSON file (its keys stay out of the command line)',
      job: true,
      options: [FROM_FILE],
      examples: ['dps exports direct --from-file direct-export.json'],
      run: async (context, _args, options) => {
        const body = await ok(context.client.api.POST('/exports/direct', { body: await fileBody(context, options) }));
        return { body, job: { kind: 'direct-export', jobId: body.job_id } };
      },
    },
    {
      name: 'multi-part',
      description: 'Export into the parts of a multipart upload (pre-signed part URLs in a JSON file)',
      job: true,
      options: [FROM_FILE],
      run: async (context, _args, options) => {
        const body = await ok(
          context.client.api.POST('/exports/multi-part', { body: await fileBody(context, options) }),
        );
        return { body, job: { kind: 'multipart-export', jobId: body.job_id } };
      },
    },
  ],
};

export const transfers: GroupSpec = {
  name: 'transfers',
  description: 'Transfers of versions into a pricing system (jobs)',
  commands: [
    {
      name: 'list',
      description: 'List transfers',
      list: true,
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.GET('/transfers', { params: { query: listQuery(options) } })),
      }),
    },
    {
      name: 'get <transfer-id>',
      description: 'Show a transfer',
      run: async ({ client }, [transfer]) => ({
        body: await ok(
          client.api.GET('/transfers/{transfer_id}', {
            params: { path: { transfer_id: id(transfer, 'transfer-id') } },
          }),
        ),
      }),
    },
    {
      name: 'start',
      description: 'Send a version to a pricing target (a job)',
      job: true,
      options: [{ flags: '--target <target-id>', description: 'a pricing target' }, ...SOURCE_OPTIONS],
      examples: ['dps transfers start --target 2 --dataset 1 --source-version 1'],
      run: async ({ client }, _args, options) => {
        const body = await ok(
          client.api.POST('/transfers', {
            body: { target_id: id(text(options.target, '--target'), '--target'), ...sourceOf(options) },
          }),
        );
        return { body, job: { kind: 'transfer', transferId: body.transfer_id } };
      },
    },
  ],
};

export const tokens: GroupSpec = {
  name: 'tokens',
  description: 'Tenant tokens: the tenant’s own API clients, each with roles',
  commands: [
    {
      name: 'list',
      description: 'List tokens',
      list: true,
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.GET('/tokens', { params: { query: listQuery(options) } })),
      }),
    },
    {
      name: 'get <client-id>',
      description: 'Show a token',
      run: async ({ client }, [clientId]) => ({
        body: await ok(
          client.api.GET('/tokens/{client_id}', { params: { path: { client_id: text(clientId, 'client-id') } } }),
        ),
      }),
    },
    {
      name: 'create',
      description: 'Create a token; its secret is written to --secret-file (mode 600), never printed',
      options: [
        { flags: '--description <text>', description: 'what it is for' },
        { flags: '--role <name>', description: 'a role (repeat for more)', repeatable: true },
        { flags: '--expiration <when>', description: 'ISO 8601 date-time or duration, e.g. P30D' },
        { flags: '--secret-file <path>', description: 'where to write the secret' },
      ],
      examples: [
        'dps tokens create --description "reporting job" --role viewer --expiration P30D --secret-file reader.secret',
      ],
      run: async (context, _args, options) => {
        const secretFile = text(options.secretFile, '--secret-file');
        const created = await ok(
          context.client.api.POST('/tokens', {
            body: {
              description: text(options.description, '--description'),
              role_names: (options.role as string[] | undefined) ?? [],
              expiration: text(options.expiration, '--expiration'),
            },
          }),
        );
        const { writeFile } = await import('node:fs/promises');
        await writeFile(secretFile, `${created.secret}\n`, { mode: 0o600 });
        return { body: { ...created, secret: `(written to ${secretFile})` } };
      },
    },
    {
      name: 'delete <client-id>',
      description: 'Delete a token: it can no longer be exchanged',
      run: async ({ client }, [clientId]) => ({
        body: await ok(
          client.api.DELETE('/tokens/{client_id}', { params: { path: { client_id: text(clientId, 'client-id') } } }),
        ),
      }),
    },
  ],
};

export const quota: GroupSpec = {
  name: 'quota',
  description: 'Quota contracts and the usage measured against them',
  commands: [
    {
      name: 'get',
      description: 'The current quota contract',
      run: async ({ client }) => ({ body: await ok(client.api.GET('/quota')) }),
    },
    {
      name: 'usage',
      description: 'Usage measured against the current contract',
      run: async ({ client }) => ({ body: await ok(client.api.GET('/quota/usage')) }),
    },
    {
      name: 'list',
      description: 'Every quota contract',
      list: true,
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.GET('/quota/contracts', { params: { query: listQuery(options) } })),
      }),
    },
    {
      name: 'create',
      description: 'Create a quota contract from a JSON file',
      options: [FROM_FILE],
      run: async (context, _args, options) => ({
        body: await ok(context.client.api.POST('/quota', { body: await fileBody(context, options) })),
      }),
    },
  ],
};

export const retention: GroupSpec = {
  name: 'retention',
  description: 'The tenant’s retention policy',
  commands: [
    {
      name: 'get',
      description: 'The retention policy',
      run: async ({ client }) => ({ body: await ok(client.api.GET('/retention-policy')) }),
    },
    {
      name: 'set',
      description: 'Replace the retention policy with a JSON file’s (with its lock_version)',
      options: [FROM_FILE],
      run: async (context, _args, options) => ({
        body: await ok(context.client.api.PUT('/retention-policy', { body: await fileBody(context, options) })),
      }),
    },
    {
      name: 'preview',
      description: 'What the daily sweep would delete',
      run: async ({ client }) => ({ body: await ok(client.api.GET('/retention-policy/preview')) }),
    },
  ],
};
