/**
 * Summary of a V8 CPU profile of the twin (BENCH_CPU_PROF, e.g. the mixed load's): self time by
 * module (a file of this repository, a package of node_modules, or Node's own), by function, and
 * by route, where a sample's stack names a route handler module (functions/<domain>/<name>.ts;
 * code resumed after an await shows only its own async frames, so some samples name no route).
 *
 * `tsx bench/latency-profile.ts <file.cpuprofile> [top]`
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Where a frame's code lives: a repository file, a package, Node itself, or V8's own entries ("(garbage collector)"). */
export function moduleOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packageMatch) return packageMatch[1]!;
  if (url.startsWith('node:')) return url;
  const repository = /\/((?:functions|shared|infra|bench|test)\/.*)$/.exec(url);
  return repository ? repository[1]! : url;
}

const ROUTE_MODULE = /\/functions\/([\w-]+\/[\w-]+)\.ts$/;

/** Self time (ms) by module, by function and by route handler module. */
export function summarise(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const routeOf = new Map<number, string>();
  const route = (id: number): string => {
    const known = routeOf.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const own = ROUTE_MODULE.exec(node.callFrame.url)?.[1];
    const up = parent.get(id);
    const found = own ?? (up === undefined ? '(no route in stack)' : route(up));
    routeOf.set(id, found);
    return found;
  };
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  const modules = new Map<string, number>();
  const functions = new Map<string, number>();
  const routes = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const module = moduleOf(url, functionName);
    total += ms;
    add(modules, module, ms);
    add(functions, `${functionName || '(anonymous)'} ${module}:${lineNumber + 1}`, ms);
    add(routes, route(id), ms);
  });
  return { total, modules, functions, routes };
}

function table(title: string, map: Map<string, number>, total: number, top: number): string[] {
  const rows = [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `### ${title}`,
    '',
    '| self ms | % | |',
    '|--:|--:|---|',
    ...rows.map(([name, ms]) => `| ${ms.toFixed(0)} | ${((100 * ms) / total).toFixed(1)} | ${name} |`),
    '',
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top = '25'] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/latency-profile.ts <file.cpuprofile> [top]');
  const { total, modules, functions, routes } = summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  console.log(
    [
      `${file}: ${total.toFixed(0)} ms sampled`,
      '',
      ...table('Self time by module', modules, total, Number(top)),
      ...table('Self time by function', functions, total, Number(top)),
      ...table('Self time by route (handler module in the stack)', routes, total, Number(top)),
    ].join('\n'),
  );
}
