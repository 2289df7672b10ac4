/** Builds the dps bundle into clients/cli/dist (build.mjs). */
export function buildCli(): Promise<void>;
