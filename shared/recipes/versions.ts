import { GetCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import type { Actor } from '../db/actor';
import type { RelatedWrite } from '../db/entity-store';
import { checkBeforeWrite, parseItem } from '../db/items';
import { deleteItems, keysUnder } from '../db/purge';
import { keys, type EntityKind, type TopLevelKind } from '../db/keys';
import { failedAt, transactWrite, type TransactItem } from '../db/transactions';
import { AppError } from '../errors/app-error';
import { LATEST_VERSION, RecipeVersionHead, StoredRecipeVersion } from './items';
import { runningNodeAmong } from '../datasets/run-lock';
import { recipeStore } from './store';
import { recipeUsages } from './usages';

export type { StoredRecipeVersion } from './items';

/**
 * Recipe versions (spec 2.7, 9.4) in their recipe's item collection, next to a head item that
 * numbers them. A version is numbered, written and copied onto the recipe's item in one
 * transaction conditioned on the head's count, so concurrent creations get consecutive
 * numbers and none is lost: the losers of a race read the head again and retry.
 */
const KIND: TopLevelKind = 'RECIPE';
const VERSION_KIND: EntityKind = 'RECIPE_VERSION';
/** Enough for a burst of concurrent creations on one recipe; each round one of them commits. */
const CREATE_ATTEMPTS = 40;
const UPDATE_ATTEMPTS = 3;

/** What a version holds besides its bookkeeping: checked code and its aliases. */
export interface VersionContent {
  readonly code: string;
  readonly aliases: readonly string[];
}

export function versionNotFound(recipeId: number, versionNumber: number): AppError {
  return new AppError('20-1045', { params: [recipeId, versionNumber] });
}

const recipeMissing = (recipeId: number) => new AppError('20-1044', { params: [recipeId] });

function toVersion(item: Record<string, unknown>): StoredRecipeVersion {
  return parseItem(StoredRecipeVersion, VERSION_KIND, item);
}

/** A new version as stored; it is also its recipe's copy of the latest version. */
export function newVersion(
  recipeId: number,
  versionNumber: number,
  actor: Actor,
  content: VersionContent,
  now: string,
): StoredRecipeVersion {
  return checkBeforeWrite(StoredRecipeVersion, VERSION_KIND, 'version', {
    recipe_id: recipeId,
    version_number: versionNumber,
    code: content.code,
    aliases: [...content.aliases],
    is_locked: false,
    lock_version: 0,
    created_by: actor,
    created_date: now,
    last_modified_by: actor,
    last_modified_date: now,
  });
}

function versionPut(tenantId: string, version: StoredRecipeVersion): TransactItem {
  return {
    Put: {
      TableName: config.tableName,
      Item: {
        ...keys.version(tenantId, KIND, version.recipe_id, version.version_number),
        kind: VERSION_KIND,
        tenant_id: tenantId,
        ...version,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The recipe item's copy of its latest version, set to `version` while the recipe exists. */
function latestCopy(
  tenantId: string,
  version: StoredRecipeVersion,
  condition: string,
  values: Record<string, unknown> = {},
): TransactItem {
  return {
    Update: {
      TableName: config.tableName,
      Key: keys.entity(tenantId, KIND, version.recipe_id),
      UpdateExpression: 'SET #latest = :latest',
      ConditionExpression: condition,
      ExpressionAttributeNames: { '#latest': LATEST_VERSION },
      ExpressionAttributeValues: { ':latest': version, ...values },
      // Only to tell a missing recipe (no item) from a copy that moved on.
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

async function readHead(tenantId: string, recipeId: number): Promise<RecipeVersionHead | undefined> {
  const result = await dynamoDocumentClient().send(
    new GetCommand({
      TableName: config.tableName,
      Key: keys.childrenHead(tenantId, KIND, recipeId),
      ConsistentRead: true,
    }),
  );
  return result.Item ? parseItem(RecipeVersionHead, KIND, result.Item) : undefined;
}

/**
 * Why a version may not be written now, or nothing. The one place that judges it: a lock
 * by released datasets (20-1046), or a recipe node using it that a live run builds (20-1048;
 * the uses name the nodes, the graph versions' run locks say which run).
 */
async function refusalOf(tenantId: string, version: StoredRecipeVersion): Promise<AppError | undefined> {
  if (version.is_locked) return new AppError('20-1046', { params: [version.recipe_id, version.version_number] });
  const running = await runningNodeAmong(
    tenantId,
    await recipeUsages.list(tenantId, version.recipe_id, version.version_number),
  );
  if (running !== undefined)
    return new AppError('20-1048', { params: [version.recipe_id, version.version_number, running] });
  return undefined;
}

/**
 * The condition refusalOf states, for the write itself: the version as read, still unlocked,
 * and marked by no run since it was judged (a run marks the versions it plans with).
 */
function writable(version: StoredRecipeVersion): {
  readonly condition: string;
  readonly values: Record<string, unknown>;
} {
  const marker = version.run_marker === undefined ? 'attribute_not_exists(run_marker)' : 'run_marker = :marker';
  return {
    condition: `lock_version = :expected AND is_locked = :false AND ${marker}`,
    values: version.run_marker === undefined ? {} : { ':marker': version.run_marker },
  };
}

/** The part of a version's Update that differs between writes. */
type VersionUpdate = Pick<
  NonNullable<TransactItem['Update']>,
  'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeValues'
>;

/**
 * One conditional write of a version's item that leaves it as `next`, with the recipe's copy
 * when `next` is its latest version. A version that is latest when read stays latest unless
 * a newer one is created meanwhile; then the write is retried without the copy.
 */
async function writeVersion(tenantId: string, next: StoredRecipeVersion, update: VersionUpdate): Promise<void> {
  const { recipe_id: recipeId, version_number: versionNumber } = next;
  for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt += 1) {
    const head = await readHead(tenantId, recipeId);
    if (!head) throw recipeMissing(recipeId);
    const latest = head.version_count === versionNumber;
    const outcome = await transactWrite([
      {
        Update: {
          TableName: config.tableName,
          Key: keys.version(tenantId, KIND, recipeId, versionNumber),
          ...update,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      latest
        ? latestCopy(tenantId, next, '#latest.version_number = :number', { ':number': versionNumber })
        : {
            ConditionCheck: {
              TableName: config.tableName,
              Key: keys.childrenHead(tenantId, KIND, recipeId),
              ConditionExpression: 'version_count > :number',
              ExpressionAttributeValues: { ':number': versionNumber },
            },
          },
    ]);
    if (outcome.committed) return;
    const stale = failedAt(outcome, 0);
    if (stale) {
      if (!stale.item) throw versionNotFound(recipeId, versionNumber);
      throw (await refusalOf(tenantId, toVersion(stale.item))) ?? new AppError('10-1006');
    }
    const copy = failedAt(outcome, 1);
    if (latest && copy && !copy.item) throw recipeMissing(recipeId);
    // The recipe's copy moved on (a newer version was created): read again.
  }
  throw new AppError('10-1006');
}

/** Short, growing, random pauses between attempts, so racing creations spread out. */
const backoff = (attempt: number) => sleep(Math.floor(Math.random() * 5 * attempt));

export const recipeVersions = {
  /** The head (at one version) and version 1, written in the recipe's create transaction. */
  firstWrites(tenantId: string, version: StoredRecipeVersion): RelatedWrite[] {
    const head: TransactItem = {
      Put: {
        TableName: config.tableName,
        Item: { ...keys.childrenHead(tenantId, KIND, version.recipe_id), version_count: 1 },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    // Ids are never reused, so neither item can exist: a failure here is a bug, not a refusal.
    const unexpected = () =>
      new AppError('10-500', { cause: new Error(`recipe ${version.recipe_id}: version 1 already exists`) });
    return [
      { item: head, onConditionFailure: unexpected },
      { item: versionPut(tenantId, version), onConditionFailure: unexpected },
    ];
  },

  async find(tenantId: string, recipeId: number, versionNumber: number): Promise<StoredRecipeVersion | undefined> {
    const result = await dynamoDocumentClient().send(
      new GetCommand({
        TableName: config.tableName,
        Key: keys.version(tenantId, KIND, recipeId, versionNumber),
        ConsistentRead: true,
      }),
    );
    return result.Item ? toVersion(result.Item) : undefined;
  },

  /** The version; when there is none, 20-1044 if the recipe is missing too, else 20-1045. */
  async get(tenantId: string, recipeId: number, versionNumber: number): Promise<StoredRecipeVersion> {
    const version = await recipeVersions.find(tenantId, recipeId, versionNumber);
    if (version) return version;
    await recipeStore.get(tenantId, recipeId);
    throw versionNotFound(recipeId, versionNumber);
  },

  /** Every version of the recipe, oldest first. */
  async list(tenantId: string, recipeId: number): Promise<StoredRecipeVersion[]> {
    const versions: StoredRecipeVersion[] = [];
    let cursor: QueryCommandOutput['LastEvaluatedKey'];
    do {
      const page = await dynamoDocumentClient().send(
        new QueryCommand({
          TableName: config.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.children(tenantId, KIND, recipeId), ':prefix': keys.VERSION_PREFIX },
          ConsistentRead: true,
          ExclusiveStartKey: cursor,
        }),
      );
      for (const item of page.Items ?? []) versions.push(toVersion(item));
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    return versions;
  },

  /** The recipe's next version, numbered after the last; 20-1044 when the recipe is gone. */
  async create(
    tenantId: string,
    actor: Actor,
    recipeId: number,
    content: VersionContent,
  ): Promise<StoredRecipeVersion> {
    for (let attempt = 1; attempt <= CREATE_ATTEMPTS; attempt += 1) {
      const head = await readHead(tenantId, recipeId);
      if (!head) throw recipeMissing(recipeId);
      const version = newVersion(recipeId, head.version_count + 1, actor, content, new Date().toISOString());
      const outcome = await transactWrite([
        {
          Update: {
            TableName: config.tableName,
            Key: keys.childrenHead(tenantId, KIND, recipeId),
            UpdateExpression: 'SET version_count = :next',
            ConditionExpression: 'version_count = :previous',
            ExpressionAttributeValues: { ':next': version.version_number, ':previous': head.version_count },
          },
        },
        versionPut(tenantId, version),
        latestCopy(tenantId, version, 'attribute_exists(pk)'),
      ]);
      if (outcome.committed) return version;
      if (failedAt(outcome, 2)) throw recipeMissing(recipeId);
      // Another creation took the number: read the head again.
      await backoff(attempt);
    }
    throw new AppError('10-1006');
  },

  /**
   * Replaces a version's code and aliases if its lock_version is still `expectedLockVersion`
   * (10-1006) and nothing forbids writing it (refusalOf). `prepare` (the SQL analysis) runs
   * after those cheap checks. When it is the recipe's latest version, the recipe's copy
   * changes in the same transaction.
   */
  async update(
    tenantId: string,
    actor: Actor,
    current: StoredRecipeVersion,
    expectedLockVersion: number,
    prepare: () => Promise<VersionContent>,
  ): Promise<StoredRecipeVersion> {
    const refusal = await refusalOf(tenantId, current);
    if (refusal) throw refusal;
    if (current.lock_version !== expectedLockVersion) throw new AppError('10-1006');
    const content = await prepare();
    const next = checkBeforeWrite(StoredRecipeVersion, VERSION_KIND, 'version', {
      ...current,
      code: content.code,
      aliases: [...content.aliases],
      lock_version: expectedLockVersion + 1,
      last_modified_by: actor,
      last_modified_date: new Date().toISOString(),
    });
    await writeVersion(tenantId, next, {
      UpdateExpression:
        'SET code = :code, aliases = :aliases, lock_version = :next, last_modified_by = :actor, last_modified_date = :now',
      ConditionExpression: writable(current).condition,
      ExpressionAttributeValues: {
        ...writable(current).values,
        ':code': next.code,
        ':aliases': next.aliases,
        ':next': next.lock_version,
        ':actor': next.last_modified_by,
        ':now': next.last_modified_date,
        ':expected': expectedLockVersion,
        ':false': false,
      },
    });
    return next;
  },

  /**
   * The writes that lock `version` for released datasets (20-1046 on updates from then on),
   * on the version and on its recipe's copy when it is the latest: a dataset release commits
   * them with the graph. Not an edit of the version (lock_version stays), but only of the
   * version as read: if it changed meanwhile, a condition fails and the release reads again.
   */
  async lockWrites(tenantId: string, version: StoredRecipeVersion): Promise<RelatedWrite[]> {
    const { recipe_id: recipeId, version_number: versionNumber } = version;
    const head = await readHead(tenantId, recipeId);
    if (!head) throw recipeMissing(recipeId);
    const moved = () => new AppError('10-1006');
    const asRead = { ':true': true, ':seen': version.lock_version, ':number': versionNumber };
    const onVersion: RelatedWrite = {
      item: {
        Update: {
          TableName: config.tableName,
          Key: keys.version(tenantId, KIND, recipeId, versionNumber),
          UpdateExpression: 'SET is_locked = :true',
          ConditionExpression: 'lock_version = :seen',
          ExpressionAttributeValues: { ':true': true, ':seen': version.lock_version },
        },
      },
      onConditionFailure: moved,
    };
    if (head.version_count !== versionNumber) return [onVersion];
    const onCopy: RelatedWrite = {
      item: {
        Update: {
          TableName: config.tableName,
          Key: keys.entity(tenantId, KIND, recipeId),
          UpdateExpression: 'SET #latest.is_locked = :true',
          ConditionExpression: '#latest.version_number = :number AND #latest.lock_version = :seen',
          ExpressionAttributeNames: { '#latest': LATEST_VERSION },
          ExpressionAttributeValues: asRead,
        },
      },
      onConditionFailure: moved,
    };
    return [onVersion, onCopy];
  },

  /** Removes the head, every version and every use record of a deleted recipe. */
  async purge(tenantId: string, recipeId: number): Promise<void> {
    await deleteItems(await keysUnder(keys.children(tenantId, KIND, recipeId)));
  },
};
