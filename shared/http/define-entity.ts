import type * as z from 'zod';
import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import { EntityStore, type Entity, type EntityStoreConfig, type RelatedWrite } from '../db/entity-store';
import { validationError, type AppError } from '../errors/app-error';
import { listQuery } from '../model/common';
import type { ListFieldType } from '../model/list-fields';
import { applyListQuery, type ListField, type ListPage, type ListQuery } from './list-query';
import { mergePatch, type Json } from './merge-patch';
import { describeIssues } from './validation';

/**
 * One declaration per top-level entity (docs/decisions.md, "Entities declared once"), as
 * defineRoute is per route and defineJob per job: its store (kind, item schema, in-use
 * counters), its response shape, the fields its list filters and sorts by, and its update
 * document with the lock_version rule. The store, the list, update and merge handlers
 * (entity-handlers.ts) and the list's OpenAPI parameters (listQuery) follow from it.
 */

/** What an update replaces the entity's data with, and the writes that commit with it or not at all. */
export interface Replacement<D, R extends string> {
  readonly data: D;
  readonly related?: readonly RelatedWrite[];
  /** Counters that must still be as read (EntityStore.replace). */
  readonly refsAsRead?: readonly R[];
}

/** The document every full update (PUT) carries: the entity's id and the lock_version it was read at. */
export interface UpdateDocument {
  readonly id: number;
  readonly lock_version: number;
}

export interface EntityUpdateSpec<D, R extends string, M, U extends UpdateDocument> {
  /** The full update document; a merge patch (PATCH) is merged into the stored entity's and validated as one. */
  readonly document: z.ZodType<U>;
  /** The refusal when the id in the URL and the id in the body differ (each entity has its code). */
  readonly idMismatch: (urlId: number, bodyId: number) => AppError;
  /** The refusal when the entity to update does not exist (a data table: 20-1002); the store's not-found when omitted. */
  readonly notFound?: (id: number) => AppError;
  /**
   * The stored entity as an update document, the base a merge patch applies to, given the
   * patch (a connection's patch that switches auth_type replaces auth whole); its response
   * without the audit fields when omitted.
   */
  readonly documentOf?: (current: Entity<D, M>, patch: Readonly<Record<string, unknown>>) => Json;
  /** What the document makes of the entity: checked like a create, with the writes that commit with it. */
  readonly next: (
    principal: Principal,
    current: Entity<D, M>,
    document: U,
  ) => Promise<Replacement<D, R>> | Replacement<D, R>;
}

/** A page of entities as the API shows them, read together (a batch read of what they mirror from elsewhere). */
export type Responses<D, M, Res> = (tenantId: string, entities: readonly Entity<D, M>[]) => Promise<readonly Res[]>;

/**
 * How the API shows the entity: `response`, from the entity's own item; or `responses`, a
 * page at a time, when that takes more reads (a data table shows its data source's
 * connection, an export its job's execution), which then also answers a get and an update.
 * A declaration without either is the light part of one completed by `DeclaredEntity.with`.
 */
export interface EntityShown<D, M, Res> {
  /** The entity as the API shows it. */
  readonly response?: (entity: Entity<D, M>) => Res;
  /** The page as shown, when reading it in batches beats `response` per entity; `response` when omitted. */
  readonly responses?: Responses<D, M, Res>;
}

/** What `DeclaredEntity.with` completes a light declaration with. */
export interface EntityCompletion<D, R extends string, M, Res, U extends UpdateDocument> extends EntityShown<
  D,
  M,
  Res
> {
  readonly update?: EntityUpdateSpec<D, R, M, U>;
}

export type EntitySpec<
  D extends { readonly name: string },
  R extends string,
  M,
  Res,
  F extends ListFieldsOf<Entity<D, M>>,
  U extends UpdateDocument,
> = EntityStoreConfig<D, R, M> &
  EntityShown<D, M, Res> & {
    /** What its list filters and sorts by (docs/list-query.md), in the order the OpenAPI document names them. */
    readonly list: F;
    readonly update?: EntityUpdateSpec<D, R, M, U>;
  };

/** A list's field accessors, with their types as literals so that the types table can be derived. */
export type ListFieldsOf<T> = Readonly<Record<string, ListField<T>>>;

