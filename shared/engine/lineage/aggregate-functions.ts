import { WINDOW_ONLY_FUNCTIONS } from '../recipe-sql-functions';

/**
 * DuckDB's aggregate functions (duckdb_functions() of the pinned DuckDB, function_type
 * 'aggregate'), written out so that the tracer needs no engine: a value computed by one of
 * them is `aggregated` from its arguments. test/unit/lineage/aggregates.test.ts holds the list
 * against the engine, so a DuckDB upgrade that adds one fails there rather than tracing it as
 * a plain transformation.
 */
export const AGGREGATE_FUNCTIONS: ReadonlySet<string> = new Set(
  `
  any_value approx_count_distinct approx_quantile approx_top_k arbitrary arg_max arg_max_null
  arg_max_nulls_last arg_min arg_min_null arg_min_nulls_last argmax argmin array_agg avg bit_and
  bit_or bit_xor bitstring_agg bool_and bool_or corr count count_if count_star countif covar_pop
  covar_samp cume_dist dense_rank entropy favg fill first first_value fsum group_concat histogram
  histogram_exact kahan_sum kurtosis kurtosis_pop lag last last_value lead list listagg mad max
  max_by mean median min min_by mode nth_value ntile percent_rank product quantile quantile_cont
  quantile_disc rank rank_dense regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope
  regr_sxx regr_sxy regr_syy reservoir_quantile row_number sem skewness stddev stddev_pop stddev_samp
  string_agg sum sum_no_overflow sumkahan var_pop var_samp variance
`
    .trim()
    .split(/\s+/),
);

/** An aggregate over its arguments' values (sum, max, list...), not a window-only function (rank, lag...). */
export const aggregatesValues = (name: string): boolean =>
  AGGREGATE_FUNCTIONS.has(name) && !WINDOW_ONLY_FUNCTIONS.has(name);

/**
 * Trino's aggregate functions (https://trino.io/docs/current/functions/aggregate.html, with
 * listagg and the geospatial, HyperLogLog, quantile-digest, T-Digest and set-digest ones):
 * what a trino-sql recipe's value is `aggregated` by. Its window-only functions (lag,
 * first_value, rank...) are not aggregates: a value they take is transformed, as in DuckDB.
 */
export const TRINO_AGGREGATE_FUNCTIONS: ReadonlySet<string> = new Set(
  `
  any_value approx_distinct approx_most_frequent approx_percentile approx_set arbitrary array_agg
  avg bitwise_and_agg bitwise_or_agg bitwise_xor_agg bool_and bool_or checksum convex_hull_agg corr
  count count_if covar_pop covar_samp every geometric_mean geometry_union_agg histogram
  khyperloglog_agg kurtosis listagg make_set_digest map_agg map_union max max_by merge
  merge_set_digest min min_by multimap_agg numeric_histogram qdigest_agg reduce_agg regr_intercept
  regr_slope skewness stddev stddev_pop stddev_samp sum tdigest_agg var_pop var_samp variance
`
    .trim()
    .split(/\s+/),
);
