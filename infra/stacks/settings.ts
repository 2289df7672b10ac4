/**
 * Service settings a stage may override. Every function reads them from its environment
 * (shared/config.ts, which also holds the defaults); a stage sets only what differs, e.g. in
 * cdk.json or cdk.context.json:  "context": { "settings": { "TOKEN_TTL_SECONDS": 600 } }.
 * Resource identifiers (TABLE_NAME, key ids, state machine ARNs) are not settings: the stack
 * sets them from the resources it creates.
 */
export const SETTING_NAMES = [
  'TOKEN_ISSUER',
  'TOKEN_AUDIENCE',
  'TOKEN_TTL_SECONDS',
  'ERROR_BASE_URL',
  'OUTBOUND_ALLOW_LIST',
  'CONNECTOR_TIMEOUT_MS',
  'MAX_BODY_BYTES',
] as const;

export type SettingName = (typeof SETTING_NAMES)[number];
export type Settings = Partial<Readonly<Record<SettingName, string>>>;

/** Checks settings given as CDK context (any JSON) and turns their values into strings. */
export function parseSettings(value: unknown): Settings {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') return parseSettings(JSON.parse(value) as unknown);
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('context "settings" must be an object of setting name to value');
  const settings: Partial<Record<SettingName, string>> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (!(SETTING_NAMES as readonly string[]).includes(name)) {
      throw new Error(`unknown setting ${name}; known settings: ${SETTING_NAMES.join(', ')}`);
    }
    if (typeof raw !== 'string' && typeof raw !== 'number' && !Array.isArray(raw)) throw new Error(`setting ${name} must be a string, a number or a list`);
    settings[name as SettingName] = Array.isArray(raw) ? raw.map(String).join(',') : String(raw);
  }
  return settings;
}
