/**
 * The pricing system `npm start` runs beside the demo bucket, so the README's walkthrough has a
 * DIM to transfer a table to: the protocol fake the tests use too (fakes/pricing-dim.ts), with
 * its OAuth token server, both on 127.0.0.1 only.
 */
import { startPricingDim, type PricingDimFake } from './fakes/pricing-dim';

/** The client the demo token server knows; the banner prints it for the connection. */
export const DEMO_PRICING_CLIENT = {
  clientId: 'demo-pricing-client',
  clientSecret: 'demo-pricing-secret',
  scope: 'pricing.import',
} as const;

/**
 * Starts the demo DIM on `port` and its token server on `tokenPort` (0: a free one each);
 * fixed ports keep a stored connection's host and token URL valid across restarts.
 */
export function startPricingDemo(port: number, tokenPort: number): Promise<PricingDimFake> {
  return startPricingDim({ ...DEMO_PRICING_CLIENT, port, tokenPort });
}
