import { quotedString } from '@duckdb/node-api';
import { dataTableStore } from '../data-tables/store';
import { withSandboxedDuckDb } from '../engine/duckdb';
import { shortCause } from '../engine/engine-errors';
import { CHECKED_TABLE } from '../engine/quality-check';
import { analyseRecipeSql } from '../engine/recipe-sql';
import { isAppError, validationError } from '../errors/app-error';
import {
  KIND_FIELD_NAMES,
  QualityRuleDefinition,
  type QualityRuleCreateRequest,
  type QualityRuleUpdateRequest,
} from '../model/quality-rule';
import type { QualityRuleData } from './store';

/**
 * What a rule's create and update check before it is stored (docs/data-quality.md): the data
 * table exists (10-404), a custom assertion passes the recipe SQL analyzer over the one table
 * CurrentTable (40-*, so it cannot read a file, load an extension or reach another tenant's
 * data), and a pattern is one DuckDB's RE2 reads (10-1400 naming `pattern`). Column names are
 * not checked here: a table's columns are its versions', which may change; a version that
 * lacks one fails the rule with 20-1031.
 */
export async function qualityRuleData(
  tenantId: string,
  request: QualityRuleCreateRequest | QualityRuleUpdateRequest,
): Promise<QualityRuleData> {
  await dataTableStore.get(tenantId, request.data_table_id);
  const fields = request as unknown as Readonly<Record<string, unknown>>;
  const rule = QualityRuleDefinition.parse(
    Object.fromEntries([
      ['kind', request.kind],
      ...KIND_FIELD_NAMES[request.kind]
        .filter((name) => fields[name] !== undefined)
        .map((name) => [name, fields[name]]),
    ]),
  );
  if (rule.kind === 'custom_sql') await analyseRecipeSql(rule.sql, [CHECKED_TABLE]);
  if (rule.kind === 'pattern') await checkPattern(rule.pattern);
  return {
    name: request.name,
    description: request.description ?? null,
    tags: request.tags ?? null,
    data_table_id: request.data_table_id,
    severity: request.severity,
    rule,
  };
}

/** 10-1400 naming `pattern` unless DuckDB's regular expressions (RE2) read it. */
async function checkPattern(pattern: string): Promise<void> {
  try {
    await withSandboxedDuckDb({}, (connection) =>
      connection.run(`SELECT regexp_full_match('', ${quotedString(pattern)})`),
    );
  } catch (error) {
    if (isAppError(error)) throw error;
    const why = shortCause(error instanceof Error ? error.message : String(error));
    throw validationError({ pattern: `must be an RE2 regular expression (${why})` });
  }
}
