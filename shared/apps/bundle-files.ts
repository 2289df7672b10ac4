import { getBytes, putBytes } from '../aws/data-bucket';
import { AppError } from '../errors/app-error';
import { AppManifest } from '../model/app-bundle';
import { backendUrlProblem } from './backend';

/**
 * Where the files of bundle versions live in the data bucket: under the `apps/` prefix, so
 * that the functions that serve them are granted that prefix only (infra), then by tenant:
 * `apps/<tenant>/<bundle id>/v<n>/<file name>`. File names have no folders (AssetName).
 */
function bundlePrefix(tenantId: string, bundleId: number): string {
  return `apps/${tenantId}/${bundleId}/`;
}

function fileKey(tenantId: string, bundleId: number, versionNumber: number, path: string): string {
  return `${bundlePrefix(tenantId, bundleId)}v${versionNumber}/${path}`;
}

export const MANIFEST_FILE = 'manifest.json';

export interface UploadedFile {
  readonly path: string;
  readonly content_type: string;
  readonly content_base64: string;
}

/** Writes the files of a version, as uploaded; answers what the version records of each. */
export async function writeVersionFiles(
  tenantId: string,
  bundleId: number,
  versionNumber: number,
  files: readonly UploadedFile[],
): Promise<{ path: string; content_type: string; size: number }[]> {
  return Promise.all(
    files.map(async (file) => {
      const bytes = Buffer.from(file.content_base64, 'base64');
      await putBytes(fileKey(tenantId, bundleId, versionNumber, file.path), bytes, file.content_type);
      return { path: file.path, content_type: file.content_type, size: bytes.length };
    }),
  );
}

/** The manifest of a version: 80-8037 when missing or invalid, 80-8038 when the bucket fails. */
export async function readManifest(tenantId: string, bundleId: number, versionNumber: number): Promise<AppManifest> {
  const invalid = (reason: string) =>
    new AppError('80-8037', { params: [bundleId, versionNumber], extraDetails: { [MANIFEST_FILE]: reason } });
  let bytes: Uint8Array | undefined;
  try {
    bytes = await getBytes(fileKey(tenantId, bundleId, versionNumber, MANIFEST_FILE));
  } catch (error) {
    throw new AppError('80-8038', { params: [bundleId, versionNumber], cause: error });
  }
  if (bytes === undefined) throw invalid('is missing');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw invalid('is not JSON');
  }
  const parsed = AppManifest.safeParse(json);
  if (!parsed.success)
    throw invalid(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '),
    );
  const backendProblem = parsed.data.backend && backendUrlProblem(parsed.data.backend.base_url);
  if (backendProblem !== undefined) throw invalid(`backend.base_url: ${backendProblem}`);
  return parsed.data;
}

/** An asset's bytes: 80-8033 when the version has no such file, 80-8039 when the bucket fails. */
export async function readAsset(
  tenantId: string,
  bundleId: number,
  versionNumber: number,
  name: string,
): Promise<Uint8Array> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await getBytes(fileKey(tenantId, bundleId, versionNumber, name));
  } catch (error) {
    throw new AppError('80-8039', { params: [name], cause: error });
  }
  if (bytes === undefined) throw new AppError('80-8033', { params: [name] });
  return bytes;
}
