/**
 * The one place that writes DynamoDB expression strings. Stores describe conditions and
 * changes as values (`is.equal('lock_version', 3)`, `{ set: { code } }`); the layer renders
 * them with placeholders for every attribute name and value, so no store spells an
 * expression, worries about reserved words (`status`, `data`) or numbers its placeholders.
 *
 * Paths are attribute names joined by dots (`execution.status`): each segment is one map key.
 */

/** Collects the placeholders of one request: names are shared by every use, values are not. */
export class Placeholders {
  private readonly names = new Map<string, string>();
  private readonly values: Record<string, unknown> = {};
  private valueCount = 0;

  /** The placeholder path of `path`, one `#n` per segment. */
  path(path: string): string {
    return path
      .split('.')
      .map((segment) => {
        let placeholder = this.names.get(segment);
        if (placeholder === undefined) {
          placeholder = `#n${this.names.size}`;
          this.names.set(segment, placeholder);
        }
        return placeholder;
      })
      .join('.');
  }

  value(value: unknown): string {
    const placeholder = `:v${this.valueCount}`;
    this.valueCount += 1;
    this.values[placeholder] = value;
    return placeholder;
  }

  /** The attribute maps of the request; DynamoDB refuses empty ones, so those are left out. */
  attributes(): {
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  } {
    return {
      ...(this.names.size > 0
        ? { ExpressionAttributeNames: Object.fromEntries([...this.names].map(([name, key]) => [key, name])) }
        : {}),
      ...(this.valueCount > 0 ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}

/** A condition on an item (or a filter), rendered when its request is built. */
export type Condition = (placeholders: Placeholders) => string;

const compare =
  (operator: string) =>
  (path: string, value: unknown): Condition =>
  (p) =>
    `${p.path(path)} ${operator} ${p.value(value)}`;

/** Conditions on one attribute. */
export const is = {
  present:
    (path: string): Condition =>
    (p) =>
      `attribute_exists(${p.path(path)})`,
  absent:
    (path: string): Condition =>
    (p) =>
      `attribute_not_exists(${p.path(path)})`,
  equal: compare('='),
  notEqual: compare('<>'),
  less: compare('<'),
  greater: compare('>'),
  atLeast: compare('>='),
  oneOf:
    (path: string, values: readonly unknown[]): Condition =>
    (p) =>
      `${p.path(path)} IN (${values.map((value) => p.value(value)).join(', ')})`,
  /** A list or set attribute holds `value`. */
  containing:
    (path: string, value: unknown): Condition =>
    (p) =>
      `contains(${p.path(path)}, ${p.value(value)})`,
  /** A counter holds `expected`; an absent counter counts as zero. */
  count: (path: string, expected: number): Condition =>
    expected === 0 ? anyOf(is.absent(path), is.equal(path, 0)) : is.equal(path, expected),
};

/** Every one of the conditions holds. */
export const allOf =
  (...conditions: readonly Condition[]): Condition =>
  (p) =>
    conditions.map((condition) => condition(p)).join(' AND ');

/** At least one of the conditions holds (parenthesised: AND binds tighter than OR). */
export const anyOf =
  (...conditions: readonly Condition[]): Condition =>
  (p) =>
    `(${conditions.map((condition) => condition(p)).join(' OR ')})`;

export const not =
  (condition: Condition): Condition =>
  (p) =>
    `NOT (${condition(p)})`;

/** What an update does to an item, by path. */
export interface Changes {
  readonly set?: Readonly<Record<string, unknown>>;
  /** Set only where the attribute is absent (`if_not_exists`). */
  readonly setIfAbsent?: Readonly<Record<string, unknown>>;
  /** `path = path + amount`: the attribute must exist. */
  readonly increment?: Readonly<Record<string, number>>;
  /** ADD: a number added (absent is zero), or elements added to a string set. */
  readonly add?: Readonly<Record<string, number | ReadonlySet<string>>>;
  /** DELETE: elements taken out of a string set. */
  readonly delete?: Readonly<Record<string, ReadonlySet<string>>>;
  readonly remove?: readonly string[];
}

function updateExpression(changes: Changes, p: Placeholders): string {
  const sets = [
    ...Object.entries(changes.set ?? {}).map(([path, value]) => `${p.path(path)} = ${p.value(value)}`),
    ...Object.entries(changes.setIfAbsent ?? {}).map(
      ([path, value]) => `${p.path(path)} = if_not_exists(${p.path(path)}, ${p.value(value)})`,
    ),
    ...Object.entries(changes.increment ?? {}).map(
      ([path, amount]) => `${p.path(path)} = ${p.path(path)} + ${p.value(amount)}`,
    ),
  ];
  const clause = (keyword: string, parts: readonly string[]) =>
    parts.length > 0 ? [`${keyword} ${parts.join(', ')}`] : [];
  const pairs = (entries: Readonly<Record<string, unknown>> = {}) =>
    Object.entries(entries).map(([path, value]) => `${p.path(path)} ${p.value(value)}`);
  const expression = [
    ...clause('SET', sets),
    ...clause(
      'REMOVE',
      (changes.remove ?? []).map((path) => p.path(path)),
    ),
    ...clause('ADD', pairs(changes.add)),
    ...clause('DELETE', pairs(changes.delete)),
  ].join(' ');
  if (expression === '') throw new Error('an update must change something');
  return expression;
}

/** The expression members of a request: the parts given, with their placeholders. */
export interface Expressions {
  UpdateExpression?: string;
  ConditionExpression?: string;
  KeyConditionExpression?: string;
  FilterExpression?: string;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** Renders the parts of one request; they share its placeholders. */
export function expressionsOf(parts: {
  readonly changes?: Changes;
  readonly condition?: Condition;
  readonly keyCondition?: Condition;
  readonly filter?: Condition;
  readonly projection?: readonly string[];
}): Expressions {
  const p = new Placeholders();
  return {
    ...(parts.changes ? { UpdateExpression: updateExpression(parts.changes, p) } : {}),
    ...(parts.condition ? { ConditionExpression: parts.condition(p) } : {}),
    ...(parts.keyCondition ? { KeyConditionExpression: parts.keyCondition(p) } : {}),
    ...(parts.filter ? { FilterExpression: parts.filter(p) } : {}),
    ...(parts.projection ? { ProjectionExpression: parts.projection.map((path) => p.path(path)).join(', ') } : {}),
    ...p.attributes(),
  };
}

/** The expressions of an update: its changes, and its condition when given. */
export function updateExpressionsOf(
  changes: Changes,
  condition?: Condition,
): Expressions & { UpdateExpression: string } {
  const p = new Placeholders();
  const UpdateExpression = updateExpression(changes, p);
  return { UpdateExpression, ...(condition ? { ConditionExpression: condition(p) } : {}), ...p.attributes() };
}

/** The expressions of a condition alone (a transaction's check). */
export function conditionExpressionsOf(condition: Condition): Expressions & { ConditionExpression: string } {
  const p = new Placeholders();
  return { ConditionExpression: condition(p), ...p.attributes() };
}

/** The key condition of a Query: the partition, and the sort keys that begin with `prefix` when given. */
export function partitionCondition(pk: string, prefix?: string): Condition {
  return (p) =>
    `${p.path('pk')} = ${p.value(pk)}${prefix === undefined ? '' : ` AND begins_with(${p.path('sk')}, ${p.value(prefix)})`}`;
}
