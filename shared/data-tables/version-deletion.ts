import { deletePrefix } from '../aws/data-bucket';
import { AppError } from '../errors/app-error';
import { versionPrefix } from './storage';
import { dataVersions } from './versions';

/**
 * The deletion of one data version, as a user's batch delete and the retention sweep both do
 * it: the item first (with its refusals: 20-1024 pinned, 20-1029 running), then its files.
 */
export async function deleteDataVersion(tenantId: string, dataTableId: number, versionNumber: number): Promise<void> {
  await dataVersions.remove(tenantId, dataTableId, versionNumber);
  await removeVersionFiles(tenantId, dataTableId, versionNumber);
}

/**
 * The files of a version whose item is gone; 20-1063 when the bucket refuses. Removing them
 * again is harmless, so a cleanup cut short is finished by running it again.
 */
export async function removeVersionFiles(tenantId: string, dataTableId: number, versionNumber: number): Promise<void> {
  try {
    await deletePrefix(versionPrefix(tenantId, dataTableId, versionNumber));
  } catch (error) {
    throw new AppError('20-1063', { params: [dataTableId, versionNumber], cause: error });
  }
}
