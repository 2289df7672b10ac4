import { dataTableStore } from '../data-tables/store';
import type { ColumnSchema } from '../model/columns';
import { NON_ALIAS_KEYWORDS } from '../model/recipe';

/**
 * The caller's data tables as the assistant sees them: each table whose latest version is
 * imported, with that version's columns and an alias, a SQL identifier the assistant's SQL
 * reads the table by (a recipe alias, as creating a recipe from it would declare).
 */
export interface TenantTable {
  readonly data_table_id: number;
  readonly name: string;
  readonly alias: string;
  readonly version_number: number;
  readonly columns: readonly ColumnSchema[];
}

/** A recipe alias made of a table's name: lower case, other characters as `_`, never a keyword. */
function aliasBase(name: string): string {
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 50);
  if (base === '' || /^[0-9]/.test(base) || NON_ALIAS_KEYWORDS.has(base)) return `t_${base}`;
  return base;
}

/** The tenant's imported tables, by id, each with an alias no other has (ignoring case). */
export async function tenantTables(tenantId: string): Promise<TenantTable[]> {
  const entities = await dataTableStore.list(tenantId);
  const taken = new Set<string>();
  const tables: TenantTable[] = [];
  for (const entity of [...entities].sort((a, b) => a.id - b.id)) {
    const latest = entity.mirrors.latest_version;
    if (latest?.execution.status !== 'COMPLETED' || latest.metadata === undefined) continue;
    let alias = aliasBase(entity.data.name);
    if (taken.has(alias)) alias = `${alias}_${entity.id}`;
    taken.add(alias);
    tables.push({
      data_table_id: entity.id,
      name: entity.data.name,
      alias,
      version_number: latest.version_number,
      columns: latest.metadata.columns,
    });
  }
  return tables;
}
