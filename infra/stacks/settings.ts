import { SETTINGS, type SettingName } from '../../shared/config';

/**
 * Service settings a stage overrides. Which settings exist, their defaults and their rules are
 * declared once, in shared/config.ts (SETTINGS), which every function reads; a stage sets only
 * what differs, e.g. in cdk.json or cdk.context.json:
 * "context": { "settings": { "TOKEN_TTL_SECONDS": 600 } }. A name not declared there, or a
 * value the function would refuse at its first request, is refused here, at synth.
 */
export type Settings = Partial<Readonly<Record<SettingName, string>>>;

const isSettingName = (name: string): name is SettingName => Object.hasOwn(SETTINGS, name);

/** Checks settings given as CDK context (any JSON) and turns their values into strings. */
export function parseSettings(value: unknown): Settings {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') return parseSettings(JSON.parse(value) as unknown);
  if (typeof value !== 'object' || Array.isArray(value))
    throw new Error('context "settings" must be an object of setting name to value');
  const settings: Partial<Record<SettingName, string>> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (!isSettingName(name))
      throw new Error(`unknown setting ${name}; known settings: ${Object.keys(SETTINGS).join(', ')}`);
    if (typeof raw !== 'string' && typeof raw !== 'number' && !Array.isArray(raw))
      throw new Error(`setting ${name} must be a string, a number or a list`);
    const text = Array.isArray(raw) ? raw.map(String).join(',') : String(raw);
    try {
      SETTINGS[name].parse(text);
    } catch (error) {
      throw new Error(`setting ${name} ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    settings[name] = text;
  }
  return settings;
}
