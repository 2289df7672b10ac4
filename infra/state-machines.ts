/**
 * The state machines of statemachines/*.asl.json, as both CDK and the local twin see them:
 * a name from the file name, the environment variable through which functions learn the
 * machine's ARN, and the placeholders (`${...}`) the definition expects to be filled.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STATE_MACHINES_DIR = fileURLToPath(new URL('../statemachines', import.meta.url));

export interface StateMachineFile {
  /** kebab-case name: the file name without .asl.json. */
  readonly name: string;
  readonly path: string;
  readonly placeholders: readonly string[];
}

export function stateMachineFiles(directory = STATE_MACHINES_DIR): StateMachineFile[] {
  let entries: string[];
  try {
    entries = readdirSync(directory);
  } catch {
    return [];
  }
  return entries
    .filter((file) => file.endsWith('.asl.json'))
    .sort()
    .map((file) => {
      const path = join(directory, file);
      const text = readFileSync(path, 'utf8');
      const placeholders = [...new Set([...text.matchAll(/\$\{([A-Za-z0-9]+)\}/g)].map((match) => match[1]!))];
      return { name: basename(file, '.asl.json'), path, placeholders };
    });
}

/** IMPORT_STATE_MACHINE_ARN for import.asl.json. */
export function stateMachineArnVariable(name: string): string {
  return `${name.toUpperCase().replace(/-/g, '_')}_STATE_MACHINE_ARN`;
}

/** Fills `${Key}` placeholders; a placeholder without a value is a configuration error. */
export function substitute(definition: string, values: Readonly<Record<string, string>>): string {
  return definition.replace(/\$\{([A-Za-z0-9]+)\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`state machine placeholder \${${key}} has no value`);
    return value;
  });
}
