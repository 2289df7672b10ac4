/**
 * The client's generated types are those of the document the code builds: a route or schema
 * changed without `npm run generate-client` fails here, naming the file that drifted.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderGeneratedFiles } from '../../../clients/typescript/scripts/render';

describe('the TypeScript client generated from the OpenAPI document', () => {
  it('is checked in as the document renders it today', async () => {
    const files = await renderGeneratedFiles();
    expect(Object.keys(files).sort()).toEqual(['openapi.d.ts', 'operations.ts']);
    for (const [name, text] of Object.entries(files)) {
      const checkedIn = readFileSync(
        new URL(`../../../clients/typescript/src/generated/${name}`, import.meta.url),
        'utf8',
      );
      // One comparison per file, and a short message: the diff of a 850 kB text helps nobody.
      expect(checkedIn === text, `clients/typescript/src/generated/${name} drifted: run npm run generate-client`).toBe(
        true,
      );
    }
  });
});
