/**
 * The bench's generated CSV: `rows` rows of orders-like data (id, name, amount, day, flag,
 * category, comment with quoted delimiters and NULLs), deterministic per row count, written
 * once under os.tmpdir() and reused by later runs.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

/** mulberry32: a small deterministic generator, so every cached file of a row count is the same file. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Margaret',
  'Ken',
  'Dennis',
  'Frances',
  'John',
  'Radia',
  'Tim',
  'Linus',
  'Sophie',
  'Niklaus',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Hamilton',
  'Thompson',
  'Ritchie',
  'Allen',
  'McCarthy',
  'Perlman',
  'Berners-Lee',
  'Wirth',
];
const CATEGORIES = [
  'books',
  'electronics',
  'garden',
  'grocery',
  'health',
  'home',
  'kitchen',
  'music',
  'office',
  'outdoor',
  'sports',
  'toys',
];
const WORDS = [
  'delivered',
  'late',
  'on time',
  'customer',
  'called',
  'about',
  'the',
  'invoice',
  'refund',
  'pending',
  'gift',
  'wrapped',
  'priority',
  'returned',
  'item',
];
const HEADER = 'id,name,amount,day,flag,category,comment';

function csvRow(id: number, next: () => number, days: readonly string[]): string {
  const name = `${FIRST[Math.floor(next() * FIRST.length)]} ${LAST[Math.floor(next() * LAST.length)]}`;
  const amount = ((next() - 0.2) * 10_000).toFixed(2);
  const day = days[Math.floor(next() * days.length)];
  const flag = next() < 0.5 ? 'true' : 'false';
  const category = CATEGORIES[Math.floor(next() * CATEGORIES.length)];
  const kind = next();
  let comment = '';
  // 40% empty (unquoted: NULL), 10% quoted with a delimiter inside, the rest a few words.
  if (kind >= 0.4) {
    const words = Array.from(
      { length: 2 + Math.floor(next() * 5) },
      () => WORDS[Math.floor(next() * WORDS.length)],
    ).join(' ');
    comment = kind < 0.5 ? `"${words}, see note ${id % 997}"` : words;
  }
  return `${id},${name},${amount},${day},${flag},${category},${comment}\n`;
}

/** The bench CSV of `rows` rows under os.tmpdir(), generated once; written under a temporary name, so a partial file is never reused. */
export async function ensureCsv(rows: number): Promise<{ path: string; bytes: number; reused: boolean }> {
  const path = join(tmpdir(), `dps-bench-import-${rows}.csv`);
  if (existsSync(path)) return { path, bytes: (await stat(path)).size, reused: true };
  const partial = `${path}.${process.pid}.partial`;
  const next = random(rows);
  const start = Date.UTC(2020, 0, 1);
  const days = Array.from({ length: 5 * 365 }, (_, index) =>
    new Date(start + index * 86_400_000).toISOString().slice(0, 10),
  );
  const out = createWriteStream(partial);
  try {
    const chunks = async function* () {
      yield `${HEADER}\n`;
      for (let from = 1; from <= rows; from += 10_000) {
        let chunk = '';
        for (let id = from; id < Math.min(rows + 1, from + 10_000); id++) chunk += csvRow(id, next, days);
        yield chunk;
      }
    };
    await pipeline(chunks, out);
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return { path, bytes: (await stat(path)).size, reused: false };
}
