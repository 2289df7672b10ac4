/**
 * Uploads started early (shared/jobs/early-uploads.ts): a failing step waits for every one of
 * them before its clean-up, and one that fails meanwhile is no unhandled rejection.
 */
import { describe, expect, it } from 'vitest';
import { EarlyUploads } from '../../../shared/jobs/early-uploads';

const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('early uploads', () => {
  it('settle only once every upload ended, the slow one included, whatever the others did', async () => {
    const uploads = new EarlyUploads();
    let slowEnded = false;
    uploads.start('data', async () => {
      await after(60);
      slowEnded = true;
    });
    const refused = uploads.start('preview', () => Promise.reject(new Error('refused by the store')));
    await expect(refused).rejects.toThrow('refused by the store');
    expect(slowEnded).toBe(false);
    await uploads.settled();
    expect(slowEnded).toBe(true);
  });

  it('answer an upload by its name, and none for a name never started', async () => {
    const uploads = new EarlyUploads();
    const data = uploads.start('data', () => after(1));
    expect(uploads.started('data')).toBe(data);
    expect(uploads.started('description')).toBeUndefined();
    await data;
  });

  it('leave no unhandled rejection when an upload fails before anyone awaits it', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const uploads = new EarlyUploads();
      uploads.start('schema', () => Promise.reject(new Error('lost')));
      await after(20);
      await uploads.settled();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});
