import { randomUUID } from 'node:crypto';
import { removeVersionFiles } from '../data-tables/version-deletion';
import { dataTableStore } from '../data-tables/store';
import { dataVersions } from '../data-tables/versions';
import { graphs } from '../datasets/graphs';
import { removeRunsOf } from '../datasets/run-cleanup';
import { datasetStore } from '../datasets/store';
import { AppError, isAppError } from '../errors/app-error';
import { isFeatureOn } from '../features/store';
import type { RetentionPolicyRule } from '../model/retention';
import { expiredDataVersions, expiredGraphs, isStillExpired, type Expired } from './candidates';
import { deletions, type Deletion } from './deletions';
import { findPolicy, policyPage, ruleOf } from '../retention-policy/policy';

/**
 * The retention sweep (docs/retention.md): it walks the tenants that have a policy, a page at
 * a time, and deletes what has expired at the sweep's moment `as_of` with the same deletions a
 * user makes (their refusals keep what a job runs on or a node pins). It is a sequence of
 * steps over a cursor: a step stops when its invocation runs out of time and hands back the
 * cursor, and the next invocation goes on from there. Every deletion is journalled
 * (deletions.ts), so concurrent sweeps and a sweep killed half-way delete each thing once and
 * leave no file without its item.
 */
export interface SweepCursor {
  readonly sweep_id: string;
  readonly as_of: string;
  /** The last tenant swept to the end. */
  readonly after_tenant?: string;
  /** The tenant in progress: its phase and the last table or dataset of that phase swept. */
  readonly tenant?: { readonly id: string; readonly phase: Phase; readonly after_id?: number };
}

type Phase = 'DATA_TABLES' | 'DATASETS';

/** One deletion a sweep made. */
export interface SweptThing extends Omit<Expired, 'expiration_date'> {
  readonly tenant_id: string;
}

export interface SweepStepResult {
  /** Where the next step goes on; null when the sweep is complete. */
  readonly cursor: SweepCursor | null;
  /** What this step deleted (a deletion another sweep completed is not repeated here). */
  readonly deleted: SweptThing[];
  /** Deletions whose files could not go (20-1063): the next sweep finishes them. */
  readonly failed: (SweptThing & { readonly code: string })[];
}

export interface SweepOptions {
  /** True when the invocation must stop and hand back its cursor. */
  readonly outOfTime: () => boolean;
  /** Aborts the sweep at its next step boundary, as if its process died there. */
  readonly signal?: AbortSignal;
}

export function newSweep(asOf: Date): SweepCursor {
  return { sweep_id: `sweep-${randomUUID()}`, as_of: asOf.toISOString() };
}

class Step {
  readonly deleted: SweptThing[] = [];
  readonly failed: (SweptThing & { code: string })[] = [];

  constructor(
    readonly cursor: SweepCursor,
    readonly options: SweepOptions,
  ) {}

  get asOf(): number {
    return Date.parse(this.cursor.as_of);
  }

  checkpoint(): void {
    this.options.signal?.throwIfAborted();
  }

  /** Deletes one expired version: journal, item, files, journal. */
  async delete(tenantId: string, thing: Expired): Promise<void> {
    const deletion: Deletion = {
      ...thing,
      sweep_id: this.cursor.sweep_id,
      started_date: new Date().toISOString(),
    };
    await deletions.begin(tenantId, deletion);
    this.checkpoint();
    try {
      await removeItem(tenantId, thing);
    } catch (error) {
      if (!isAppError(error)) throw error;
      // Refused (pinned, running, the last graph version...): it stays, and so does nothing.
      if (error.code !== '10-404') return deletions.drop(tenantId, deletion);
      // Gone already: a concurrent sweep or a user deleted it; its files may not be.
    }
    this.checkpoint();
    await this.removeFiles(tenantId, deletion);
  }

  private async removeFiles(tenantId: string, deletion: Deletion): Promise<void> {
    const swept = {
      tenant_id: tenantId,
      subject: deletion.subject,
      parent_id: deletion.parent_id,
      version_number: deletion.version_number,
    };
    try {
      await removeFiles(tenantId, deletion);
    } catch (error) {
      const failure = isAppError(error)
        ? error
        : new AppError('20-1063', { params: [deletion.parent_id, deletion.version_number] });
      await deletions.failed(tenantId, deletion, { code: failure.code, message: failure.message });
      this.failed.push({ ...swept, code: failure.code });
      return;
    }
    this.checkpoint();
    if (await deletions.complete(tenantId, deletion, new Date().toISOString())) this.deleted.push(swept);
  }

