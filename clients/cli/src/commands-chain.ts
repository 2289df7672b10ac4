/**
 * Commands for recipes (SQL from a .sql file) and datasets: versions, nodes, node runs and
 * their schema analyses, and release.
 */
import { ok } from '../../typescript/src/client';
import { id, listQuery, maybe, text } from './spec';
import type { GroupSpec } from './table';

export const recipes: GroupSpec = {
  name: 'recipes',
  description: 'Versioned SQL recipes over aliased tables',
  commands: [
    {
      name: 'list',
      description: 'List recipes',
      list: true,
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.GET('/recipes', { params: { query: listQuery(options) } })),
      }),
    },
    {
      name: 'get <recipe-id>',
      description: 'Show a recipe',
      run: async ({ client }, [recipe]) => ({
        body: await ok(
          client.api.GET('/recipes/{recipe_id}', { params: { path: { recipe_id: id(recipe, 'recipe-id') } } }),
        ),
      }),
    },
    {
      name: 'create',
      description: 'Create a recipe from a .sql file; each --alias names a table the SQL reads',
      options: [
        { flags: '--name <name>', description: 'the recipe name' },
        { flags: '--sql <file>', description: 'the SQL of its first version (- for stdin)' },
        { flags: '--alias <alias>', description: 'an alias the SQL reads (repeat for more)', repeatable: true },
      ],
      examples: ['dps recipes create --name "sales by region" --alias sales --sql by-region.sql'],
      run: async (context, _args, options) => {
        const aliases = (options.alias as string[] | undefined) ?? [];
        const code = await context.readText(text(options.sql, '--sql'));
        return {
          body: await ok(
            context.client.api.POST('/recipes', {
              body: { name: text(options.name, '--name'), aliases, recipe_version: { code } } as never,
            }),
          ),
        };
      },
    },
    {
      name: 'version-create <recipe-id>',
      description: 'Add a version to a recipe from a .sql file',
      options: [{ flags: '--sql <file>', description: 'the SQL (- for stdin)' }],
      examples: ['dps recipes version-create 1 --sql by-region-v2.sql'],
      run: async (context, [recipe], options) => ({
        body: await ok(
          context.client.api.POST('/recipes/{recipe_id}/versions', {
            params: { path: { recipe_id: id(recipe, 'recipe-id') } },
            body: { code: await context.readText(text(options.sql, '--sql')) } as never,
          }),
        ),
      }),
    },
  ],
};

const nodePath = (dataset?: string, version?: string, node?: string) => ({
  dataset_id: id(dataset, 'dataset-id'),
  version_number: id(version, 'version'),
  node_id: id(node, 'node-id'),
});

