import * as z from 'zod';
import { RecordStore } from '../db/record-store';
import { AppError } from '../errors/app-error';
import { MAX_VALUE_BYTES, type ValueResponse } from '../model/app-install';

/**
 * The key-value store of each install (docs/apps.md), one record per value keyed by
 * `<bundle id>#<key>`, so that an uninstall finds an install's values with one prefix query.
 */
const StoredValue = z.object({
  bundle_id: z.int(),
  key: z.string(),
  value: z.json(),
  last_modified_date: z.iso.datetime(),
});
type StoredValue = z.infer<typeof StoredValue>;

const recordId = (bundleId: number, key: string) => `${bundleId}#${key}`;
const values = new RecordStore({
  kind: 'APP_VALUE',
  schema: StoredValue,
  idOf: (value) => recordId(value.bundle_id, value.key),
});

function valueResponse(stored: StoredValue): ValueResponse {
  return { key: stored.key, value: stored.value, last_modified_date: stored.last_modified_date };
}

export async function getValue(tenantId: string, bundleId: number, key: string): Promise<ValueResponse> {
  const stored = await values.find(tenantId, recordId(bundleId, key));
  if (!stored) throw new AppError('80-8020');
  return valueResponse(stored);
}

/** Stores the value under the key, replacing what it held; 80-8021 over MAX_VALUE_BYTES of UTF-8 JSON. */
export async function putValue(
  tenantId: string,
  bundleId: number,
  key: string,
  value: z.infer<ReturnType<typeof z.json>>,
): Promise<ValueResponse> {
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (bytes > MAX_VALUE_BYTES)
    throw new AppError('80-8021', { params: [MAX_VALUE_BYTES], extraDetails: { value_bytes: bytes } });
  const stored = { bundle_id: bundleId, key, value, last_modified_date: new Date().toISOString() };
  await values.put(tenantId, stored);
  return valueResponse(stored);
}

export async function deleteValue(tenantId: string, bundleId: number, key: string): Promise<void> {
  if (!(await values.delete(tenantId, recordId(bundleId, key)))) throw new AppError('80-8020');
}

/** Removes every value of the install (its uninstall). */
export async function deleteValuesOf(tenantId: string, bundleId: number): Promise<void> {
  const all = await values.list(tenantId, `${bundleId}#`);
  await Promise.all(all.map((value) => values.delete(tenantId, recordId(bundleId, value.key))));
}
