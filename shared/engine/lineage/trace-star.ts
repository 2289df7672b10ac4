import { expressionReads, type ExpressionContext } from './trace-expression';
import {
  asList,
  isObject,
  lower,
  text,
  type JsonObject,
  type Relation,
  type Scope,
  type TracedColumn,
} from './trace-scope';

/**
 * `*`, `t.*`, `* EXCLUDE (...)`, `* REPLACE (... AS c)`: the columns of the scope's FROM
 * items in order, a USING join's columns once. Over a FROM item whose columns are not known
 * the list is open: the tracer says so rather than guess how many columns there are.
 */
export function expandStar(
  star: JsonObject,
  scope: Scope,
  context: ExpressionContext,
): { readonly columns: TracedColumn[]; readonly open?: Relation['open'] } {
  if (star.columns === true)
    return { columns: [], open: { reason: 'COLUMNS(...), which DuckDB expands when it binds' } };
  const relationName = lower(text(star.relation_name));
  const excluded = new Set(asList(star.exclude_list).map((name) => lower(text(name))));
  const qualifiedExcluded = new Set(
    asList(star.qualified_exclude_list).flatMap((item) =>
      isObject(item) ? [`${lower(text(item.table))}.${lower(text(item.column))}`] : [],
    ),
  );
  const replaced = new Map<string, TracedColumn>();
  for (const item of asList(star.replace_list)) {
    if (!isObject(item)) continue;
    const name = text(item.key);
    const reads = expressionReads(item.value ?? null, 'copied', context);
    const dependencies = reads.dependencies.list();
    replaced.set(
      lower(name),
      reads.unknown.length > 0 ? { name, dependencies, unknown: reads.unknown.join('; ') } : { name, dependencies },
    );
  }
  const entries = scope.entries.filter(
    (entry) => !entry.hidden && (relationName === '' || entry.name === relationName),
  );
  const columns: TracedColumn[] = [];
  const shownMerged = new Set<string>();
  for (const entry of entries) {
    for (const column of entry.relation.columns) {
      if (column.name === null) {
        columns.push(column);
        continue;
      }
      const key = lower(column.name);
      if (excluded.has(key) || (entry.name !== null && qualifiedExcluded.has(`${entry.name}.${key}`))) continue;
      const merged = relationName === '' ? scope.merged.get(key) : undefined;
      if (merged) {
        if (!shownMerged.has(key)) columns.push(replaced.get(key) ?? merged);
        shownMerged.add(key);
        continue;
      }
      columns.push(replaced.get(key) ?? column);
    }
  }
  const open = entries.filter((entry) => entry.relation.open);
  if (open.length === 0) return { columns };
  const first = open[0]!.relation.open!;
  // One FROM item that stands for one input: names read from the result are still that input's.
  if (entries.length === 1 && first.input !== undefined) return { columns, open: first };
  return { columns, open: { reason: open.map((entry) => entry.relation.open!.reason).join('; ') } };
}
