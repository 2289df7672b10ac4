/**
 * The jobs that send OpenLineage run events (docs/lineage.md): imports, recipe runs, exports
 * and transfers, by their declared names. Other jobs (schema analyses, app installs) send none.
 * Names, not the declarations: the status write that ends any job reads this set, and the
 * declarations import that write (test/unit/openlineage/job-kinds.test.ts holds the names to
 * the declarations').
 */
export const LINEAGE_JOB_KINDS: ReadonlySet<string> = new Set([
  'import',
  'recipe-run',
  'export',
  'direct-export',
  'multi-part-export',
  'transfer',
]);
