import * as z from 'zod';
import {
  AuditFields,
  Description,
  EchoedAuditFields,
  EntityId,
  IdParameter,
  LockVersion,
  Name,
  Tags,
  integerText,
} from './common';
import type { ListFieldTypes } from './list-fields';
import { documented, mergePatchOf } from './merge-patch-schema';
import { withoutControls } from './text-rules';

/**
 * Recipes: versioned SQL transformations whose tables are named by aliases (spec 2.7, 8).
 * Rules zod cannot state as 10-1400 (the language, 20-1010; duplicate aliases, 20-1051;
 * CurrentTable among several aliases, 20-1053) are checked in shared/recipes/rules.ts.
 */

/**
 * The languages a recipe may be written in, each the dialect of the engine that runs it
 * (docs/recipe-languages.md): `duckdb-sql` is DuckDB's SQL (https://duckdb.org/docs/sql/introduction),
 * within the analyzer's allow-list, run by DuckDB in the worker; `trino-sql` is Trino's SQL as
 * Athena runs it (https://trino.io/docs/current/sql.html), behind the `athena` feature toggle.
 */
export const RECIPE_LANGUAGES = ['duckdb-sql', 'trino-sql'] as const;
export type RecipeLanguage = (typeof RECIPE_LANGUAGES)[number];
export const DEFAULT_RECIPE_LANGUAGE: RecipeLanguage = 'duckdb-sql';

/** Aliases per recipe (spec 8): one for a single-source recipe, 2 to 10 for a multi-source one. */
export const MAX_ALIASES = 10;
/** The alias a single-source recipe may use for its one table (spec 2.7); reserved among several aliases. */
export const CURRENT_TABLE_ALIAS = 'CurrentTable';
/** Longest recipe code: the version item and the recipe's copy of its latest version each hold it, within an item's 400 KB. */
export const MAX_CODE_LENGTH = 65_536;

const ALIAS_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * DuckDB's reserved and type-function keywords (duckdb_keywords() of the pinned DuckDB).
 * Unquoted, most cannot name a table and the rest (map, struct, columns...) are read as
 * something else in some positions; an alias is written unquoted in FROM clauses, so none of
 * these can be one. test/integration/recipes/rules.test.ts holds the list against the engine.
 */
export const NON_ALIAS_KEYWORDS: ReadonlySet<string> = new Set(
  (
    'all analyse analyze and anti any array as asc asof asymmetric at authorization binary both by case cast check collate collation ' +
    'column columns concurrently constraint create cross default deferrable desc describe distinct do else end except false fetch for ' +
    'foreign freeze from full generated glob group having ilike in initially inner intersect into is isnull join lambda lateral ' +
    'leading left like limit map natural not notnull null offset on only or order outer overlaps pivot pivot_longer pivot_wider ' +
    'placing positional primary qualify references returning right select semi show similar some struct summarize symmetric table ' +
    'tablesample then to trailing true try_cast union unique unpack unpivot using variadic verbose when where window with'
  ).split(' '),
);

export const RecipeAlias = z
  .string()
  .regex(
    ALIAS_PATTERN,
    'must be a SQL identifier: a letter or underscore, then letters, digits or underscores, at most 63 characters',
  )
  .refine((alias) => !NON_ALIAS_KEYWORDS.has(alias.toLowerCase()), {
    error: 'must not be a DuckDB keyword that cannot name a table (such as select or join)',
  })
  .describe('A SQL identifier the code uses as a table name; not a DuckDB reserved keyword');

export const RecipeAliases = z
  .array(RecipeAlias)
  .min(1)
  .max(MAX_ALIASES)
  .describe(
    `The table names the code reads: 1 for a single-source recipe (${CURRENT_TABLE_ALIAS} allowed), 2 to ${MAX_ALIASES} for a multi-source one (${CURRENT_TABLE_ALIAS} refused, 20-1053); unique ignoring case (20-1051)`,
  );

const RecipeCode = z
  .string()
  .max(MAX_CODE_LENGTH)
  .nullable()
  .optional()
  .describe(
    'SQL of the transformation: one query in the recipe’s language (DuckDB SQL, or Trino SQL for trino-sql) that reads the aliases as tables; required in effect (40-50004 without it)',
  );

