/**
 * The sample app of examples/apps/table-lister as an upload body (POST /apps/bundles/{id}/versions): shared by the
 * app tests (test/integration/apps/app-support.ts) and the job cost bench, which installs it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { RequestBody } from './api-client';

const SAMPLE_APP = new URL('../../examples/apps/table-lister/', import.meta.url);

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
};

export type UploadedFiles = RequestBody<'uploadAppBundleVersion'>['files'];

export function fileOf(path: string, text: string): UploadedFiles[number] {
  const extension = path.slice(path.lastIndexOf('.') + 1);
  return {
    path,
    content_type: MEDIA_TYPES[extension] ?? 'application/octet-stream',
    content_base64: Buffer.from(text).toString('base64'),
  };
}

/** The sample app's files, each as shipped unless `replaced` gives its text (undefined leaves it out). */
export function sampleFiles(replaced: Readonly<Record<string, string | undefined>> = {}): UploadedFiles {
  const shipped = readdirSync(SAMPLE_APP).map((path) => fileOf(path, readFileSync(new URL(path, SAMPLE_APP), 'utf8')));
  const kept = shipped.filter((file) => !(file.path in replaced));
  const added = Object.entries(replaced).flatMap(([path, text]) => (text === undefined ? [] : [fileOf(path, text)]));
  return [...kept, ...added];
}

/** The sample manifest with `changes` merged in, as text. */
export function sampleManifest(changes: Readonly<Record<string, unknown>> = {}): string {
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', SAMPLE_APP), 'utf8')) as Record<string, unknown>;
  return JSON.stringify({ ...manifest, ...changes });
}
