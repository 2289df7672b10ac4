/**
 * What the typed client refuses, checked by the type check (`npm run typecheck`), not at run
 * time: each `@ts-expect-error` fails the check if its line stops being an error. Never called.
 */
import type { ApiClient } from './api-client';

export async function refusedCalls(api: ApiClient): Promise<void> {
  // @ts-expect-error: a path parameter is required.
  await api.call('getDataset', {});
  // @ts-expect-error: a path parameter has the schema's name.
  await api.call('getDataset', { params: { id: 1 } });
  // @ts-expect-error: a body field has the schema's type.
  await api.call('createDataset', { body: { name: 7 } });
  // @ts-expect-error: a body has only the schema's fields.
  await api.call('createDataset', { body: { name: 'x', colour: 'red' } });
  // @ts-expect-error: an operation that takes a body needs one.
  await api.call('createDataset', {});
  // @ts-expect-error: options are the parts and the transport details, nothing else.
  await api.call('getDataset', { params: { dataset_id: 1 }, retries: 3 });
  // Path parameters may be written as numbers or text; the transport details are optional.
  await api.call('getDataset', { params: { dataset_id: '1' }, token: null });
}
