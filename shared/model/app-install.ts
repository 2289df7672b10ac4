import * as z from 'zod';
import { EntityId, IdParameter, User, listEnvelope, listQuery } from './common';
import { APP_LINK_LIST_FIELDS } from './list-fields';
import { ProviderName } from './app-bundle';
import { JobExecution } from './job';

/**
 * Installs, links, sessions, runs and the key-value store of apps (docs/apps.md). An install
 * is addressed by its bundle id: one per tenant and bundle.
 */

export const INSTALL_STATUSES = ['NOT_INSTALLED', 'INSTALLING', 'INSTALLED', 'UNINSTALLING', 'FAILED'] as const;
export type InstallStatus = (typeof INSTALL_STATUSES)[number];

export const InstallRequest = z.strictObject({ bundle_id: EntityId }).meta({ id: 'AppInstallRequest' });

export const InstallResponse = z
  .object({
    bundle_id: EntityId,
    status: z.enum(INSTALL_STATUSES),
    enabled: z.boolean().describe('A disabled app opens but runs nothing (80-8029)'),
    version_number: z.int().nullable().describe('The bundle’s published version when it was installed'),
    sdk_client_id: z.string().nullable().describe('The app’s SDK user: an API client of the tenant (/tokens)'),
    installed_by: User.nullable(),
    installed_date: z.iso.datetime().nullable(),
    execution: JobExecution.nullable().describe(
      'The latest install or uninstall job: poll until it is no longer PENDING or IN_PROGRESS; its error says why the install is FAILED (80-8026, 80-8040) or an uninstall left it INSTALLED (80-8043)',
    ),
  })
  .meta({ id: 'AppInstall' });
export type InstallResponse = z.infer<typeof InstallResponse>;

/** Link details (spec 8): checked by the service (80-8019), not by this schema, which only types them. */
export const LinkDetails = z.record(z.string(), z.string());
export const MAX_LINK_ENTRIES = 20;
export const MAX_LINK_VALUE_LENGTH = 1024;
export const MAX_LINK_TOTAL_LENGTH = 3072;

export const LinkParams = z.strictObject({ link_id: ProviderName });
export const LinkRequest = z
  .strictObject({
    link_id: z.string().max(64).optional().describe('When sent, the path’s link id (80-8018 otherwise)'),
    details: LinkDetails.describe(
      `The provider’s configuration: non-empty, at most ${MAX_LINK_ENTRIES} entries, each value at most ${MAX_LINK_VALUE_LENGTH} characters, at most ${MAX_LINK_TOTAL_LENGTH} characters in all (80-8019)`,
    ),
  })
  .meta({ id: 'AppLinkRequest' });
export const LinkResponse = z
  .object({
    link_id: ProviderName,
    details: LinkDetails,
    last_modified_by: User,
    last_modified_date: z.iso.datetime(),
  })
  .meta({ id: 'AppLink' });
export type LinkResponse = z.infer<typeof LinkResponse>;
export const LinkList = listEnvelope(LinkResponse, 'AppLinkList');
export const LinkListQuery = listQuery(APP_LINK_LIST_FIELDS);

export const SessionStartRequest = z
  .strictObject({
    return_to: z
      .string()
      .max(2048)
      .optional()
      .describe('Where the app’s way back leads: a same-origin relative path such as /home (80-8028 otherwise)'),
  })
  .meta({ id: 'AppSessionStartRequest' });

const SessionFields = {
  session_id: z.string(),
  bundle_id: EntityId,
  version_number: EntityId,
  return_to: z.string().nullable(),
  started_by: User,
  started_date: z.iso.datetime(),
  last_activity_date: z.iso.datetime(),
};

export const SessionResponse = z.object(SessionFields).meta({ id: 'AppSession' });
export type SessionResponse = z.infer<typeof SessionResponse>;

export const SessionStarted = z
  .object({
    ...SessionFields,
    sdk_token: z.string().describe('Access token of the app’s SDK user, with the session and app contexts'),
    token_type: z.literal('Bearer'),
    expires_in: z.int(),
    open_url: z
      .string()
      .describe('The app’s entry page, relative to the API’s base path; the SDK token travels in its fragment'),
  })
  .meta({ id: 'AppSessionStarted' });

export const SessionParams = z.strictObject({ bundle_id: IdParameter, session_id: z.string().min(1).max(128) });
export const AssetParams = SessionParams.extend({ asset_name: z.string().min(1).max(128) });

export const RUN_STATUSES = ['COMPLETED', 'FAILED'] as const;

export const RunRequest = z
  .strictObject({
    action: z.string().min(1).max(64).describe('The name of one of the manifest’s run_actions'),
    input: z
      .record(z.string(), z.json())
      .optional()
      .describe('What the action works on, as its kind asks (docs/apps.md); 10-1400 names a field that is wrong'),
  })
  .meta({ id: 'AppRunRequest' });

export const RunResponse = z
  .object({
    run_id: z.string(),
    bundle_id: EntityId,
    session_id: z.string(),
    action: z.string(),
    status: z.enum(RUN_STATUSES),
    result: z.json().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    started_date: z.iso.datetime(),
    ended_date: z.iso.datetime(),
  })
  .meta({ id: 'AppRun' });
export type RunResponse = z.infer<typeof RunResponse>;
export const RunParams = z.strictObject({ bundle_id: IdParameter, run_id: z.string().min(1).max(64) });

/** Largest stored value, as UTF-8 JSON (the {0} of 80-8021). */
export const MAX_VALUE_BYTES = 65_536;

export const ValueParams = z.strictObject({
  bundle_id: IdParameter,
  key: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, {
    error: 'must be 1 to 128 letters, digits, dots, colons, underscores or hyphens',
  }),
});
export const ValuePutRequest = z
  .strictObject({ value: z.json().describe(`Any JSON value of at most ${MAX_VALUE_BYTES} bytes (80-8021)`) })
  .meta({ id: 'AppValuePutRequest' });
export const ValueResponse = z
  .object({ key: z.string(), value: z.json(), last_modified_date: z.iso.datetime() })
  .meta({ id: 'AppValue' });
export type ValueResponse = z.infer<typeof ValueResponse>;
