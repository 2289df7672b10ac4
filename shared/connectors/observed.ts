import { isAppError } from '../errors/app-error';
import type { ConnectionType } from '../model/connection';
import { recordConnectorCall } from '../observability/metrics';
import type { PricingConnector } from './pricing/connector';

/**
 * Calls through the connector interface, measured (docs/operations.md, ConnectorCalls and
 * ConnectorLatency): each capability of the interface (testing.ts, tables.ts, target.ts,
 * data-sources/fetch.ts, the browse, query-check and direct-export routes, the transfer's
 * pricing seam) passes its call
 * through here once, for every connector behind it, so no connector measures itself. The
 * outcome is `ok` or the family of the catalogue code the connector failed with (each maps
 * its system's failures to its codes); a failure without one (an abort) is `other`.
 */

/** What was asked of the connector: a property of the line, not a dimension. */
export type ConnectorCallName =
  | 'test'
  | 'browse'
  | 'tables'
  | 'table'
  | 'read'
  | 'write'
  /** A query or a destination checked before it is saved or used. */
  | 'check'
  | `pricing:${string}`;

/** Runs `call` against `connector`'s system and writes its line, whatever the outcome. */
export async function observeConnector<T>(
  connector: ConnectionType,
  call: ConnectorCallName,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  try {
    const result = await work();
    recordConnectorCall({ connector, call, latencyMs: latencyMs() });
    return result;
  } catch (error) {
    recordConnectorCall({ connector, call, latencyMs: latencyMs(), code: isAppError(error) ? error.code : null });
    throw error;
  }
}

/**
 * A pricing connector whose every call is observed as `pricing:<method>`: a transfer talks to
 * the pricing system through this interface only (shared/transfers/pricing.ts).
 */
export function observePricingConnector(type: ConnectionType, connector: PricingConnector): PricingConnector {
  const observed = <R>(name: keyof PricingConnector, call: () => Promise<R>): Promise<R> =>
    observeConnector(type, `pricing:${name}`, call);
  return {
    test: (signal) => observed('test', () => connector.test(signal)),
    describeImport: (destination, signal) =>
      observed('describeImport', () => connector.describeImport(destination, signal)),
    openUpload: (key, destination, columns, signal) =>
      observed('openUpload', () => connector.openUpload(key, destination, columns, signal)),
    sendBatch: (upload, batch, signal) => observed('sendBatch', () => connector.sendBatch(upload, batch, signal)),
    commitUpload: (upload, signal) => observed('commitUpload', () => connector.commitUpload(upload, signal)),
    abortUpload: (upload, signal) => observed('abortUpload', () => connector.abortUpload(upload, signal)),
  };
}
