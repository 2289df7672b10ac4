/**
 * The systematic part of the contract corpus: from one valid value of a request part (a path
 * parameter, a query parameter, a body), the values that probe its edges — wrong types,
 * bounds, blank and padded text, unknown members, removed members, null. Which of them the
 * service should refuse is not written here: the contract test asks the document.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One variation: a label for the report and the changed value (undefined removes a member). */
export interface Variation<T> {
  readonly label: string;
  readonly value: T;
}

/** Spellings of an integer in a path or query: canonical ones at the bounds, and the odd ones a client might send. */
export const INTEGER_TEXTS: readonly string[] = [
  '-1',
  '-0',
  '0',
  '1',
  '0001',
  '00000000000000001',
  '1000',
  '1001',
  '100000',
  '9007199254740991',
  '9007199254740992',
  '99999999999999999999',
  '1.5',
  '1.0',
  '1e3',
  '+1',
  ' 1',
  '0x1',
  'abc',
  '',
];

/** Lengths just over the bounds the models use (tags 128, names 255, keys 1024, descriptions 4000); "blank then 255" is one at a bound. */
const LENGTHS = [129, 256, 1025, 4001];

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Values of other JSON types than `value`'s. */
function otherTypes(value: JsonValue): Variation<JsonValue>[] {
  const all: Variation<JsonValue>[] = [
    { label: 'null', value: null },
    { label: 'true', value: true },
    { label: '0', value: 0 },
    { label: '"x"', value: 'x' },
    { label: '[]', value: [] },
    { label: '{}', value: {} },
  ];
  const type = (candidate: JsonValue) =>
    candidate === null ? 'null' : Array.isArray(candidate) ? 'array' : typeof candidate;
  return all.filter((variation) => type(variation.value) !== type(value));
}

function stringEdges(value: string): Variation<JsonValue>[] {
  return [
    { label: 'empty', value: '' },
    { label: 'blank', value: '   ' },
    { label: 'padded', value: ` ${value} ` },
    { label: 'tab-padded', value: `\t${value}\n` },
    { label: 'NUL inside', value: `${value}\u0000` },
    { label: 'unicode', value: `${value}é` },
    { label: 'another word', value: 'other' },
    ...LENGTHS.map((length) => ({ label: `${length} characters`, value: 'x'.repeat(length) })),
    { label: 'blank then 255', value: `  ${'y'.repeat(255)}  ` },
    { label: '"1"', value: '1' },
  ];
}

function numberEdges(): Variation<JsonValue>[] {
  return [-1, 0, 1, 2, 1.5, 1000, 1001, 2 ** 53 - 1, 2 ** 53, 1e300].map((number) => ({
    label: String(number),
    value: number,
  }));
}

function arrayEdges(value: JsonValue[]): Variation<JsonValue>[] {
  const first = value[0];
  return [
    { label: 'empty', value: [] },
    ...(first === undefined ? [] : [{ label: 'repeated item', value: [first, first] }]),
    {
      label: '51 items',
      value: Array.from({ length: 51 }, (_, index) => (typeof first === 'number' ? index + 1 : `item-${index}`)),
    },
    { label: 'number items', value: [1, 2] },
    { label: 'text items', value: ['a', 'b'] },
    { label: 'case variants', value: ['a', 'A'] },
  ];
}

/** Edge values of one member, by the type of its valid value. */
function edgesOf(value: JsonValue): Variation<JsonValue>[] {
  const typed =
    typeof value === 'string'
      ? stringEdges(value)
      : typeof value === 'number'
        ? numberEdges()
        : Array.isArray(value)
          ? arrayEdges(value)
          : [];
  return [...otherTypes(value), ...typed];
}

function replaced(
  root: JsonValue,
  path: readonly (string | number)[],
  change: (current: JsonValue) => JsonValue | undefined,
): JsonValue {
  if (path.length === 0) return change(root) ?? null;
  const [head, ...rest] = path;
  if (Array.isArray(root) && typeof head === 'number') {
    const copy = [...root];
    const next = replaced(copy[head]!, rest, change);
    copy[head] = next;
    return copy;
  }
  if (isObject(root) && typeof head === 'string') {
    const copy: { [key: string]: JsonValue } = { ...root };
    if (rest.length === 0) {
      const next = change(copy[head]!);
      if (next === undefined) delete copy[head];
      else copy[head] = next;
    } else {
      copy[head] = replaced(copy[head]!, rest, change);
    }
    return copy;
  }
  return root;
}

/** Member paths of a body: every member of every object, and the first item of arrays. */
function memberPaths(value: JsonValue, path: (string | number)[] = []): (string | number)[][] {
  if (isObject(value))
    return Object.entries(value).flatMap(([key, inner]) => [[...path, key], ...memberPaths(inner, [...path, key])]);
  if (Array.isArray(value) && value.length > 0) return [[...path, 0], ...memberPaths(value[0]!, [...path, 0])];
  return [];
}

const label = (path: readonly (string | number)[]) =>
  path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('') || '(body)';

/** Bodies derived from a valid one: each member changed to its edge values or removed, unknown members, other whole bodies. */
export function bodyVariations(
  body: JsonValue,
  extra: Readonly<Record<string, readonly JsonValue[]>> = {},
): Variation<JsonValue>[] {
  const variations: Variation<JsonValue>[] = [];
  for (const path of memberPaths(body)) {
    const at = label(path);
    const current = path.reduce<JsonValue | undefined>(
      (node, part) => (node === undefined ? undefined : (node as Record<string | number, JsonValue>)[part]),
      body,
    )!;
    for (const edge of edgesOf(current))
      variations.push({ label: `${at} = ${edge.label}`, value: replaced(body, path, () => edge.value) });
    for (const value of extra[String(path[path.length - 1])] ?? [])
      variations.push({ label: `${at} = ${JSON.stringify(value)}`, value: replaced(body, path, () => value) });
    if (typeof path[path.length - 1] === 'string')
      variations.push({ label: `${at} removed`, value: replaced(body, path, () => undefined) });
  }
  const objects = [
    [],
    ...memberPaths(body).filter((path) =>
      isObject(path.reduce<JsonValue>((node, part) => (node as Record<string | number, JsonValue>)[part]!, body)),
    ),
  ];
  for (const path of objects) {
    for (const [member, value] of [
      ['unknown_member', 1],
      ['unknown_member', null],
      ['__proto__', 1],
    ] as const) {
      variations.push({
        label: `${label(path)}.${member} = ${JSON.stringify(value)}`,
        value: replaced(body, path, (current) => ({ ...(current as object), [member]: value })),
      });
    }
  }
  for (const whole of [null, [], 'text', 0, {}] as const)
    variations.push({ label: `whole body ${JSON.stringify(whole)}`, value: whole });
  return variations;
}
