/**
 * The valid requests of the quota operations, apart from test/contract/corpus.ts to keep each
 * module small, with bodies for each rule the catalogue gives a code to (70-*, 10-7003).
 */
import type { OperationId } from '../../functions/routes';
import type { JsonValue } from './variations';

/** The parts of a valid request the corpus varies (the Base of test/contract/corpus.ts). */
export interface QuotaBase {
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
  readonly bodies?: Readonly<Record<string, JsonValue>>;
}

export function quotaBases(): Partial<Readonly<Record<OperationId, QuotaBase>>> {
  // Far ahead, so that the corpus never makes the tenant's current contract.
  const body = {
    name: 'contract quota',
    description: 'corpus',
    tags: ['corpus'],
    start_date: '2091-01-01',
    end_date: '2091-02-01',
    cpu_time_hours: 5,
    data_transfer_gb: 5,
    overage_allowed: false,
  };
  return {
    createQuotaContract: {
      body,
      bodies: {
        'negative CPU hours': { ...body, cpu_time_hours: -1 },
        'one date only': { ...body, end_date: null },
        'no dates': { name: 'no window', cpu_time_hours: 1, data_transfer_gb: 1 },
        'dates without values': { start_date: '2092-01-01', end_date: '2092-02-01' },
        'end before start': { ...body, start_date: '2093-02-01', end_date: '2093-01-01' },
        'end on start': { ...body, start_date: '2093-03-01', end_date: '2093-03-01' },
        'a date-time instead of a date': { ...body, start_date: '2094-01-01T00:00:00Z' },
      },
    },
    getCurrentQuotaContract: {},
    listQuotaContracts: { query: { limit: '5' } },
    setQuotaOverage: { body: { overage_allowed: true } },
    getQuotaUsage: {},
  };
}
