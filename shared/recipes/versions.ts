import { setTimeout as sleep } from 'node:timers/promises';
import type { Actor } from '../db/actor';
import type { RelatedWrite } from '../db/entity-store';
import { allOf, is, type Condition } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { checkBeforeWrite } from '../db/items';
import { deleteItems, keysUnder } from '../db/purge';
import { keys, type TopLevelKind } from '../db/keys';
import { failedAt, transactWrite, tx, type TransactItem } from '../db/transactions';
import { AppError, versionConflict } from '../errors/app-error';
import { LATEST_VERSION, RecipeVersionHead, StoredRecipeVersion, type StoredRecipeUsage } from './items';
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
/** A recipe version's item: what reads parse and what writes are checked with. */
export const recipeVersionItems = new ItemType('RECIPE_VERSION', StoredRecipeVersion);
const heads = new ItemType(KIND, RecipeVersionHead);

/**
 * Which of these uses of a version a live run is building, if any. The runs are the
 * datasets' (their run locks), which stand above recipes: the caller that updates a version
 * passes the question in (shared/datasets/run-lock.ts answers it), so recipes import nothing
 * of datasets.
 */
export type RunningNodeOf = (uses: readonly StoredRecipeUsage[]) => Promise<number | undefined>;
/** Enough for a burst of concurrent creations on one recipe; each round one of them commits. */
const CREATE_ATTEMPTS = 40;
const UPDATE_ATTEMPTS = 3;

/** What a version holds besides its bookkeeping: checked code and its aliases. */
export interface VersionContent {
  readonly code: string;
  readonly aliases: readonly string[];
  /** trino-sql: the query as the column-lineage tracer reads it (engine/trino/trino-lineage-tree.ts), JSON. */
  readonly lineage_tree?: string;
}

/** 20-1045: the recipe has no version of that number (or the recipe is another tenant's). */
export function versionNotFound(recipeId: number, versionNumber: number): AppError {
  return new AppError('20-1045', { params: [recipeId, versionNumber] });
}

const recipeMissing = (recipeId: number) => new AppError('20-1044', { params: [recipeId] });

/** A new version as stored; it is also its recipe's copy of the latest version. */
export function newVersion(
  recipeId: number,
  versionNumber: number,
  actor: Actor,
  content: VersionContent,
  now: string,
): StoredRecipeVersion {
  return checkBeforeWrite(StoredRecipeVersion, recipeVersionItems.kind, 'version', {
    recipe_id: recipeId,
    version_number: versionNumber,
    code: content.code,
    aliases: [...content.aliases],
    ...(content.lineage_tree === undefined ? {} : { lineage_tree: content.lineage_tree }),
    is_locked: false,
    lock_version: 0,
    created_by: actor,
    created_date: now,
    last_modified_by: actor,
    last_modified_date: now,
  });
}

function versionPut(tenantId: string, version: StoredRecipeVersion): TransactItem {
  return tx.put(
    keys.version(tenantId, KIND, version.recipe_id, version.version_number),
    recipeVersionItems.attributes(version, { kind: recipeVersionItems.kind, tenant_id: tenantId }),
    { when: is.absent('pk') },
  );
}

/** The recipe item's copy of its latest version, set to `version` while `when` holds. */
function latestCopy(tenantId: string, version: StoredRecipeVersion, when: Condition): TransactItem {
  const copy = checkBeforeWrite(StoredRecipeVersion, recipeVersionItems.kind, 'latest version', version);
  // The item as it was only tells a missing recipe (no item) from a copy that moved on.
  return tx.update(
    keys.entity(tenantId, KIND, version.recipe_id),
    { set: { [LATEST_VERSION]: copy } },
    { when, returnOld: true },
  );
}

function readHead(tenantId: string, recipeId: number): Promise<RecipeVersionHead | undefined> {
  return heads.find(keys.childrenHead(tenantId, KIND, recipeId));
}

/**
 * Why a version may not be written now, or nothing. The one place that judges it: a lock
 * by released datasets (20-1046), or a recipe node using it that a live run builds (20-1048;
 * the uses name the nodes, the graph versions' run locks say which run).
 */
async function refusalOf(
  tenantId: string,
  version: StoredRecipeVersion,
  runningNodeOf: RunningNodeOf,
): Promise<AppError | undefined> {
  if (version.is_locked) return new AppError('20-1046', { params: [version.recipe_id, version.version_number] });
  const running = await runningNodeOf(await recipeUsages.list(tenantId, version.recipe_id, version.version_number));
  if (running !== undefined)
    return new AppError('20-1048', { params: [version.recipe_id, version.version_number, running] });
  return undefined;
}

/**
 * The condition refusalOf states, for the write itself: the version as read, still unlocked,
 * and marked by no run since it was judged (a run marks the versions it plans with).
 */
function writable(version: StoredRecipeVersion, expectedLockVersion: number): Condition {
  return allOf(
    is.equal('lock_version', expectedLockVersion),
    is.equal('is_locked', false),
    version.run_marker === undefined ? is.absent('run_marker') : is.equal('run_marker', version.run_marker),
  );
}

/**
 * One conditional write of a version's item that leaves it as `next`, with the recipe's copy
 * when `next` is its latest version. A version that is latest when read stays latest unless
 * a newer one is created meanwhile; then the write is retried without the copy.
 */
