import { config } from '../config';
import { AppError } from '../errors/app-error';
import { dailyUsage, recordUsage, usagePeriod } from '../usage';

/**
 * The tenant's model tokens per UTC day (ASSISTANT_MAX_TOKENS_PER_TENANT_DAY), counted in the
 * usage counters every model call adds to. A message is refused once the day's count has
 * reached the bound (a message under way may finish past it: its own bound,
 * ASSISTANT_MAX_TOKENS_PER_MESSAGE, caps how far). No catalogue 4xx says "model allowance
 * used up", so the refusal is 10-1501 naming ai_assistant, with what was used and when the
 * allowance renews (docs/assistant.md).
 */

const METRIC = 'ASSISTANT_TOKENS';

/** The next UTC midnight after `now`, ISO 8601. */
function nextUtcDay(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
}

/** Refuses (10-1501 naming ai_assistant) when the tenant used its tokens of today. */
export async function requireTokensLeft(tenantId: string, now = new Date()): Promise<void> {
  const today = usagePeriod(now);
  const used = (await dailyUsage(tenantId, METRIC, today, nextUtcDay(now).slice(0, 10))).get(today) ?? 0;
  const limit = config.assistant.maxTokensPerTenantDay;
  if (used < limit) return;
  throw new AppError('10-1501', {
    params: ['ai_assistant'],
    extraDetails: {
      reason: 'the tenant’s model tokens of this UTC day are used up',
      tokens_used_today: used,
      daily_token_limit: limit,
      renews_at: nextUtcDay(now),
    },
  });
}

/** Counts tokens a model call used against the tenant's day. */
export function recordTokens(tenantId: string, tokens: number): Promise<void> {
  return recordUsage(tenantId, METRIC, tokens);
}
