import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALLOWED_FUNCTIONS,
  ALLOWED_TABLE_FUNCTIONS,
  BINDER_FUNCTIONS,
  CLOCK_KEYWORDS,
  NON_DETERMINISTIC_FUNCTIONS,
  WINDOW_ONLY_FUNCTIONS,
} from '../../../shared/engine/recipe-sql-functions';

/**
 * The allow-lists against the pinned DuckDB: no name DuckDB lacks, and every function DuckDB
 * has decided on purpose. After a DuckDB upgrade, a new function fails "classifies every
 * function" until it is added to an allow-list or to REFUSED below.
 */

/** Functions refused (40-50005) on purpose, besides DuckDB's internals (__internal_*) and collations (icu_collate_*, use COLLATE). */
const REFUSED = new Set(
  [
    // The session, the catalog and the settings.
    'current_catalog current_role current_user session_user user current_database current_query current_query_id current_schema current_schemas',
    'current_setting current_connection_id current_transaction_id txid_current in_search_path getvariable version get_block_size nextval currval',
    // PostgreSQL's catalog functions.
    'col_description obj_description shobj_description format_pg_type format_type map_to_pg_oid pg_collation_is_visible pg_conf_load_time',
    'pg_conversion_is_visible pg_function_is_visible pg_get_constraintdef pg_get_expr pg_get_viewdef pg_has_role pg_is_other_temp_schema',
    'pg_my_temp_schema pg_opclass_is_visible pg_operator_is_visible pg_opfamily_is_visible pg_postmaster_start_time pg_size_pretty pg_sleep',
    'pg_table_is_visible pg_ts_config_is_visible pg_ts_dict_is_visible pg_ts_parser_is_visible pg_ts_template_is_visible pg_type_is_visible pg_typeof',
    'has_any_column_privilege has_column_privilege has_database_privilege has_foreign_data_wrapper_privilege has_function_privilege',
    'has_language_privilege has_schema_privilege has_sequence_privilege has_server_privilege has_table_privilege has_tablespace_privilege',
    'inet_client_addr inet_client_port inet_server_addr inet_server_port',
    // SQL text, sleeping, logging.
    'json_serialize_sql json_deserialize_sql json_serialize_plan sleep_ms write_log parse_duckdb_log_message',
    // DuckDB's own machinery.
    'alias stats finalize combine constant_or_null create_sort_key replace_type cast_to_type vector_type can_cast_implicitly make_type get_type',
    'variant_bytes_to_variant variant_to_parquet_variant timetz_byte_comparable sum_no_overflow',
  ]
    .join(' ')
    .split(' '),
);
const isInternal = (name: string) => name.startsWith('__internal_') || name.startsWith('icu_collate_');

let instance: DuckDBInstance;
let connection: DuckDBConnection;
/** Lower-case name → DuckDB's function types (scalar, aggregate, macro, table, table_macro, pragma). */
let duckdbFunctions: Map<string, Set<string>>;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  const rows = (
    await connection.runAndReadAll('SELECT DISTINCT lower(function_name), function_type FROM duckdb_functions()')
  ).getRows();
  duckdbFunctions = new Map();
  for (const [name, type] of rows) {
    const types = duckdbFunctions.get(String(name)) ?? new Set<string>();
    duckdbFunctions.set(String(name), types.add(String(type)));
  }
});
afterAll(() => {
  connection?.closeSync();
  instance?.closeSync();
});

const ofTypes = (...types: string[]) =>
  [...duckdbFunctions].filter(([, kinds]) => types.some((type) => kinds.has(type))).map(([name]) => name);

describe('the function lists', () => {
  it('name only functions DuckDB has, of the right kind', () => {
    const callable = new Set(ofTypes('scalar', 'aggregate', 'macro'));
    const missing = [...ALLOWED_FUNCTIONS, ...NON_DETERMINISTIC_FUNCTIONS, ...WINDOW_ONLY_FUNCTIONS, ...REFUSED].filter(
      (name) => !callable.has(name),
    );
    expect(missing).toEqual([]);
    expect([...ALLOWED_TABLE_FUNCTIONS].filter((name) => !duckdbFunctions.get(name)?.has('table'))).toEqual([]);
  });

  it('lists as binder functions names DuckDB only knows in a select list', async () => {
    for (const name of BINDER_FUNCTIONS) {
      expect(duckdbFunctions.get(name)?.has('scalar') ?? false).toBe(false);
      expect((await connection.runAndReadAll(`SELECT ${name}([1, 2]) AS x`)).getRows()).toEqual([[1], [2]]);
    }
  });

  it('classifies every scalar, aggregate and macro function of DuckDB', () => {
    const undecided = ofTypes('scalar', 'aggregate', 'macro').filter(
      (name) =>
        !ALLOWED_FUNCTIONS.has(name) &&
        !NON_DETERMINISTIC_FUNCTIONS.has(name) &&
        !REFUSED.has(name) &&
        !isInternal(name),
    );
    expect(undecided).toEqual([]);
  });

  it('never both allows and refuses a function', () => {
    const allowed = [...ALLOWED_FUNCTIONS, ...BINDER_FUNCTIONS];
    const both = allowed.filter(
      (name) => NON_DETERMINISTIC_FUNCTIONS.has(name) || REFUSED.has(name) || isInternal(name),
    );
    expect(both).toEqual([]);
  });

  it('allows no table function that reads outside the query', () => {
    expect([...ALLOWED_TABLE_FUNCTIONS].sort()).toEqual([
      'generate_series',
      'json_each',
      'json_tree',
      'range',
      'unnest',
    ]);
  });

  it('lists as window-only exactly the functions DuckDB only has with OVER', async () => {
    const windowOnly: string[] = [];
    for (const name of ofTypes('aggregate')) {
      const failure = await connection.run(`SELECT "${name}"(x) FROM (SELECT 1 AS x)`).then(
        () => '',
        (error: Error) => error.message,
      );
      if (/Scalar Function with name .* does not exist/.test(failure)) windowOnly.push(name);
    }
    expect(windowOnly.sort()).toEqual([...WINDOW_ONLY_FUNCTIONS].sort());
  });

  it('lists as clock keywords the names DuckDB answers without a FROM clause with the time', async () => {
    const types: unknown[] = [];
    for (const keyword of CLOCK_KEYWORDS)
      types.push((await connection.runAndReadAll(`SELECT typeof(${keyword})`)).getRows()[0]?.[0]);
    expect(types.every((type) => typeof type === 'string' && /^(DATE|TIME|TIMESTAMP)/.test(type))).toBe(true);
  });
});
