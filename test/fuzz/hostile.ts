/**
 * Hostile input the fuzzer puts in place of well-formed values: nasty strings, wrong types,
 * extreme numbers, malformed JSON and percent-encoding, odd media types and forged tokens.
 * None of it spells an exception class; the one string that spells a path (file:///etc/passwd)
 * is discounted where an answer echoes it (check.ts), so finding one in an answer otherwise
 * means the service leaked it.
 */
import fc from 'fast-check';

/** Strings that have broken services before. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83dy',
  '\u202egnp.exe',
  '\u200b\u200d\ufeff',
  '\u0301\u0301\u0301',
  'ﬀ İ ß ǅ',
  '👩‍👩‍👧‍👦',
  '\r\nSet-Cookie: a=b',
  '\t\n\v\f\r',
  "' OR '1'='1",
  "'; DROP TABLE items; --",
  '" OR ""="',
  '1) UNION SELECT * FROM clients --',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2f',
  'demo/../../other-bucket/',
  's3://bucket/../../x',
  'file:///etc/passwd',
  'http://169.254.169.254/latest/meta-data/',
  'https://[::ffff:127.0.0.1]/',
  'https://0x7f.1/',
  'gopher://localhost:11211/_stats',
  '${jndi:ldap://example.com/a}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '%s%s%n%x',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  'true',
  '[object Object]',
  '٣',
  '１',
  'a'.repeat(5_000),
  '\u0000'.repeat(300),
  '\ud800'.repeat(300),
  'é'.repeat(2_000),
];

/** Numbers at and beyond every edge. */
export const EXTREME_NUMBERS: readonly number[] = [
  0,
  -0,
  -1,
  0.5,
  1.5,
  2 ** 31,
  2 ** 32 + 1,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER - 2,
  1e21,
  1e308,
  -1e308,
  5e-324,
];

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
);

/** Nested arrays or objects `depth` levels deep, built as text (JSON.stringify would recurse). */
export function deepJsonText(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

export const deepDepth: fc.Arbitrary<number> = fc.constantFrom(65, 100, 1_000, 10_000, 40_000);

/** Any JSON value of a type the field probably does not expect, or a nasty one of its own type. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: nastyString, weight: 5 },
  { arbitrary: fc.constantFrom(...EXTREME_NUMBERS), weight: 2 },
  { arbitrary: fc.constantFrom<unknown>(true, false, null, [], {}, [null], { '': null }, [[[]]]), weight: 2 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.array(fc.integer(), { minLength: 1_000, maxLength: 5_000 }), weight: 1 },
  { arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.integer(), { minKeys: 200, maxKeys: 500 }), weight: 1 },
);

/** Member names a schema never declares. */
export const unknownKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'unknown_field',
    'ID',
    'id ',
    ' name',
    '',
    '\u0000',
    '\ud800',
    'a.b',
    'a[0]',
  ),
  fc.string({ minLength: 1, maxLength: 12 }),
);

/** Request bodies that are not JSON, or JSON of the wrong kind. */
export const MALFORMED_JSON: readonly string[] = [
  '{',
  '}',
  '{"a":',
  '[1,2',
  '{"a":1,}',
  "{'a':1}",
  '{a:1}',
  'undefined',
  'NaN',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":-}',
  '{"a":01}',
  '{"a":1e999999}',
  '{"a":"\\x00"}',
  '{"a":"\\ud800"}',
  '{"a":"\u0000"}',
  '\ufeff{}',
  '{"a":1}{"b":2}',
  '{"a":1} trailing',
  '"just a string"',
  '123',
  'true',
  'null',
  '[]',
  '[{}]',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"name":"a","name":1}',
  '\u0000',
  '\ud800',
];

/** Content-Type headers other than the ones a route accepts (some are near misses). */
export const WRONG_MEDIA_TYPES: readonly string[] = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/merge-patch+json',
  'application/problem+json',
  'application/jsonx',
  'APPLICATION/JSON',
  'application/json, text/plain',
  '*/*',
  'image/png',
  'application/octet-stream',
  ';',
];

/** Raw path segments: not ids, not percent-encoding, not UTF-8, not small. */
export const BAD_PATH_SEGMENTS: readonly string[] = [
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x10',
  '+1',
  '%201',
  '1%20',
  'abc',
  'null',
  '99999999999999999999',
  '9007199254740993',
  '%zz',
  '%',
  '%%',
  '%E0%A4%A',
  '%FF',
  '%C0%AF',
  '%ED%A0%80',
  '%00',
  '%0A',
  '%2F',
  '%2e%2e',
  '%25zz',
  '%D9%A3',
  '%EF%BC%91',
  "1'OR'1'='1",
  '1;DROP',
  encodeURIComponent('\u202e1'),
  'a'.repeat(3_000),
];

/** Raw query values: bad numbers, bad encodings, filters that nest or run long. */
export const BAD_QUERY_VALUES: readonly string[] = [
  '',
  '-5',
  '0',
  '100000',
  '1e3',
  '1.5',
  'abc',
  '99999999999999999999',
  '%zz',
  '%',
  '%E0%A4%A',
  '%FF',
  '%ED%A0%80',
  '%00',
  encodeURIComponent(`${'not '.repeat(300)}id eq 1`),
  encodeURIComponent(`${'('.repeat(300)}id eq 1${')'.repeat(300)}`),
  encodeURIComponent(Array.from({ length: 300 }, () => 'id eq 1').join(' or ')),
  encodeURIComponent("name eq '"),
  encodeURIComponent("name eq 'x' and"),
  encodeURIComponent('constructor eq 1'),
  encodeURIComponent('__proto__ eq 1'),
  encodeURIComponent('id gt 99999999999999999999999'),
  encodeURIComponent(`name eq '${'a'.repeat(3_000)}'`),
  encodeURIComponent("created_date gt 'not a date'"),
  encodeURIComponent('-id,+name,-created_date,id'),
  encodeURIComponent(','),
];

export const unknownQueryName: fc.Arbitrary<string> = fc.constantFrom(
  '__proto__',
  'constructor',
  'foo',
  'LIMIT',
  'limit[]',
  '%zz',
  '%',
  '%FF',
);

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

/**
 * Tokens that must not authenticate, given a real one to tamper with. Values are HTTP header
 * safe (fetch refuses CR, LF, NUL and characters above U+00FF).
 */
export function badTokens(realToken: string): readonly (string | null)[] {
  const [header = '', , signature = ''] = realToken.split('.');
  const forged = base64url(
    JSON.stringify({ sub: 'x', tid: 'other', roles: ['admin'], perms: ['connection:read'], exp: 4_102_444_800 }),
  );
  return [
    null,
    '',
    'garbage',
    'a.b.c',
    `${base64url('{"alg":"none","typ":"JWT"}')}.${forged}.`,
    `${header}.${forged}.${signature}`,
    `${realToken}x`,
    realToken.slice(0, -5),
    realToken.toLowerCase(),
    'é'.repeat(200),
    'x'.repeat(5_000),
  ];
}

/** Object keys past S3's 1,024 bytes or a file system's 255-byte name (issue 21: a 300-character segment). */
export const LONG_OBJECT_KEYS: readonly string[] = [
  `${'k'.repeat(300)}/data.parquet`,
  `${'a/'.repeat(600)}data.parquet`,
  `${'é'.repeat(700)}.parquet`,
];
