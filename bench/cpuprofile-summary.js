'use strict';
/**
 * Summarises a `.cpuprofile` (node --cpu-prof) as costs per request: self and total time per
 * function and self time per origin (a package in node_modules, a file of ours, Node's own
 * code, the garbage collector), in µs per request.
 *
 *   node bench/cpuprofile-summary.js <file.cpuprofile> [--window <from>:<to>] [--requests <n>]
 *        [--top <n>] [--json]
 *
 * `--window` keeps only the samples between two instants of the monotonic clock in µs, as
 * `process.hrtime.bigint() / 1000n` gives them in any process on the machine (V8's profile
 * clock is the same CLOCK_MONOTONIC): bench:api prints the window of each measured round with
 * the requests the service answered in it, so start-up, seeding and warm-up are left out.
 * Without `--requests` the figures are µs in total. Plain Node, no dependencies.
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');

function parseArgs(argv) {
  const options = { file: undefined, from: -Infinity, to: Infinity, requests: 0, top: 25 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--window') {
      const [from, to] = argv[++i].split(':').map(Number);
      options.from = from;
      options.to = to;
    } else if (arg === '--requests') options.requests = Number(argv[++i]);
    else if (arg === '--top') options.top = Number(argv[++i]);
    else if (arg === '--json') options.json = true;
    else options.file = arg;
  }
  if (options.file === undefined) {
    throw new Error(
      'usage: cpuprofile-summary.js <file.cpuprofile> [--window from:to] [--requests n]',
    );
  }
  return options;
}

/** Where a frame's code comes from: a package, a file of ours, Node, or V8's own pseudo-frames. */
function originOf(url) {
  if (url === '') return '(v8)';
  if (url.startsWith('node:')) return 'node (internal)';
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = path.slice(modules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  return path.startsWith(ROOT) ? path.slice(ROOT.length + 1) : path;
}

function frameName(node) {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName === '' ? '(anonymous)' : functionName;
  if (url === '') return name;
  const origin = originOf(url);
  const file = url
    .replace(/^file:\/\//, '')
    .split('/')
    .pop();
  return `${name} ${origin.endsWith(file) ? origin : `${origin} ${file}`}:${lineNumber + 1}`;
}

function summarise(profile, { from, to, requests, top }) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map();
  const total = new Map();
  const origins = new Map();
  let busy = 0;
  let idle = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    at += us;
    if (at < from || at > to) return;
    const node = byId.get(id);
    const name = frameName(node);
    if (name === '(idle)') {
      idle += us;
      return;
    }
    busy += us;
    self.set(name, (self.get(name) ?? 0) + us);
    const origin = originOf(node.callFrame.url);
    const originName = origin === '(v8)' ? name : origin;
    origins.set(originName, (origins.get(originName) ?? 0) + us);
    // Total: each function once per sample, however deep it recurses.
    const seen = new Set();
    for (let cursor = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = frameName(byId.get(cursor));
      if (frame === '(root)' || seen.has(frame)) continue;
      seen.add(frame);
      total.set(frame, (total.get(frame) ?? 0) + us);
    }
  });

  const per = (us) => (requests > 0 ? us / requests : us);
  const rank = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, us: per(us), share: busy === 0 ? 0 : us / busy }));
  return {
    unit: requests > 0 ? 'µs per request' : 'µs',
    requests,
    windowMs: (Math.min(to, profile.endTime) - Math.max(from, profile.startTime)) / 1000,
    busy: per(busy),
    idleMs: idle / 1000,
    origins: rank(origins),
    self: rank(self),
    total: rank(total),
  };
}

function print(summary) {
  const line = (row) =>
    `${row.us.toFixed(1).padStart(9)}  ${(100 * row.share).toFixed(1).padStart(5)} %  ${row.name}`;
  console.log(
    `window ${summary.windowMs.toFixed(0)} ms, ${summary.requests || 'no'} requests; main thread busy ${summary.busy.toFixed(1)} ${summary.unit} (idle ${summary.idleMs.toFixed(0)} ms)`,
  );
  for (const [title, rows] of [
    ['self time by origin', summary.origins],
    ['self time by function', summary.self],
    ['total time by function (callees included)', summary.total],
  ]) {
    console.log(`\n${title} (${summary.unit}, share of busy time)`);
    for (const row of rows) console.log(line(row));
  }
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const profile = JSON.parse(readFileSync(options.file, 'utf8'));
  const summary = summarise(profile, options);
  if (options.json) console.log(JSON.stringify(summary, null, 2));
  else print(summary);
}

if (require.main === module) main();

module.exports = { summarise };
