import type { z } from 'zod';

/**
 * Turns zod issues into the 10-1400 extraDetails map: wire field path → violated rule.
 * Rules describe what is expected and never repeat the value sent (it may be a secret).
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], prefix = ''): Record<string, string> {
  // No prototype: a field named "__proto__" must be reported like any other.
  const fields = Object.create(null) as Record<string, string>;
  const add = (path: string, rule: string): void => {
    const key = path === '' ? prefix || 'body' : prefix ? `${prefix}.${path}` : path;
    fields[key] = fields[key] && fields[key] !== rule ? `${fields[key]}; ${rule}` : rule;
  };
  for (const issue of issues) {
    const path = fieldPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(fieldPath([...issue.path, key]), 'is not a known field');
    } else {
      add(path, rule(issue));
    }
  }
  return fields;
}

export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    return text === '' ? String(segment) : `${text}.${String(segment)}`;
  }, '');
}

const NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  date: 'a date',
};

function bound(
  issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall,
  limit: number | bigint,
  above: boolean,
): string {
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      if (!above && Number(limit) === 1) return 'must not be empty';
      return `must be ${above ? 'at most' : 'at least'} ${limit} characters long`;
    case 'array':
    case 'set':
      if (!above && Number(limit) === 1) return 'must have at least one item';
      return `must have ${above ? 'at most' : 'at least'} ${limit} items`;
    default:
      return `must be ${above ? (inclusive ? '≤' : '<') : inclusive ? '≥' : '>'} ${limit}`;
  }
}

function rule(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${NOUNS[issue.expected] ?? issue.expected}`;
    case 'too_small':
      return bound(issue, issue.minimum, false);
    case 'too_big':
      return bound(issue, issue.maximum, true);
    case 'invalid_format':
      switch (issue.format) {
        case 'email':
          return 'must be an e-mail address';
        case 'datetime':
          return 'must be an ISO 8601 date-time';
        case 'regex':
          return issue.message && !issue.message.startsWith('Invalid')
            ? issue.message
            : `must match ${issue.pattern ?? 'the expected format'}`;
        default:
          return `must be a valid ${issue.format}`;
      }
    case 'invalid_value': {
      const expected =
        issue.values.length === 1
          ? `must be ${JSON.stringify(issue.values[0])}`
          : `must be one of: ${issue.values.join(', ')}`;
      return issue.input === undefined ? `is required; ${expected}` : expected;
    }
    case 'invalid_union': {
      const { options, discriminator } = issue as { options?: unknown[]; discriminator?: string };
      if (Array.isArray(options) && options.length > 0) {
        // The issue sits on the discriminator's path but carries the object that lacks it.
        const input = issue.input;
        const missing =
          input === undefined ||
          (typeof input === 'object' && input !== null && discriminator !== undefined && !(discriminator in input));
        return `${missing ? 'is required; ' : ''}must be one of: ${options.join(', ')}`;
      }
      return 'does not match any of the allowed shapes';
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'invalid_key':
      return 'has an invalid key';
    case 'invalid_element':
      return 'has an invalid element';
    case 'custom':
      return issue.message;
    default:
      return 'is invalid';
  }
}
