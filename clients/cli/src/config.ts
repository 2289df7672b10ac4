/**
 * Where dps finds the service and its credentials, as the AWS CLI does: named profiles in a
 * config file (DPS_CONFIG, else ~/.config/dps/config.json, written with mode 600) and the
 * environment (DPS_BASE_URL, DPS_CLIENT_ID, DPS_CLIENT_SECRET, DPS_PROFILE). A profile named
 * by --profile wins over the environment; without one the environment wins over the default
 * profile. Secrets are never taken from the command line: a value there stays in the shell's
 * history and in every process listing.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from './spec';

export interface Profile {
  readonly base_url?: string;
  readonly client_id?: string;
  readonly client_secret?: string;
}

export interface ConfigFile {
  readonly profiles: Readonly<Record<string, Profile>>;
}

export interface Resolved {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly profile: string;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000/api/data/v1';

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.DPS_CONFIG ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'dps', 'config.json');
}

export async function readConfig(path = configPath()): Promise<ConfigFile> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<ConfigFile>;
    return { profiles: parsed.profiles ?? {} };
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return { profiles: {} };
    throw new UsageError(`cannot read the config file ${path}: ${(error as Error).message}`);
  }
}

/** Writes one profile, keeping the others; the file is readable by its owner only. */
export async function writeProfile(name: string, profile: Profile, path = configPath()): Promise<void> {
  const config = await readConfig(path);
  const next: ConfigFile = { profiles: { ...config.profiles, [name]: { ...config.profiles[name], ...profile } } };
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
}

/** The service and credentials to use, or a usage error saying what is missing and where it may come from. */
export async function resolve(
  options: { profile?: string; baseUrl?: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<Resolved> {
  const named = options.profile ?? env.DPS_PROFILE;
  const name = named ?? 'default';
  const config = await readConfig(configPath(env));
  const profile = config.profiles[name];
  if (named !== undefined && profile === undefined)
    throw new UsageError(`no profile ${name} in ${configPath(env)} (dps configure --profile ${name})`);
  const fromEnv: Profile = {
    ...(env.DPS_BASE_URL ? { base_url: env.DPS_BASE_URL } : {}),
    ...(env.DPS_CLIENT_ID ? { client_id: env.DPS_CLIENT_ID } : {}),
    ...(env.DPS_CLIENT_SECRET ? { client_secret: env.DPS_CLIENT_SECRET } : {}),
  };
  const merged: Profile = named !== undefined ? { ...fromEnv, ...profile } : { ...profile, ...fromEnv };
  const baseUrl = options.baseUrl ?? merged.base_url ?? DEFAULT_BASE_URL;
  if (!merged.client_id || !merged.client_secret)
    throw new UsageError(
      'no credentials: set DPS_CLIENT_ID and DPS_CLIENT_SECRET, or run dps configure (the secret is read from stdin or a prompt)',
    );
  return { baseUrl, clientId: merged.client_id, clientSecret: merged.client_secret, profile: name };
}