/** The types of a list's fields (shared/model/list-fields.ts), derived from its accessors. */
export type ListFieldTypesOf<F extends ListFieldsOf<never>> = { readonly [N in keyof F]: F[N]['type'] };

/** The types table of a list's accessors: what listQuery describes in the OpenAPI document. */
export function listFieldTypesOf<F extends ListFieldsOf<never>>(fields: F): ListFieldTypesOf<F> {
  return Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, field.type])) as ListFieldTypesOf<F>;
}

const field =
  <K extends ListFieldType>(type: K) =>
  <T>(value: (record: T) => unknown): ListField<T, K> => ({ type, value });

/** Accessor builders for list fields: `text((entity) => entity.data.type)`. */
export const listField = {
  text: field('string'),
  integer: field('integer'),
  boolean: field('boolean'),
  datetime: field('datetime'),
  textList: field('string-list'),
};

type Listed = Entity<{ readonly name: string; readonly description?: string | null; readonly tags?: unknown }>;

/** The list fields most entities share, read the same way from every entity. */
export const ENTITY_LIST_FIELDS = {
  id: listField.integer((entity: Entity<unknown>) => entity.id),
  name: listField.text((entity: Listed) => entity.data.name),
  description: listField.text((entity: Listed) => entity.data.description),
  tags: listField.textList((entity: Listed) => entity.data.tags),
  created_date: listField.datetime((entity: Entity<unknown>) => entity.created_date),
  last_modified_date: listField.datetime((entity: Entity<unknown>) => entity.last_modified_date),
} as const;

/**
 * A list's fields as most entities order them: id, name and description, then the entity's
 * own, then tags and the dates (the order the OpenAPI document names them in).
 */
export function entityListFields<const O extends Readonly<Record<string, ListField<never>>>>(own: O) {
  const { id, name, description, tags, created_date, last_modified_date } = ENTITY_LIST_FIELDS;
  return { id, name, description, ...own, tags, created_date, last_modified_date };
}

/** The audit fields a response shows and a full update may echo (they are ignored). */
const AUDIT_FIELDS = new Set(['created_by', 'created_date', 'last_modified_by', 'last_modified_date']);

/** A response without its audit fields: the update document of what is stored. */
export function withoutAuditFields(response: unknown): Json {
  return Object.fromEntries(
    Object.entries(response as Record<string, Json>).filter(([name]) => !AUDIT_FIELDS.has(name)),
  );
}

/** A declared entity: its store, and what its handlers do with it. */
export class DeclaredEntity<
  D extends { readonly name: string },
  R extends string,
  M,
  Res,
  F extends ListFieldsOf<Entity<D, M>>,
  U extends UpdateDocument,
