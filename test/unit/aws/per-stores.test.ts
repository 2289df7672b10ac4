/**
 * What a warm function keeps of its stores is made again once the environment names other
 * stores (a test process starts a twin per file), and kept while it names the same ones.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { perStores, storesInUse } from '../../../shared/aws/per-stores';

const saved = { ...process.env };

afterEach(() => {
  for (const name of ['AWS_ENDPOINT_URL_DYNAMODB', 'TABLE_NAME', 'SIGNING_KEY_ID']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('perStores', () => {
  it('keeps one value while the stores stay, and makes a new one (discarding the old) when they change', () => {
    process.env.AWS_ENDPOINT_URL_DYNAMODB = 'http://127.0.0.1:1001';
    let made = 0;
    const discarded: number[] = [];
    const value = perStores(
      () => ++made,
      (old) => discarded.push(old),
    );
    expect([value(), value()]).toEqual([1, 1]);

    process.env.AWS_ENDPOINT_URL_DYNAMODB = 'http://127.0.0.1:1002';
    expect([value(), value()]).toEqual([2, 2]);
    expect(discarded).toEqual([1]);

    process.env.TABLE_NAME = 'another-table';
    expect(value()).toBe(3);
    process.env.SIGNING_KEY_ID = 'another-key';
    expect(value()).toBe(4);
    expect(discarded).toEqual([1, 2, 3]);
  });

  it('names the stores by every variable that points at one, and by nothing else', () => {
    const before = storesInUse();
    process.env.CONNECTOR_TIMEOUT_MS = '5';
    expect(storesInUse()).toBe(before);
    delete process.env.CONNECTOR_TIMEOUT_MS;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = 'http://127.0.0.1:1003';
    expect(storesInUse()).not.toBe(before);
  });
});
