/**
 * The valid requests of the retention policy operations, apart from test/contract/corpus.ts
 * to keep each module small. The contract tenant has the retention toggle on (set by the
 * contract test); the policy written is disabled, so no version of the corpus expires.
 */
import type { OperationId } from '../../functions/routes';
import type { JsonValue } from './variations';

/** The parts of a valid request the corpus varies (the Base of test/contract/corpus.ts). */
export interface RetentionBase {
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
  readonly bodies?: Readonly<Record<string, JsonValue>>;
}

export function retentionBases(): Partial<Readonly<Record<OperationId, RetentionBase>>> {
  return {
    getRetentionPolicy: {},
    putRetentionPolicy: {
      body: { enabled: false, rule: { threshold_days: 30 }, lock_version: 0 },
      bodies: { 'without a rule': { enabled: false, lock_version: 0 } },
    },
    previewRetentionSweep: { query: { as_of: '2030-01-01T00:00:00Z' } },
  };
}
