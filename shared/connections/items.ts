import * as z from 'zod';
import type { PublicAuth, Settings } from '../connectors/configuration';
import type { DerivedFacts } from '../connectors/validation';
import { AUTH_VARIANTS, CONNECTION_TYPES, type AuthType } from '../model/connection';
import { SealedSecret } from '../secrets/envelope';

/**
 * The stored data of a connection (the `data` of its entity item). Requests were validated
 * in full when they were written; reads check the shape only: an auth variant's own fields
 * are free strings here, and the secret is a sealed envelope checked for structure.
 */

const StoredAuthType = z.custom<AuthType>(
  (value) => typeof value === 'string' && Object.hasOwn(AUTH_VARIANTS, value),
  'unknown auth_type',
);

const StoredAuth: z.ZodType<PublicAuth> = z.object({ auth_type: StoredAuthType }).catchall(z.string().nullable());

const StoredSettings: z.ZodType<Settings> = z.record(z.string(), z.string().nullable());

const StoredDerivedFacts: z.ZodType<DerivedFacts> = z.object({
  project_id: z.string().optional(),
  profile_redacted: z.string().optional(),
});

export const ConnectionItemData = z.object({
  name: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()).readonly().nullable(),
  type: z.enum(CONNECTION_TYPES),
  read: z.boolean(),
  write: z.boolean(),
  auth: StoredAuth,
  /** Sealed with the connection's context (store.ts, secretContext). */
  secret: SealedSecret,
  settings: StoredSettings,
  type_mapping: z.record(z.string(), z.string()).nullable(),
  type_mapping_name: z.string().nullable(),
  derived: StoredDerivedFacts,
});

/** A stored connection. The secret is sealed; everything else may be shown. */
export type ConnectionData = z.infer<typeof ConnectionItemData>;