export const datasets: GroupSpec = {
  name: 'datasets',
  description: 'Datasets: versioned graphs of table and recipe nodes; node runs and release',
  commands: [
    {
      name: 'list',
      description: 'List datasets',
      list: true,
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.GET('/datasets', { params: { query: listQuery(options) } })),
      }),
    },
    {
      name: 'get <dataset-id>',
      description: 'Show a dataset',
      run: async ({ client }, [dataset]) => ({
        body: await ok(
          client.api.GET('/datasets/{dataset_id}', { params: { path: { dataset_id: id(dataset, 'dataset-id') } } }),
        ),
      }),
    },
    {
      name: 'create',
      description: 'Create a dataset (its version 1 is an empty graph)',
      options: [{ flags: '--name <name>', description: 'the dataset name' }],
      examples: ['dps datasets create --name "regional change"'],
      run: async ({ client }, _args, options) => ({
        body: await ok(client.api.POST('/datasets', { body: { name: text(options.name, '--name') } })),
      }),
    },
    {
      name: 'add-node <dataset-id> <version>',
      description: 'Add a table node (--table) or a recipe node (--recipe with --source node=alias)',
      options: [
        { flags: '--table <table-id>', description: 'a data table' },
        { flags: '--table-version <n>', description: 'a fixed version of it (default: its latest)' },
        { flags: '--recipe <recipe-id>', description: 'a recipe' },
        { flags: '--recipe-version <n>', description: 'its version' },
        {
          flags: '--source <node-id=alias>',
          description: 'a source node and the alias it binds (repeat)',
          repeatable: true,
        },
      ],
      examples: [
        'dps datasets add-node 1 1 --table 1',
        'dps datasets add-node 1 1 --recipe 1 --recipe-version 1 --source 1=sales',
      ],
      run: async ({ client }, [dataset, version], options) => {
        const datasetId = id(dataset, 'dataset-id');
        const tableVersion = maybe(options.tableVersion);
        const body = maybe(options.table)
          ? {
              node_type: 'TABLE',
              dataset_id: datasetId,
              data_table_id: id(options.table, '--table'),
              ...(tableVersion ? { data_table_version_number: id(tableVersion, '--table-version') } : {}),
            }
          : {
              node_type: 'RECIPE',
              dataset_id: datasetId,
              recipe_id: id(text(options.recipe, '--table or --recipe'), '--recipe'),
              recipe_version_number: id(text(options.recipeVersion, '--recipe-version'), '--recipe-version'),
              source_node_definitions: ((options.source as string[] | undefined) ?? []).map((pair) => {
                const [node, alias] = pair.split('=');
                return { source_node_id: id(node, '--source node'), alias: text(alias, '--source alias') };
              }),
            };
        return {
          body: await ok(
            client.api.POST('/datasets/{dataset_id}/versions/{version_number}/nodes', {
              params: { path: { dataset_id: datasetId, version_number: id(version, 'version') } },
              body: body as never,
            }),
          ),
        };
      },
    },
    {
      name: 'run <dataset-id> <version> <node-id>',
      description: 'Run a recipe node and the upstream nodes it needs (a job)',
      job: true,
      options: [{ flags: '--sample', description: 'on samples instead of all rows' }],
      examples: ['dps datasets run 1 1 4 --sample', 'dps datasets run 1 1 4 --no-wait'],
      run: async ({ client }, [dataset, version, node], options) => {
        const path = nodePath(dataset, version, node);
        const body = await ok(
          client.api.POST('/datasets/{dataset_id}/versions/{version_number}/nodes/{node_id}/execute', {
            params: { path },
            body: { use_sample: options.sample === true },
          }),
        );
        return {
          body,
          job: { kind: 'run', datasetId: path.dataset_id, versionNumber: path.version_number, nodeId: path.node_id },
        };
      },
    },
    {
      name: 'run-status <dataset-id> <version> <node-id>',
      description: 'Show a node’s run',
      run: async ({ client }, [dataset, version, node]) => ({
        body: await ok(
          client.api.GET('/datasets/{dataset_id}/versions/{version_number}/nodes/{node_id}/run-status', {
            params: { path: nodePath(dataset, version, node) },
          }),
        ),
      }),
    },
    {
      name: 'analyse <dataset-id> <version> <node-id>',
      description: 'Analyse a node output’s schema (a job)',
      job: true,
      options: [{ flags: '--depth <depth>', description: 'SHALLOW or FULL (default FULL)' }],
      run: async ({ client }, [dataset, version, node], options) => {
        const path = nodePath(dataset, version, node);
        const body = await ok(
          client.api.POST('/datasets/{dataset_id}/versions/{version_number}/nodes/{node_id}/schema-analysis', {
            params: { path },
            body: { depth: (maybe(options.depth) ?? 'FULL') as 'FULL' } as never,
          }),
        );
        return {
          body,
          job: {
            kind: 'node-analysis',
            datasetId: path.dataset_id,
            versionNumber: path.version_number,
            nodeId: path.node_id,
          },
        };
      },
    },
    {
      name: 'release <dataset-id> <version>',
      description: 'Release a version: publish its output, freeze its graph',
      examples: ['dps datasets release 1 1'],
      run: async ({ client }, [dataset, version]) => ({
        body: await ok(
          client.api.POST('/datasets/{dataset_id}/versions/{version_number}/release', {
            params: { path: { dataset_id: id(dataset, 'dataset-id'), version_number: id(version, 'version') } },
          }),
        ),
      }),
    },
  ],
};
