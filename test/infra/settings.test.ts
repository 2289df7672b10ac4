/**
 * Stage settings against README's Configuration table: every variable it documents is either
 * a setting a stage may set (and is accepted) or a resource the stack sets (and is refused).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS, type Setting } from '../../shared/config';
import { parseSettings } from '../../infra/stacks/settings';

interface DocumentedRow {
  readonly names: readonly string[];
  readonly setByCdk: boolean;
}

function configurationTable(): DocumentedRow[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('\n## Configuration\n');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [variables = '', fallback = ''] = line.split('|').slice(1, 3);
      return {
        names: [...variables.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!),
        setByCdk: fallback.trim() === '(set by CDK)',
      };
    });
}

const rows = configurationTable();
const documentedSettings = rows.filter((row) => !row.setByCdk).flatMap((row) => row.names);
const resources = rows.filter((row) => row.setByCdk).flatMap((row) => row.names);
const declared: Readonly<Record<string, Setting<unknown>>> = SETTINGS;

describe('settings a stage may set', () => {
  it('are read from README', () => {
    expect(documentedSettings).toContain('TOKEN_TTL_SECONDS');
    expect(resources).toContain('TABLE_NAME');
  });

  it.each(documentedSettings)('accepts %s, documented in README, with its default as value', (name) => {
    const setting = declared[name];
    expect(setting, `${name} is documented but not declared in shared/config.ts SETTINGS`).toBeDefined();
    const fallback = setting!.fallback();
    expect(parseSettings({ [name]: fallback })).toEqual({
      [name]: Array.isArray(fallback) ? fallback.join(',') : String(fallback),
    });
  });

  it('are all documented in README', () => {
    expect(Object.keys(SETTINGS).sort()).toEqual([...documentedSettings].sort());
  });

  it.each(resources)('refuses %s, which the stack sets from its resources', (name) => {
    expect(() => parseSettings({ [name]: 'x' })).toThrow(`unknown setting ${name}`);
  });

  it('refuses an unknown setting, naming the known ones', () => {
    expect(() => parseSettings({ TOKEN_LIFETIME: 600 })).toThrow(
      /^unknown setting TOKEN_LIFETIME; known settings: .*TOKEN_TTL_SECONDS/,
    );
  });

  it('refuses a value the functions would refuse, and accepts one they read', () => {
    expect(() => parseSettings({ TOKEN_TTL_SECONDS: 0 })).toThrow(
      'setting TOKEN_TTL_SECONDS must be a positive integer',
    );
    expect(() => parseSettings({ MAX_BODY_BYTES: '1.5' })).toThrow('setting MAX_BODY_BYTES must be a positive integer');
    expect(() => parseSettings({ POWERTOOLS_LOG_LEVEL: 'LOUD' })).toThrow(
      /^setting POWERTOOLS_LOG_LEVEL must be one of .*DEBUG/,
    );
    expect(parseSettings({ POWERTOOLS_LOG_LEVEL: 'debug', JOB_INACTIVITY_SECONDS: 300 })).toEqual({
      POWERTOOLS_LOG_LEVEL: 'debug',
      JOB_INACTIVITY_SECONDS: '300',
    });
  });
});
