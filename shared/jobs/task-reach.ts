import type { ConnectionData } from '../connections/items';
import { config } from '../config';
import { hostOf, portOf } from '../connectors/outbound-guard';
import { awsS3RegionOf } from '../connectors/object-store/endpoint';
import { validationError } from '../errors/app-error';
import type { LaunchMode } from '../model/job';

/**
 * What an engine job's Fargate task can reach (docs/decisions.md, "Fargate tasks and systems
 * outside the stage"). The engine VPC has isolated subnets and endpoints for the stage's AWS
 * services only (infra/stacks/engine-tasks.ts): no NAT, no route out. A Lambda worker reaches
 * the Internet; a task reaches the stage's S3 (any bucket of its region, through the S3 gateway
 * endpoint) and what FARGATE_TASK_OUTBOUND names, where a stage that gives its tasks a route out
 * (a NAT, a peering, a private link) says so. A job that reads or writes anything else would
 * fail on a task only once its connector tries, so it never goes there: the starter weighs the
 * systems it calls with `launchReaching`.
 */

/** A system outside the stage that a job calls: what a refusal names, and the hosts it calls. */
export interface OutsideSystem {
  /** "connection 12 (warehouse)", "the endpoint https://minio.example:9000", as a person reads it. */
  readonly what: string;
  /**
   * Every `host:port` its connector calls; empty when they are not all known from what is
   * stored (a Snowflake driver's own endpoints, Google's token servers, a Delta Sharing
   * profile's server sealed in its secret): then only `*` reaches it.
   */
  readonly hosts: readonly string[];
}

const hostPort = (url: URL) => `${hostOf(url).toLowerCase()}:${portOf(url)}`;

/** A URL or host field as stored: `https://h:p/…`, or a bare `h[:p]` (https); undefined when unreadable. */
function destination(raw: string | null | undefined): URL | undefined {
  if (!raw) return undefined;
  try {
    return new URL(raw.includes('://') ? raw : `https://${raw}`);
  } catch {
    return undefined;
  }
}

/**
 * True for the stage's own S3: on AWS a bucket host of its region (the S3 gateway endpoint
 * carries it; other regions go through the Internet), on the twin its S3 stand-in.
 */
function stageS3(url: URL): boolean {
  const twinS3 = destination(process.env.AWS_ENDPOINT_URL_S3);
  if (twinS3 !== undefined) return hostPort(twinS3) === hostPort(url);
  const region = awsS3RegionOf(hostOf(url));
  return region !== undefined && region === process.env.AWS_REGION;
}

/** The S3-compatible endpoints or pre-signed URLs a job calls, less those of the stage's S3. */
export function endpointSystems(urls: readonly string[]): OutsideSystem[] {
  return urls.flatMap((raw) => {
    const url = destination(raw);
    if (url !== undefined && stageS3(url)) return [];
    return [{ what: `the endpoint ${url?.origin ?? raw}`, hosts: url === undefined ? [] : [hostPort(url)] }];
  });
}

/** The systems a connection's connector calls outside the stage (none for an object store on the stage's S3). */
export function connectionSystems(connection: { readonly id: number; readonly data: ConnectionData }): OutsideSystem[] {
  const { type, auth } = connection.data;
  switch (type) {
    case 'object_store':
      return endpointSystems([auth.endpoint ?? '']);
    case 'pricing_dim':
    case 'pricing_sdk': {
      // The pricing connectors call their host and its token server, nothing else.
      const urls = [destination(auth.host), destination(auth.token_url)];
      const hosts = urls.every((url) => url !== undefined) ? urls.map(hostPort) : [];
      return [{ what: `connection ${connection.id} (${type})`, hosts }];
    }
    default:
      return [{ what: `connection ${connection.id} (${type})`, hosts: [] }];
  }
}

function reachable(system: OutsideSystem, outbound: readonly string[]): boolean {
  if (outbound.includes('*')) return true;
  return (
    system.hosts.length > 0 &&
    system.hosts.every((host) => outbound.includes(host) || outbound.includes(host.slice(0, host.lastIndexOf(':'))))
  );
}

/**
 * The launch mode of a job that cannot run on a Fargate task when `why` says why (undefined
 * when it can): `auto` stays on Lambda, a forced `fargate` is 10-1400 naming `launch` and why,
 * before anything is written; otherwise the mode asked.
 */
export function launchOffTasks(mode: LaunchMode, why: string | undefined): LaunchMode {
  if (mode === 'lambda' || why === undefined) return mode;
  if (mode === 'fargate') throw validationError({ launch: `cannot be fargate: ${why}; use auto or lambda` });
  return 'lambda';
}

/**
 * The launch mode of a job that calls `systems`, given what the caller asked: unchanged when a
 * task reaches them all; otherwise as launchOffTasks, naming the system.
 */
export function launchReaching(mode: LaunchMode, systems: readonly OutsideSystem[]): LaunchMode {
  if (mode === 'lambda') return mode;
  const outbound = config.fargateTaskOutbound.map((entry) => entry.toLowerCase());
  const unreachable = systems.find((system) => !reachable(system, outbound));
  return launchOffTasks(
    mode,
    unreachable &&
      `the job calls ${unreachable.what}, which this stage's Fargate tasks cannot reach (FARGATE_TASK_OUTBOUND)`,
  );
}
