import type { IdentityProvider } from './identity-provider';
import { StoreIdentityProvider } from './store-provider';

export type { CreatedClient, IdentityProvider } from './identity-provider';

let current: IdentityProvider | undefined;

/** The identity provider of this function: the store-backed one unless a test put another in its place. */
export function identityProvider(): IdentityProvider {
  current ??= new StoreIdentityProvider();
  return current;
}

/**
 * The component's seam: puts `provider` in place for every caller in this process (the twin
 * runs its functions in the test's process) until the returned function restores the previous one.
 */
export function replaceIdentityProvider(provider: IdentityProvider): () => void {
  const previous = identityProvider();
  current = provider;
  return () => {
    current = previous;
  };
}
