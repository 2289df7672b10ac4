/**
 * The valid requests of the transfer operations (docs/transfers.md), apart from
 * test/contract/corpus.ts to keep each module small. The contract tenant has the transfers
 * toggle on (set by the contract test). The start names a target no tenant has (30-6002 after
 * the request's own checks), so no transfer claims a target of the corpus; the read names a
 * transfer no tenant has (10-404); test/integration/transfers reads real ones.
 */
import type { OperationId } from '../../functions/routes';
import type { JsonValue } from './variations';

/** The parts of a valid request the corpus varies (the Base of test/contract/corpus.ts). */
export interface TransferBase {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
  readonly bodies?: Readonly<Record<string, JsonValue>>;
  readonly enums?: Readonly<Record<string, readonly JsonValue[]>>;
}

const NO_TARGET = 999_999;

export function transferBases(f: {
  readonly tableId: number;
  readonly versionNumber: number;
}): Partial<Readonly<Record<OperationId, TransferBase>>> {
  const source = { source_type: 'datatable', source_id: f.tableId, source_version: f.versionNumber };
  return {
    startTransfer: {
      body: { ...source, target_id: NO_TARGET },
      bodies: { 'of the released version': { ...source, source_type: 'dataset', source_version: 'released' } },
      enums: { source_type: ['dataset', 'DATATABLE'] },
    },
    getTransfer: { params: { transfer_id: '999999' } },
    cancelTransfer: { params: { transfer_id: '999999' } },
    listTransfers: { query: { limit: '5' } },
  };
}
