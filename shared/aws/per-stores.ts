/**
 * What a warm function keeps between invocations (SDK clients, what it read from its stores)
 * belongs to the stores its environment names. A deployed function's never change. The local
 * twin's test files share their test process (vitest `isolate: false`), and each starts a twin
 * of its own on new ports with new keys: a value made through `perStores` is made again once
 * the stores the environment names are others, so nothing one twin handed out reaches the next.
 */
const STORE_VARIABLES = [
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_S3',
  'AWS_ENDPOINT_URL_KMS',
  'AWS_ENDPOINT_URL_SFN',
  'AWS_ENDPOINT_URL_ATHENA',
  'AWS_ENDPOINT_URL_GLUE',
  'AWS_ENDPOINT_URL_IAM',
  'AWS_ENDPOINT_URL_STS',
  'AWS_ENDPOINT_URL_SCHEDULER',
  // Not a store, but a client kept for it must follow it all the same: the assistant's model.
  'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
  'TABLE_NAME',
  'DATA_BUCKET',
  'DATA_KEY_ID',
  'SIGNING_KEY_ID',
] as const;

/** The stores the environment names now, as one text: equal texts, the same stores. */
export function storesInUse(): string {
  return STORE_VARIABLES.map((name) => process.env[name] ?? '').join('\n');
}

/**
 * A value made on first use and kept while the environment names the same stores; `discard`
 * is given the value a change of stores replaces (an SDK client's sockets).
 */
export function perStores<T>(make: () => T, discard?: (value: T) => void): () => T {
  let made: { readonly stores: string; readonly value: T } | undefined;
  return () => {
    const stores = storesInUse();
    if (made?.stores !== stores) {
      if (made !== undefined) discard?.(made.value);
      made = { stores, value: make() };
    }
    return made.value;
  };
}
