import { describe, expect, it } from 'vitest';
import { ENTITY_KINDS, keys } from '../../../shared/db/keys';

describe('entity kinds', () => {
  it('are the registry’s: keys take no other kind, and each only in its role (checked by tsc)', () => {
    expect(keys.entity('acme', 'DATA_TABLE', 7)).toEqual({ pk: 'T#acme#DATA_TABLE', sk: '000000000007' });
    expect(keys.idempotency('acme', 'DATA_VERSION_BATCH_CREATE', 'k')).toEqual({
      pk: 'T#acme#DATA_VERSION_BATCH_CREATE#IDEMPOTENCY',
      sk: 'k',
    });
    // @ts-expect-error a free string is no kind
    keys.entity('acme', 'DATA_TABLES', 7);
    // @ts-expect-error a child item has no entity key, counter or name
    keys.counter('acme', 'DATA_VERSION');
    // @ts-expect-error an operation is no entity
    keys.nameClaim('acme', 'DATA_VERSION_BATCH_CREATE', 'x');
    expect(Object.keys(ENTITY_KINDS).every((kind) => /^[A-Z]+(?:_[A-Z]+)*$/.test(kind))).toBe(true);
  });
});
