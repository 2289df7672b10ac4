import * as z from 'zod';
import { AuditFields, Description, EchoedAuditFields, EntityId, LockVersion, Name, Tags } from './common';

/**
 * The request and response schemas of one kind of an entity whose kinds differ by their own
 * fields (a data source's bucket, rdbms, …; a target's bucket, table, pricing): its create
 * request, its full update document and its response, each named `<Label><Entity>…` in the
 * OpenAPI document. Said once here for every such entity (issue 41).
 */
export interface EntityKindOptions<
  E extends string,
  T extends string,
  Q extends z.ZodType<T>,
  F extends z.ZodRawShape,
  RF extends z.ZodRawShape,
  N extends z.ZodType,
> {
  /** The entity's name in schema ids: 'DataSource', 'Target'. */
  readonly entity: E;
  /** The kind's name in schema ids: 'Bucket'. */
  readonly label: string;
  /** The kind's `type` value, as responses say it. */
  readonly type: T;
  /** The `type` member of requests: the literal, or one that accepts another spelling. */
  readonly requestType: Q;
  /** What the connection_id means for this kind. */
  readonly connectionId: typeof EntityId;
  /** The name a response shows: `Name`, or `Name.nullable()` where stored names may be null. */
  readonly responseName: N;
  /** The kind's own request fields. */
  readonly fields: F;
  /** The kind's own response fields. */
  readonly responseFields: RF;
}

/** One shape of two, flattened: zod infers nothing from an intersection a generic kind leaves open. */
type Merged<A, B> = { [K in keyof A | keyof B]: K extends keyof B ? B[K] : K extends keyof A ? A[K] : never };

/** The shapes spread together, typed as one flat shape. */
const merged = <A extends z.ZodRawShape, B extends z.ZodRawShape>(a: A, b: B) => ({ ...a, ...b }) as Merged<A, B>;

/** The kind's create request, full update document and response. */
export function entityKindSchemas<
  E extends string,
  T extends string,
  Q extends z.ZodType<T>,
  F extends z.ZodRawShape,
  RF extends z.ZodRawShape,
  N extends z.ZodType,
>({
  entity,
  label,
  type,
  requestType,
  connectionId,
  responseName,
  fields,
  responseFields,
}: EntityKindOptions<E, T, Q, F, RF, N>) {
  const common = { name: Name, description: Description, tags: Tags, connection_id: connectionId };
  return {
    create: z
      .strictObject(merged({ type: requestType, ...common }, fields))
      .meta({ id: `${label}${entity}CreateRequest` }),
    update: z
      .strictObject(
        merged(
          merged({ id: EntityId, lock_version: LockVersion, type: requestType, ...common }, fields),
          EchoedAuditFields,
        ),
      )
      .meta({ id: `${label}${entity}UpdateRequest` }),
    response: z
      .object(
        merged(
          merged(
            {
              id: EntityId,
              lock_version: LockVersion,
              type: z.literal(type),
              name: responseName,
              description: Description,
              tags: Tags,
              connection_id: EntityId,
            },
            responseFields,
          ),
          AuditFields,
        ),
      )
      .meta({ id: `${label}${entity}` }),
  };
}
