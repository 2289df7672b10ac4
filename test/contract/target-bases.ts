/**
 * The valid requests of the target operations (docs/targets.md), apart from
 * test/contract/corpus.ts to keep each module small: a bucket target through a writable
 * object-store connection, and a spare nothing depends on for the delete.
 */
import type { OperationId } from '../../functions/routes';
import type { JsonValue } from './variations';

/** The target entities the corpus aims at, made beforehand. */
export interface TargetFixtures {
  /** An object_store connection with write permission, restricted to the fixture bucket. */
  readonly connectionId: number;
  /** A folder inside that restriction: "<bucket>/<folder>/". */
  readonly folder: string;
  readonly targetId: number;
  readonly spareTargetId: number;
  /** The target as GET answers it: the base of full updates. */
  readonly current: JsonValue;
}

/** The parts of a valid request the corpus varies (the Base of test/contract/corpus.ts). */
export interface TargetBase {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
  readonly mediaType?: string;
  readonly enums?: Readonly<Record<string, readonly JsonValue[]>>;
}

const TARGET_TYPES = ['table', 'pricing', 'BUCKET'];

export function targetBases(f: TargetFixtures): Partial<Readonly<Record<OperationId, TargetBase>>> {
  const targetId = { target_id: String(f.targetId) };
  const { last_modified_by: _by, last_modified_date: _date, ...current } = f.current as Record<string, JsonValue>;
  return {
    createTarget: {
      body: {
        type: 'bucket',
        name: 'contract target',
        description: null,
        tags: ['t'],
        connection_id: f.connectionId,
        path: `${f.folder}{dataset_name}/`,
      },
      enums: { type: TARGET_TYPES },
    },
    listTargets: { query: { limit: '5' } },
    getTarget: { params: targetId },
    updateTarget: { params: targetId, body: current, enums: { type: TARGET_TYPES } },
    mergeTarget: {
      params: targetId,
      body: { id: f.targetId, lock_version: current.lock_version!, type: 'bucket', description: 'merged', tags: ['m'] },
      mediaType: 'application/merge-patch+json',
      enums: { type: TARGET_TYPES },
    },
    deleteTarget: { params: { target_id: String(f.spareTargetId) } },
  };
}
