/**
 * What the soak measures of the twin, from outside its process: resident memory and open file
 * descriptors (/proc/<pid>), the entries of its temporary folder (the local S3's store, and the
 * scratch folders jobs and analyses make there), and the items of its table by kind.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { DynamoDBClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import { LOCAL_S3_CREDENTIALS } from '../../infra/local/s3';

export interface Sample {
  /** Seconds since the traffic started (negative: before it). */
  readonly atSeconds: number;
  readonly label: string;
  /** Resident memory of the twin's process and of its descendants (engine processes) together. */
  readonly rssMb: number;
  /** Processes the twin runs besides itself (engine processes), at any depth. */
  readonly children: number;
  /** Open file descriptors of the twin's process. */
  readonly fds: number;
  /**
   * Scratch folders: the entries of the job workers' scratch root, and those of the twin's
   * temporary folder that were not there at the start (an analysis's own folder).
   */
  readonly scratchFolders: number;
  readonly scratchMb: number;
  /** Size of what was in the temporary folder at the start but the scratch root: the local S3's store. */
  readonly storeMb: number;
  readonly items: number;
  /** Items by tenant and kind (itemKind), for saying which grows. */
  readonly itemsByTenant: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

const MB = 1024 * 1024;

/** Resident set size of `pid`, in MB (VmRSS of /proc/<pid>/status; none for a zombie); throws when the process is gone. */
async function residentMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
  return kilobytes / 1024;
}

/** `pid` and its descendants, found through every process's parent in /proc/<pid>/stat. */
export async function processTree(pid: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The parent is the second field after the command, which is in parentheses and may hold spaces.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)]);
  }
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1) tree.push(...(parents.get(tree[index]!) ?? []));
  return tree;
}

/** Resident memory of `pid` and its descendants, in MB; throws when `pid` is gone (a descendant may go meanwhile). */
export async function treeResidentMb(pid: number): Promise<{ readonly rssMb: number; readonly children: number }> {
  const [, ...children] = await processTree(pid);
  const own = await residentMb(pid);
  const theirs = await Promise.all(children.map((child) => residentMb(child).catch(() => 0)));
  return { rssMb: theirs.reduce((sum, rss) => sum + rss, own), children: children.length };
}

/** The State and Threads lines of /proc/<pid>/status ("S (sleeping), 23 threads"); undefined once the process is gone. */
export async function processState(pid: number): Promise<string | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const line = (name: string) => new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(status)?.[1] ?? '?';
    return `${line('State')}, ${line('Threads')} threads`;
  } catch {
    return undefined;
  }
}

async function openFds(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`)).length;
}

/** Bytes under `path`, which may vanish while it is walked (a scratch folder being removed). */
async function sizeOf(path: string): Promise<number> {
  try {
    const info = await stat(path);
    if (!info.isDirectory()) return info.size;
    const entries = await readdir(path);
    let total = 0;
    for (const entry of entries) total += await sizeOf(join(path, entry));
    return total;
  } catch {
    return 0;
  }
}

/**
 * The tenant and kind an item's partition key names (shared/db/keys.ts): `T#<tenant>#<KIND>`
 * for entities and jobs, `…#<KIND>#<id>` for an entity's children, `…#<KIND>#NAME` for name claims.
 */
export function itemKind(pk: string): { readonly tenant: string; readonly kind: string } {
  const [, tenant = '?', kind = pk, qualifier] = pk.split('#');
  if (qualifier === undefined) return { tenant, kind };
  return { tenant, kind: /^\d+$/.test(qualifier) ? `${kind} children` : `${kind} ${qualifier.toLowerCase()}` };
}

/** The longest a page of the Scan may take: a twin that stopped answering must not stop the soak too. */
const SCAN_PAGE_MS = 20_000;

/** Items by tenant and kind, from every item's partition key (a Scan projecting only that key). */
async function itemsByTenant(
  dynamo: DynamoDBClient,
  tableName: string,
): Promise<Record<string, Record<string, number>>> {
  const counts: Record<string, Record<string, number>> = {};
  let cursor: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page = await dynamo.send(
      new ScanCommand({ TableName: tableName, ProjectionExpression: 'pk', ExclusiveStartKey: cursor }),
      { abortSignal: AbortSignal.timeout(SCAN_PAGE_MS) },
    );
    for (const item of page.Items ?? []) {
      const { tenant, kind } = itemKind(item.pk?.S ?? '?');
      const ofTenant = (counts[tenant] ??= {});
      ofTenant[kind] = (ofTenant[kind] ?? 0) + 1;
    }
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return counts;
}

export interface TwinProbe {
  sample(label: string, atSeconds: number): Promise<Sample>;
  close(): void;
}

/** A probe of the twin process `pid` whose temporary folder is `tmp`; the entries there now are its store. */
export async function probeTwin(options: {
  readonly pid: number;
  readonly tmp: string;
  /** The workers' scratch root, inside `tmp`. */
  readonly scratchRoot: string;
  readonly dynamoEndpoint: string;
  readonly tableName: string;
}): Promise<TwinProbe> {
  const rootName = relative(options.tmp, options.scratchRoot);
  const store = new Set((await readdir(options.tmp)).filter((entry) => entry !== rootName));
  const dynamo = new DynamoDBClient({
    endpoint: options.dynamoEndpoint,
    region: 'us-east-1',
    credentials: LOCAL_S3_CREDENTIALS,
  });
  return {
    async sample(label, atSeconds) {
      const [{ rssMb, children }, fds, entries, jobFolders, byTenant] = await Promise.all([
        treeResidentMb(options.pid),
        openFds(options.pid),
        readdir(options.tmp),
        readdir(options.scratchRoot),
        itemsByTenant(dynamo, options.tableName),
      ]);
      const scratch = [
        ...entries.filter((entry) => !store.has(entry) && entry !== rootName),
        ...jobFolders.map((entry) => join(rootName, entry)),
      ];
      const sizes = async (names: readonly string[]) =>
        (await Promise.all(names.map((name) => sizeOf(join(options.tmp, name))))).reduce((sum, size) => sum + size, 0);
      return {
        atSeconds,
        label,
        rssMb,
        children,
        fds,
        scratchFolders: scratch.length,
        scratchMb: (await sizes(scratch)) / MB,
        storeMb: (await sizes([...store])) / MB,
        items: Object.values(byTenant)
          .flatMap((kinds) => Object.values(kinds))
          .reduce((sum, count) => sum + count, 0),
        itemsByTenant: byTenant,
      };
    },
    close: () => dynamo.destroy(),
  };
}