  /** Finishes the deletions earlier sweeps began: their files go, unless the version is back in favour. */
  async finishPending(tenantId: string, rule: RetentionPolicyRule | undefined): Promise<void> {
    for (const deletion of await deletions.pending(tenantId)) {
      if (this.options.outOfTime()) return;
      if (await itemExists(tenantId, deletion)) {
        if (await isStillExpired(tenantId, deletion, rule, this.asOf)) await this.delete(tenantId, deletion);
        else await deletions.drop(tenantId, deletion);
      } else {
        await this.removeFiles(tenantId, deletion);
      }
    }
  }
}

function removeItem(tenantId: string, thing: Expired): Promise<void> {
  return thing.subject === 'DATA_VERSION'
    ? dataVersions.remove(tenantId, thing.parent_id, thing.version_number)
    : graphs.remove(tenantId, thing.parent_id, thing.version_number);
}

function removeFiles(tenantId: string, deletion: Deletion): Promise<void> {
  return deletion.subject === 'DATA_VERSION'
    ? removeVersionFiles(tenantId, deletion.parent_id, deletion.version_number)
    : removeRunsOf(tenantId, deletion.parent_id, deletion.version_number);
}

async function itemExists(tenantId: string, deletion: Deletion): Promise<boolean> {
  if (deletion.subject === 'DATA_VERSION')
    return (await dataVersions.find(tenantId, deletion.parent_id, deletion.version_number)) !== undefined;
  return (await graphs.find(tenantId, deletion.parent_id, deletion.version_number)) !== undefined;
}

/**
 * Sweeps from `cursor` until the sweep is complete or the invocation is out of time. Within a
 * tenant it goes table by table, then dataset by dataset, in id order; after each one the
 * cursor moves past it.
 */
export async function sweepStep(cursor: SweepCursor, options: SweepOptions): Promise<SweepStepResult> {
  const step = new Step(cursor, options);
  let current = cursor;
  const result = (next: SweepCursor | null): SweepStepResult => ({
    cursor: next,
    deleted: step.deleted,
    failed: step.failed,
  });
  for (;;) {
    if (options.outOfTime()) return result(current);
    if (!current.tenant) {
      // One policy a page: the walk's state is the last tenant, whatever the number of tenants.
      const [next] = await policyPage(current.after_tenant, 1);
      if (!next) return result(null);
      current = { ...current, tenant: { id: next.tenant_id, phase: 'DATA_TABLES' } };
    }
    const tenant = current.tenant!;
    const policy = await findPolicy(tenant.id);
    const rule = policy && (await isFeatureOn(tenant.id, 'retention')) ? ruleOf(policy) : undefined;
    if (tenant.phase === 'DATA_TABLES' && tenant.after_id === undefined) await step.finishPending(tenant.id, rule);
    const moved = await sweepPhase(step, tenant, rule);
    if (moved === 'out of time') return result(current);
    current =
      tenant.phase === 'DATA_TABLES'
        ? { ...current, tenant: { id: tenant.id, phase: 'DATASETS' } }
        : { sweep_id: current.sweep_id, as_of: current.as_of, after_tenant: tenant.id };
    options.signal?.throwIfAborted();
  }

  async function sweepPhase(
    step: Step,
    tenant: NonNullable<SweepCursor['tenant']>,
    rule: RetentionPolicyRule | undefined,
  ): Promise<'done' | 'out of time'> {
    if (!rule) return 'done';
    const store = tenant.phase === 'DATA_TABLES' ? dataTableStore : datasetStore;
    const ids = (await store.list(tenant.id)).map((entity) => entity.id).filter((id) => id > (tenant.after_id ?? 0));
    for (const id of ids) {
      if (options.outOfTime()) return 'out of time';
      const expired =
        tenant.phase === 'DATA_TABLES'
          ? await expiredDataVersions(tenant.id, id, rule, step.asOf)
          : await expiredGraphs(tenant.id, id, rule, step.asOf);
      for (const thing of expired) await step.delete(tenant.id, thing);
      current = { ...current, tenant: { ...tenant, after_id: id } };
    }
    return 'done';
  }
}
