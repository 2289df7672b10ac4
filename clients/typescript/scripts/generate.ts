/**
 * `npm run generate-client`: writes the client's generated types from the OpenAPI document the
 * code builds (the same builder GET /openapi.json serves, so no server is needed). The drift
 * test (test/unit/clients/generated.test.ts) renders the same text and compares it with the
 * checked-in files, so a route change without a regeneration fails `npm test`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderGeneratedFiles } from './render';

const folder = fileURLToPath(new URL('../src/generated/', import.meta.url));
for (const [name, text] of Object.entries(await renderGeneratedFiles())) {
  writeFileSync(`${folder}${name}`, text);
  process.stdout.write(`wrote clients/typescript/src/generated/${name} (${text.length} characters)\n`);
}
