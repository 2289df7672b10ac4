import * as z from 'zod';
import type { Actor } from '../db/actor';
import { StoredActor } from '../db/items';
import { RecordStore } from '../db/record-store';
import { AppError } from '../errors/app-error';
import {
  MAX_LINK_ENTRIES,
  MAX_LINK_TOTAL_LENGTH,
  MAX_LINK_VALUE_LENGTH,
  type LinkResponse,
} from '../model/app-install';

/**
 * The tenant's links (docs/apps.md): its configuration of each provider an app requires,
 * keyed by provider name. An install needs a link for every provider its manifest requires
 * (80-8015).
 */
const StoredLink = z.object({
  link_id: z.string(),
  details: z.record(z.string(), z.string()),
  last_modified_by: StoredActor,
  last_modified_date: z.iso.datetime(),
});
type StoredLink = z.infer<typeof StoredLink>;

const links = new RecordStore({ kind: 'APP_LINK', schema: StoredLink, idOf: (link) => link.link_id });

/** The limits of spec 8 on link details, each broken one named (80-8019). */
export function checkLinkDetails(details: Readonly<Record<string, string>>): void {
  const entries = Object.entries(details);
  const broken: Record<string, string> = {};
  if (entries.length === 0) broken.details = 'must hold at least one entry';
  if (entries.length > MAX_LINK_ENTRIES)
    broken.details = `holds ${entries.length} entries, more than ${MAX_LINK_ENTRIES}`;
  for (const [key, value] of entries)
    if (value.length > MAX_LINK_VALUE_LENGTH)
      broken[`details.${key}`] = `is ${value.length} characters long, more than ${MAX_LINK_VALUE_LENGTH}`;
  const total = entries.reduce((sum, [key, value]) => sum + key.length + value.length, 0);
  if (total > MAX_LINK_TOTAL_LENGTH && broken.details === undefined)
    broken.details = `holds ${total} characters in all, more than ${MAX_LINK_TOTAL_LENGTH}`;
  if (Object.keys(broken).length > 0) throw new AppError('80-8019', { extraDetails: broken });
}

export function linkResponse(link: StoredLink): LinkResponse {
  return link;
}

/** Creates or replaces the link of a provider. */
export async function putLink(
  tenantId: string,
  actor: Actor,
  linkId: string,
  details: Readonly<Record<string, string>>,
): Promise<StoredLink> {
  checkLinkDetails(details);
  const link = {
    link_id: linkId,
    details: { ...details },
    last_modified_by: actor,
    last_modified_date: new Date().toISOString(),
  };
  await links.put(tenantId, link);
  return link;
}

export async function getLink(tenantId: string, linkId: string): Promise<StoredLink> {
  const link = await links.find(tenantId, linkId);
  if (!link) throw new AppError('80-8002', { params: [linkId] });
  return link;
}

export async function deleteLink(tenantId: string, linkId: string): Promise<void> {
  if (!(await links.delete(tenantId, linkId))) throw new AppError('80-8002', { params: [linkId] });
}

export function listLinks(tenantId: string): Promise<StoredLink[]> {
  return links.list(tenantId);
}

/** The providers among `required` that the tenant has no link for. */
export async function unlinkedProviders(tenantId: string, required: readonly string[]): Promise<string[]> {
  const found = await Promise.all(required.map((provider) => links.find(tenantId, provider)));
  return required.filter((_, index) => found[index] === undefined);
}