> {
  readonly store: EntityStore<D, R, M>;
  /** The list's query parameters, sort and filter described from its fields. */
  readonly listQuery;

  constructor(
    private readonly spec: EntitySpec<D, R, M, Res, F, U>,
    store?: EntityStore<D, R, M>,
  ) {
    this.store = store ?? new EntityStore<D, R, M>(spec);
    this.listQuery = listQuery(listFieldTypesOf(spec.list));
  }

  get listFields(): F {
    return this.spec.list;
  }

  /**
   * The entity completed with how the API shows it and its update, declared apart from its
   * store and list where they import much (a data table's data source and retention policy,
   * a dataset's graphs, an export's job status): the route tables (whose list routes take
   * `listQuery`, and which the OpenAPI and docs functions bundle whole) and the many modules
   * that read the store import the light declaration; only the entity's handlers import the
   * complete one (shared/<resource>/entity.ts). The store is the same.
   */
  with<Shown, V extends UpdateDocument = UpdateDocument>(
    completion: EntityCompletion<D, R, M, Shown, V>,
  ): DeclaredEntity<D, R, M, Shown, F, V> {
    const { response, responses, update } = completion;
    return new DeclaredEntity<D, R, M, Shown, F, V>({ ...this.spec, response, responses, update }, this.store);
  }

  /**
   * The entity with its update declared apart from the rest: where what an update checks is
   * heavy (a connection's configuration), only the update and merge handlers import it, not
   * every module that reads the store. The store is the same.
   */
  withUpdate<V extends UpdateDocument>(update: EntityUpdateSpec<D, R, M, V>): DeclaredEntity<D, R, M, Res, F, V> {
    return new DeclaredEntity<D, R, M, Res, F, V>({ ...this.spec, update }, this.store);
  }

  /** The entity as the API shows it. */
  async response(tenantId: string, entity: Entity<D, M>): Promise<Res> {
    const [shown] = await this.responses(tenantId, [entity]);
    return shown!;
  }

  async get(tenantId: string, id: number): Promise<Res> {
    return this.response(tenantId, await this.store.get(tenantId, id));
  }

  /** One Query for the tenant's entities, then ListQuery over them, then the page as shown. */
  async page(tenantId: string, query: ListQuery): Promise<ListPage<Res>> {
    const page = applyListQuery(await this.store.list(tenantId), query, this.spec.list);
    return { ...page, items: [...(await this.responses(tenantId, page.items))] };
  }

  private async responses(tenantId: string, entities: readonly Entity<D, M>[]): Promise<readonly Res[]> {
    const { response, responses } = this.spec;
    if (responses) return responses(tenantId, entities);
    if (!response) throw new Error(`${this.spec.label}: no response is declared (DeclaredEntity.with)`);
    return entities.map((entity) => response(entity));
  }

  /** A full update (PUT): the URL's id and the body's must agree, and the body's lock_version be current (10-1006). */
  async update(principal: Principal, urlId: number, document: U): Promise<Res> {
    const spec = this.updateSpec();
    if (urlId !== document.id) throw spec.idMismatch(urlId, document.id);
    const current = await this.current(principal.tenantId, urlId);
    return this.response(principal.tenantId, await this.replace(principal, current, document));
  }

  /** A merge (PATCH, RFC 7396) of `patch` into the stored entity's update document, then applied as a full update. */
  async merge(
    principal: Principal,
    urlId: number,
    patch: Readonly<Record<string, unknown>> & { readonly id: number },
  ): Promise<Res> {
    const spec = this.updateSpec();
    if (urlId !== patch.id) throw spec.idMismatch(urlId, patch.id);
    const current = await this.current(principal.tenantId, urlId);
    const base = spec.documentOf
      ? spec.documentOf(current, patch)
      : withoutAuditFields(await this.response(principal.tenantId, current));
    const merged = spec.document.safeParse(mergePatch(base, patch), { reportInput: true });
    if (!merged.success) throw validationError(describeIssues(merged.error.issues));
    return this.response(principal.tenantId, await this.replace(principal, current, merged.data));
  }

  /** The entity an update starts from: the update's not-found when it declares one, else the store's. */
  private async current(tenantId: string, id: number): Promise<Entity<D, M>> {
    const { notFound } = this.updateSpec();
    if (!notFound) return this.store.get(tenantId, id);
    const entity = await this.store.find(tenantId, id);
    if (!entity) throw notFound(id);
    return entity;
  }

  /** The lock_version rule, once: the document's lock_version must still be the stored one. */
  private async replace(principal: Principal, current: Entity<D, M>, document: U): Promise<Entity<D, M>> {
    const { data, related, refsAsRead } = await this.updateSpec().next(principal, current, document);
    return this.store.replace(principal.tenantId, actorOf(principal), current, document.lock_version, data, {
      ...(related ? { related } : {}),
      ...(refsAsRead ? { refsAsRead } : {}),
    });
  }

  private updateSpec(): EntityUpdateSpec<D, R, M, U> {
    if (!this.spec.update) throw new Error(`${this.spec.label}: no update is declared`);
    return this.spec.update;
  }
}

/** Declares an entity once: everything else about it follows from this. */
export function defineEntity<
  D extends { readonly name: string },
  R extends string = never,
  M = Record<never, never>,
  Res = unknown,
  const F extends ListFieldsOf<Entity<D, M>> = ListFieldsOf<Entity<D, M>>,
  U extends UpdateDocument = UpdateDocument,
>(spec: EntitySpec<D, R, M, Res, F, U>): DeclaredEntity<D, R, M, Res, F, U> {
  return new DeclaredEntity(spec);
}
