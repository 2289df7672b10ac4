/**
 * The vocabulary of column lineage (docs/lineage.md): which input column a value depends on,
 * and how. The kinds follow OpenLineage's column-lineage transformations, so an event's
 * column-lineage facet says what the routes say: copied, transformed and aggregated are its
 * DIRECT IDENTITY, TRANSFORMATION and AGGREGATION; the others its INDIRECT subtypes.
 */

/** How a value depends on an input column. */
export const HOWS = [
  'copied',
  'transformed',
  'aggregated',
  'window',
  'conditional',
  'filter',
  'join',
  'group_by',
  'sort',
] as const;
export type How = (typeof HOWS)[number];

/** The kinds that carry the input's value into the output (OpenLineage DIRECT). */
const DIRECT_RANK: Partial<Record<How, number>> = { copied: 0, transformed: 1, aggregated: 2 };

export const isDirect = (how: How): boolean => DIRECT_RANK[how] !== undefined;

/** One dependency: a column of one of the recipe's inputs (an alias, as the recipe declares it). */
export interface Dependency {
  readonly input: string;
  readonly column: string;
  readonly how: How;
}

/**
 * A dependency seen through an outer use: an indirect dependency stays what it was (a filter
 * under an aggregate is still a filter); an outer indirect use makes everything under it that
 * use; two direct kinds give the stronger (copied < transformed < aggregated).
 */
export function compose(outer: How, inner: How): How {
  const innerRank = DIRECT_RANK[inner];
  const outerRank = DIRECT_RANK[outer];
  if (innerRank === undefined) return inner;
  if (outerRank === undefined) return outer;
  return innerRank >= outerRank ? inner : outer;
}

/** Dependencies without duplicates, in the order first seen. */
export class DependencySet {
  private readonly byKey = new Map<string, Dependency>();

  add(dependency: Dependency): void {
    const key = `${dependency.input}\u0000${dependency.column.toLowerCase()}\u0000${dependency.how}`;
    if (!this.byKey.has(key)) this.byKey.set(key, dependency);
  }

  /** Each of `dependencies` as seen through `outer` (compose). */
  addAll(dependencies: Iterable<Dependency>, outer?: How): void {
    for (const dependency of dependencies)
      this.add(outer === undefined ? dependency : { ...dependency, how: compose(outer, dependency.how) });
  }

  get size(): number {
    return this.byKey.size;
  }

  list(): Dependency[] {
    return [...this.byKey.values()];
  }
}
