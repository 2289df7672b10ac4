import * as z from 'zod';
import { AuditFields, EchoedAuditFields, LockVersion, User } from './common';

/**
 * The retention policy of a tenant (spec 2.10) and what it expires (docs/retention.md).
 * RetentionPolicyRule has one member: `threshold_days`.
 */

/** Longest threshold: a hundred years, beyond which a version is as good as kept. */
export const MAX_THRESHOLD_DAYS = 36_500;

export const RetentionPolicyRule = z
  .strictObject({
    threshold_days: z
      .int()
      .min(1)
      .max(MAX_THRESHOLD_DAYS)
      .describe('A version that the policy may delete expires this many days after its creation'),
  })
  .meta({ id: 'RetentionPolicyRule' });
export type RetentionPolicyRule = z.infer<typeof RetentionPolicyRule>;

export const RetentionPolicyRequest = z
  .strictObject({
    enabled: z.boolean().describe('False: nothing is deleted automatically'),
    rule: RetentionPolicyRule.nullable().optional().describe('Required when enabled (20-1060)'),
    lock_version: LockVersion.describe('The lock_version GET answered; 0 while no policy was ever set'),
    ...EchoedAuditFields,
  })
  .meta({ id: 'RetentionPolicyRequest' });

export const RetentionPolicyResponse = z
  .object({
    enabled: z.boolean(),
    rule: RetentionPolicyRule.nullable(),
    lock_version: LockVersion,
    created_by: User.nullable(),
    created_date: AuditFields.created_date.nullable(),
    last_modified_by: User.nullable(),
    last_modified_date: AuditFields.last_modified_date.nullable(),
  })
  .meta({ id: 'RetentionPolicy' });
export type RetentionPolicyResponse = z.infer<typeof RetentionPolicyResponse>;

export const RetentionPreviewQuery = z.strictObject({
  as_of: z.iso.datetime({ offset: true }).optional().describe('The moment of the sweep to preview; now when omitted'),
});

const ExpiringDataVersion = z.object({
  data_table_id: z.int(),
  version_number: z.int(),
  expiration_date: z.iso.datetime(),
});
const ExpiringGraph = z.object({
  dataset_id: z.int(),
  version_number: z.int(),
  expiration_date: z.iso.datetime(),
});

export const RetentionPreview = z
  .object({
    as_of: z.iso.datetime(),
    data_versions: z.array(ExpiringDataVersion).describe('Data versions a sweep at as_of deletes'),
    transformation_graphs: z.array(ExpiringGraph).describe('Transformation graph versions a sweep at as_of deletes'),
  })
  .meta({ id: 'RetentionPreview' });
export type RetentionPreview = z.infer<typeof RetentionPreview>;
