import { connectionResponse } from '../../shared/connections/response';
import { connectionStore } from '../../shared/connections/store';
import { actorOf } from '../../shared/db/actor';
import { assertSameId } from '../../shared/connections/update';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { connectionRoutes } from './routes';

const MAX_MAPPINGS = 1000;

/** The type mapping: a JSON object of non-empty column names to non-empty type names (30-4009). */
function parseTypeMapping(text: string): Record<string, string> {
  const invalid = (rule: string) => new AppError('30-4009', { extraDetails: { type_mapping: rule } });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('must be a JSON object');
  const entries = Object.entries(parsed);
  if (entries.length > MAX_MAPPINGS) throw invalid(`must map at most ${MAX_MAPPINGS} columns`);
  for (const [column, type] of entries) {
    if (column.trim() === '') throw invalid('column names must not be empty');
    if (typeof type !== 'string' || type.trim() === '')
      throw invalid(`type of column ${JSON.stringify(column)} must be a non-empty string`);
  }
  return Object.fromEntries(entries);
}

export const handler = httpHandler(connectionRoutes.updateTypeMapping, async ({ params, body, principal }) => {
  assertSameId(params.connection_id, body.id);
  const current = await connectionStore.get(principal.tenantId, params.connection_id);
  if (current.data.type !== 'pricing_dim' && current.data.type !== 'pricing_sdk')
    throw new AppError('30-4008', { params: [current.id] });
  const next = {
    ...current.data,
    type_mapping: parseTypeMapping(body.type_mapping),
    type_mapping_name: body.type_mapping_name ?? null,
  };
  return {
    body: connectionResponse(
      await connectionStore.replace(principal.tenantId, actorOf(principal), current, body.lock_version, next),
    ),
  };
});
