/**
 * The README's shell blocks as tests run them: a section's ```sh blocks, and the values a reader
 * copies from `npm start`'s banner replaced by those of the stack under test. Shared by the curl
 * walkthrough (test/integration/readme-walkthrough.test.ts) and the dps one
 * (test/integration/cli/dps.test.ts), so both read the README the same way.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's README.md. */
export const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The ```sh blocks of the README section `heading` (its `## ` line), up to the next section. */
export function readmeShellBlocks(heading: string, readme = readFileSync(README, 'utf8')): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/**
 * `script` with each `NAME=…` line (or `export NAME=…`) of `values` set to this stack's value
 * instead; each must be set exactly once, so a renamed variable fails instead of going unset.
 */
export function withValues(script: string, values: Readonly<Record<string, string>>): string {
  let result = script;
  for (const [name, value] of Object.entries(values)) {
    const assignment = new RegExp(`^(export )?${name}=.*$`, 'gm');
    const found = result.match(assignment) ?? [];
    if (found.length !== 1) throw new Error(`the README's script should set ${name} once, found ${found.length}`);
    result = result.replace(assignment, (_line, exported: string | undefined) => `${exported ?? ''}${name}='${value}'`);
  }
  return result;
}