const Language = z
  .string()
  .max(64)
  .nullable()
  .optional()
  .describe(
    `The SQL dialect, shared by all versions and fixed once the recipe exists: duckdb-sql (DuckDB's SQL, the default) or trino-sql (Trino's SQL, run by Athena; needs the athena feature toggle, 10-1501 otherwise); others are refused with 20-1010`,
  );

const Shared = z
  .boolean()
  .nullable()
  .optional()
  .describe('Whether other users of the tenant may use the recipe; true when omitted');

export const RecipeIdParams = z.strictObject({ recipe_id: IdParameter });
export const RecipeVersionParams = z.strictObject({
  recipe_id: IdParameter,
  version_number: integerText('must be a positive integer', 1).describe('Version number of the recipe'),
});

export const RecipeVersionRequest = z.strictObject({ code: RecipeCode }).meta({ id: 'RecipeVersionRequest' });

export const RecipeCreateRequest = z
  .strictObject({
    name: Name,
    description: Description,
    tags: Tags,
    shared: Shared,
    language: Language,
    aliases: RecipeAliases,
    recipe_version: RecipeVersionRequest.describe('Version 1'),
  })
  .meta({ id: 'RecipeCreateRequest' });

export const RecipeUpdateRequest = z
  .strictObject({
    id: EntityId,
    lock_version: LockVersion,
    name: Name,
    description: Description,
    tags: Tags,
    shared: Shared,
    language: Language,
    latest_version: z
      .unknown()
      .optional()
      .describe('Read-only; accepted and ignored (versions change through their own routes)'),
    ...EchoedAuditFields,
  })
  .meta({ id: 'RecipeUpdateRequest' });

export const RecipeMergePatch = documented(
  z.looseObject({ id: EntityId, lock_version: LockVersion }),
  mergePatchOf(RecipeUpdateRequest, ['id', 'lock_version']).meta({
    id: 'RecipeMergePatch',
    description:
      'RFC 7396 merge patch of RecipeUpdateRequest: id and lock_version are required, every other member optional; null removes an optional member',
  }),
);

export const RecipeVersionCreateRequest = z
  .strictObject({
    code: RecipeCode,
    aliases: RecipeAliases.optional().describe('The aliases of the new version; the latest version’s when omitted'),
  })
  .meta({ id: 'RecipeVersionCreateRequest' });

export const RecipeVersionUpdateRequest = z
  .strictObject({
    lock_version: LockVersion,
    code: RecipeCode,
    aliases: RecipeAliases.optional().describe('The version’s aliases; unchanged when omitted'),
    recipe_id: EntityId.optional().describe('Read-only; when sent, must be the recipe of the path (20-1011)'),
    version_number: EntityId.optional().describe('Read-only; when sent, must be the version of the path'),
    is_locked: z.boolean().optional().describe('Read-only; accepted and ignored'),
    ...EchoedAuditFields,
  })
  .meta({ id: 'RecipeVersionUpdateRequest' });

export const RecipeVersionResponse = z
  .object({
    recipe_id: z.int(),
    version_number: z.int(),
    code: z.string().nullable(),
    aliases: z.array(z.string()),
    is_locked: z.boolean().describe('True while released datasets use the version: it cannot be updated (20-1046)'),
    lock_version: z.int(),
    ...AuditFields,
  })
  .meta({ id: 'RecipeVersion' });