async function writeVersion(
  tenantId: string,
  next: StoredRecipeVersion,
  asRead: Condition,
  runningNodeOf: RunningNodeOf,
): Promise<void> {
  const { recipe_id: recipeId, version_number: versionNumber } = next;
  for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt += 1) {
    const head = await readHead(tenantId, recipeId);
    if (!head) throw recipeMissing(recipeId);
    const latest = head.version_count === versionNumber;
    const { code, aliases, lineage_tree, lock_version, last_modified_by, last_modified_date } = next;
    const changes = recipeVersionItems.changes({
      set: {
        code,
        aliases,
        ...(lineage_tree === undefined ? {} : { lineage_tree }),
        lock_version,
        last_modified_by,
        last_modified_date,
      },
    });
    const outcome = await transactWrite([
      tx.update(keys.version(tenantId, KIND, recipeId, versionNumber), changes, { when: asRead, returnOld: true }),
      latest
        ? latestCopy(tenantId, next, is.equal(`${LATEST_VERSION}.version_number`, versionNumber))
        : tx.check(keys.childrenHead(tenantId, KIND, recipeId), is.greater('version_count', versionNumber)),
    ]);
    if (outcome.committed) return;
    const stale = failedAt(outcome, 0);
    if (stale) {
      if (!stale.item) throw versionNotFound(recipeId, versionNumber);
      throw (await refusalOf(tenantId, recipeVersionItems.read(stale.item), runningNodeOf)) ?? versionConflict();
    }
    const copy = failedAt(outcome, 1);
    if (latest && copy && !copy.item) throw recipeMissing(recipeId);
    // The recipe's copy moved on (a newer version was created): read again.
  }
  throw versionConflict();
}

/** Short, growing, random pauses between attempts, so racing creations spread out. */
const backoff = (attempt: number) => sleep(Math.floor(Math.random() * 5 * attempt));

export const recipeVersions = {
  /** The head (at one version) and version 1, written in the recipe's create transaction. */
  firstWrites(tenantId: string, version: StoredRecipeVersion): RelatedWrite[] {
    const head = tx.put(keys.childrenHead(tenantId, KIND, version.recipe_id), heads.attributes({ version_count: 1 }), {
      when: is.absent('pk'),
    });
    // Ids are never reused, so neither item can exist: a failure here is a bug, not a refusal.
    const unexpected = () =>
      new AppError('10-500', { cause: new Error(`recipe ${version.recipe_id}: version 1 already exists`) });
    return [
      { item: head, onConditionFailure: unexpected },
      { item: versionPut(tenantId, version), onConditionFailure: unexpected },
    ];
  },

  find(tenantId: string, recipeId: number, versionNumber: number): Promise<StoredRecipeVersion | undefined> {
    return recipeVersionItems.find(keys.version(tenantId, KIND, recipeId, versionNumber));
  },

  /** The version; when there is none, 20-1044 if the recipe is missing too, else 20-1045. */
  async get(tenantId: string, recipeId: number, versionNumber: number): Promise<StoredRecipeVersion> {
    const version = await recipeVersions.find(tenantId, recipeId, versionNumber);
    if (version) return version;
    await recipeStore.get(tenantId, recipeId);
    throw versionNotFound(recipeId, versionNumber);
  },

  /** Every version of the recipe, oldest first. */
  list(tenantId: string, recipeId: number): Promise<StoredRecipeVersion[]> {
    return recipeVersionItems.query(keys.children(tenantId, KIND, recipeId), keys.VERSION_PREFIX);
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
        tx.update(
          keys.childrenHead(tenantId, KIND, recipeId),
          heads.changes({ set: { version_count: version.version_number } }),
          { when: is.equal('version_count', head.version_count) },
        ),
        versionPut(tenantId, version),
        latestCopy(tenantId, version, is.present('pk')),
      ]);
      if (outcome.committed) return version;
      if (failedAt(outcome, 2)) throw recipeMissing(recipeId);
      // Another creation took the number: read the head again.
      await backoff(attempt);
    }
    throw versionConflict();
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
    runningNodeOf: RunningNodeOf,
  ): Promise<StoredRecipeVersion> {
    const refusal = await refusalOf(tenantId, current, runningNodeOf);
    if (refusal) throw refusal;
    if (current.lock_version !== expectedLockVersion) throw versionConflict();
    const content = await prepare();
    const next = checkBeforeWrite(StoredRecipeVersion, recipeVersionItems.kind, 'version', {
      ...current,
      code: content.code,
      aliases: [...content.aliases],
      ...(content.lineage_tree === undefined ? {} : { lineage_tree: content.lineage_tree }),
      lock_version: expectedLockVersion + 1,
      last_modified_by: actor,
      last_modified_date: new Date().toISOString(),
    });
    await writeVersion(tenantId, next, writable(current, expectedLockVersion), runningNodeOf);
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
    const moved = () => versionConflict();
    const onVersion: RelatedWrite = {
      item: tx.update(
        keys.version(tenantId, KIND, recipeId, versionNumber),
        recipeVersionItems.changes({ set: { is_locked: true } }),
        { when: is.equal('lock_version', version.lock_version) },
      ),
      onConditionFailure: moved,
    };
    if (head.version_count !== versionNumber) return [onVersion];
    const onCopy: RelatedWrite = {
      item: tx.update(
        keys.entity(tenantId, KIND, recipeId),
        { set: { [`${LATEST_VERSION}.is_locked`]: true } },
        {
          when: allOf(
            is.equal(`${LATEST_VERSION}.version_number`, versionNumber),
            is.equal(`${LATEST_VERSION}.lock_version`, version.lock_version),
          ),
        },
      ),
      onConditionFailure: moved,
    };
    return [onVersion, onCopy];
  },

  /** Removes the head, every version and every use record of a deleted recipe. */
  async purge(tenantId: string, recipeId: number): Promise<void> {
    await deleteItems(await keysUnder(keys.children(tenantId, KIND, recipeId)));
  },
};
