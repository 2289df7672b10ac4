/**
 * Route selection as API Gateway HTTP APIs do it: among the routes of the request's method,
 * the most specific match wins whatever the declaration order. Templates are compared
 * segment by segment: a literal segment beats a {parameter}, which beats a greedy {name+}
 * (only allowed last). So `/recipes/analyze` and `/recipes/{recipe_id}` can coexist.
 *
 * Path parameters are percent-decoded as API Gateway does before it invokes the function. A
 * value that is not valid percent-encoded UTF-8 is reported instead of thrown, so the twin
 * can refuse it with a problem body naming the parameter.
 */

type Segment =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'parameter' | 'greedy'; readonly name: string };

/** Rank of a segment kind: lower is more specific. */
const RANK: Record<Segment['kind'], number> = { literal: 0, parameter: 1, greedy: 2 };

export interface RouteTemplate {
  readonly method: string;
  /** Full path template, API Gateway syntax: `/a/{id}/b`, `/files/{proxy+}`. */
  readonly path: string;
}

export type RouteMatch<T extends RouteTemplate> =
  | { readonly kind: 'matched'; readonly route: T; readonly params: Readonly<Record<string, string>> }
  /** The route matched, but these parameters are not valid percent-encoded UTF-8. */
  | { readonly kind: 'badEncoding'; readonly route: T; readonly parameters: readonly string[] };

function parseTemplate(path: string): Segment[] {
  const segments = path.split('/').slice(1);
  return segments.map((segment, index) => {
    const parameter = /^\{([a-z_][a-z0-9_]*)(\+?)\}$/i.exec(segment);
    if (!parameter) return { kind: 'literal', text: segment };
    if (parameter[2] === '+' && index !== segments.length - 1)
      throw new Error(`greedy path variable not at the end of ${path}`);
    return { kind: parameter[2] === '+' ? 'greedy' : 'parameter', name: parameter[1]! };
  });
}

/** Strict percent-decoding; undefined when the text is not valid percent-encoded UTF-8. */
export function decodeStrict(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Negative when `a` is more specific than `b`: the first differing segment kind decides. */
function compareSpecificity(a: readonly Segment[], b: readonly Segment[]): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const order = RANK[a[index]!.kind] - RANK[b[index]!.kind];
    if (order !== 0) return order;
  }
  // Same kinds on the common part: the longer template fixes more segments.
  return b.length - a.length;
}

/** Raw (still encoded) parameter values when `segments` fit the request's raw segments. */
function fit(template: readonly Segment[], segments: readonly string[]): Map<string, string> | undefined {
  const raw = new Map<string, string>();
  for (const [index, segment] of template.entries()) {
    if (segment.kind === 'greedy') {
      const rest = segments.slice(index);
      if (rest.length === 0 || rest.every((part) => part === '')) return undefined;
      raw.set(segment.name, rest.join('/'));
      return raw;
    }
    const value = segments[index];
    if (value === undefined) return undefined;
    if (segment.kind === 'literal') {
      // Only a segment with an escape can decode to other text: the others are compared as they are (a request is matched against every route).
      if (value !== segment.text && (!value.includes('%') || decodeStrict(value) !== segment.text)) return undefined;
    } else {
      if (value === '') return undefined;
      raw.set(segment.name, value);
    }
  }
  return template.length === segments.length ? raw : undefined;
}

/**
 * A matcher over `routes`. Ties between equally specific templates (which API Gateway
 * would refuse to deploy) fall back to declaration order.
 */
export function routeMatcher<T extends RouteTemplate>(
  routes: readonly T[],
): (method: string, rawPath: string) => RouteMatch<T> | undefined {
  const compiled = routes
    .map((route, order) => ({ route, order, template: parseTemplate(route.path) }))
    .sort((a, b) => compareSpecificity(a.template, b.template) || a.order - b.order);
  return (method, rawPath) => {
    const segments = rawPath.split('/').slice(1);
    for (const { route, template } of compiled) {
      if (route.method !== method) continue;
      const raw = fit(template, segments);
      if (!raw) continue;
      const params: Record<string, string> = {};
      const invalid: string[] = [];
      for (const [name, value] of raw) {
        const decoded = decodeStrict(value);
        if (decoded === undefined) invalid.push(name);
        else params[name] = decoded;
      }
      return invalid.length > 0
        ? { kind: 'badEncoding', route, parameters: invalid }
        : { kind: 'matched', route, params };
    }
    return undefined;
  };
}