export const RecipeResponse = z
  .object({
    id: z.int(),
    lock_version: z.int(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    tags: z.array(z.string()).nullable(),
    shared: z.boolean(),
    language: z.string().nullable(),
    latest_version: RecipeVersionResponse,
    ...AuditFields,
  })
  .meta({ id: 'Recipe' });

export const RecipeCodeResponse = z
  .object({ code: z.string().describe('SQL of the version') })
  .meta({ id: 'RecipeCode' });

export const RecipeVersionUsage = z
  .object({
    dataset_id: z.int(),
    version_number: z.int().describe('Graph version of the dataset'),
    version_display_name: z.string(),
    release_status: z.boolean().describe('True when that graph version is released'),
    lock_version: z.int(),
    expiration_date: z.iso.datetime().nullable(),
    dataset_name: z.string().nullable(),
    node_id: z.int().describe('The recipe node that uses the version'),
    ...AuditFields,
  })
  .meta({ id: 'RecipeVersionUsage' });

const AliasColumn = z.strictObject({
  name: withoutControls(z.string().min(1).max(255)).describe('Column name as the table has it'),
  type: z
    .string()
    .min(1)
    .max(255)
    .describe(
      'A DuckDB type: VARCHAR, BIGINT, DECIMAL(18,3), TIMESTAMP WITH TIME ZONE, VARCHAR[], STRUCT(a INTEGER)...',
    ),
});

/** Most columns a table of the analyze request may describe; each type is parsed on its own. */
const MAX_ANALYZE_COLUMNS = 500;

export const RecipeAnalyzeRequest = z
  .strictObject({
    language: Language,
    code: RecipeCode,
    aliases: RecipeAliases,
    tables: z
      .record(z.string().max(63), z.array(AliasColumn).min(1).max(MAX_ANALYZE_COLUMNS))
      .optional()
      .describe(
        'The columns of each alias’s table, by alias: every alias, or none. With them, the answer names the output columns and their types',
      ),
  })
  .meta({ id: 'RecipeAnalyzeRequest' });

export const RecipeAnalysis = z
  .object({
    referenced_aliases: z.array(z.string()).describe('The aliases the code reads, as declared'),
    ctes: z.array(z.string()).describe('CTE names, in order of definition'),
    functions: z.array(z.string()).describe('Every function called, lower case, once each'),
    set_operations: z.array(z.string()).describe('UNION, UNION ALL, INTERSECT, EXCEPT... in order of appearance'),
    subqueries: z.int().describe('Subqueries in FROM clauses and expressions'),
    columns: z
      .array(z.object({ name: z.string(), type: z.string().describe('DuckDB type name') }))
      .nullable()
      .describe('The output columns, when the request gave the tables’ columns; null otherwise'),
  })
  .meta({ id: 'RecipeAnalysis' });

/**
 * The recipes list envelope (spec 2.2), used by every list under /recipes. The query is
 * ListQuery: page_size is the limit asked for, page_number the zero-based page the offset
 * falls on (docs/list-query.md).
 */
function recipesEnvelope<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      items: z.array(item),
      total_count: z.int().describe('Records available (matching the filter)'),
      page_size: z.int().describe('The limit asked for'),
      page_number: z.int().describe('Zero-based page: offset ÷ limit, rounded down'),
    })
    .meta({ id });
}

export const RecipeList = recipesEnvelope(RecipeResponse, 'RecipeList');
export const RecipeVersionList = recipesEnvelope(RecipeVersionResponse, 'RecipeVersionList');
export const RecipeVersionUsageList = recipesEnvelope(RecipeVersionUsage, 'RecipeVersionUsageList');

/** What the lists under /recipes can be filtered and sorted by (docs/list-query.md). */
export const RECIPE_VERSION_LIST_FIELDS = {
  version_number: 'integer',
  is_locked: 'boolean',
  created_date: 'datetime',
  last_modified_date: 'datetime',
} as const satisfies ListFieldTypes;

export const RECIPE_USAGE_LIST_FIELDS = {
  dataset_id: 'integer',
  dataset_name: 'string',
  version_number: 'integer',
  release_status: 'boolean',
  node_id: 'integer',
  created_date: 'datetime',
} as const satisfies ListFieldTypes;

export type RecipeCreateRequest = z.output<typeof RecipeCreateRequest>;
export type RecipeUpdateRequest = z.output<typeof RecipeUpdateRequest>;
export type RecipeVersionResponse = z.input<typeof RecipeVersionResponse>;
export type RecipeResponse = z.input<typeof RecipeResponse>;
export type RecipeVersionUsage = z.input<typeof RecipeVersionUsage>;
export type RecipeAnalyzeRequest = z.output<typeof RecipeAnalyzeRequest>;
