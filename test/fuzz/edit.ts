/**
 * Editing JSON values the way the fuzzer spoils them: every place in a value, a copy with
 * one place replaced or one member added (own members only, "__proto__" included), and
 * percent-encoding that any client would produce.
 */

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Percent-encodes UTF-8 bytes; lone surrogates become U+FFFD as any client would send them. */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Every place in a JSON value (the root, members, elements), in a fixed order. */
export function slots(value: unknown, path: readonly (string | number)[] = []): (readonly (string | number)[])[] {
  const found: (readonly (string | number)[])[] = [path];
  if (Array.isArray(value)) value.forEach((item, index) => found.push(...slots(item, [...path, index])));
  else if (isObject(value)) for (const [key, item] of Object.entries(value)) found.push(...slots(item, [...path, key]));
  return found;
}

/** A copy of `value` with the slot at `path` given to `replace` (own enumerable members only, "__proto__" included). */
export function updateAt(
  value: unknown,
  path: readonly (string | number)[],
  replace: (current: unknown) => unknown,
): unknown {
  if (path.length === 0) return replace(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, index) => (index === head ? updateAt(item, rest, replace) : item));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    Object.defineProperty(copy, key, {
      value: key === head ? updateAt(item, rest, replace) : item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

export function withMember(value: unknown, key: string, member: unknown): unknown {
  if (!isObject(value)) return value;
  const copy = { ...value };
  Object.defineProperty(copy, key, { value: member, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** The value at `path` inside `value`. */
export function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>(
    (node, step) => (isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[step] : undefined),
    value,
  );
}

/** Every member name declared anywhere in the document's schemas (walked without recursion). */
export function declaredFieldNames(document: unknown): string[] {
  const names = new Set<string>();
  const pending: unknown[] = [document];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...node);
    else if (isObject(node)) {
      if (isObject(node.properties)) for (const name of Object.keys(node.properties)) names.add(name);
      pending.push(...Object.values(node));
    }
  }
  return [...names].sort();
}
