/**
 * Compares two V8 heap snapshots of the SAME process (issue 41, item 5: what the soak's processes keep;
 * docs/operations.md "The soak", decision 715):
 *
 *   SOAK_NODE_OPTIONS="--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=/tmp/soak-heap" npm run soak
 *   kill -USR2 <pid>   # early (minute 5), and again near the end: two .heapsnapshot files in /tmp/soak-heap
 *   node --max-old-space-size=4096 bench/heap-diff.mjs <early>.heapsnapshot <late>.heapsnapshot [top=25] [paths=8]
 *
 * A .heapsnapshot is JSON: snapshot.meta names the fields of the flat `nodes` array (type, name, id,
 * self_size, edge_count, …) and of the flat `edges` array (type, name_or_index, to_node); names are
 * indices into `strings`. Objects are grouped the way DevTools' "Summary" groups them: an object by its
 * constructor's name, a closure by its function's name, strings, arrays, code and V8's own objects by
 * their type. It prints, per group, the count and self size in each snapshot and the growth, sorted by
 * growth of the size; and "new": the objects of the group in the late snapshot whose id was not in the
 * early one (V8's snapshot ids are stable within one process, so these were allocated between the two
 * snapshots and are still alive).
 *
 * Then, for the top `paths` groups by growth, who keeps the new objects: each new object's shortest path
 * from the GC roots (breadth first, weak edges not followed, as DevTools' "distance"), written as
 * `(GC roots) → … → Map .table → [12] → Object`, the paths counted after dropping element indices, and
 * the three commonest shown with their share; and their owners (the first object up the path that is not a
 * container or V8's own, or the closure variable), counted. The owner is usually the last named object or closure
 * context before the array/table that grows (e.g. `system / Context ::memo` = the module variable
 * `memo`).
 *
 * Snapshots are large (100–300 MB for an 80 MB heap): write them under /tmp, never into git.
 */
import fs from "node:fs";

const [fileA, fileB, topArg, pathsArg] = process.argv.slice(2);
if (!fileA || !fileB) {
  console.error("usage: node --max-old-space-size=4096 bench/heap-diff.mjs <early.heapsnapshot> <late.heapsnapshot> [top=25] [paths=8]");
  process.exit(2);
}
const TOP = Number(topArg || 25);
const PATHS = Number(pathsArg || 8);

function load(file) {
  const json = JSON.parse(fs.readFileSync(file, "utf8"));
  const meta = json.snapshot.meta;
  const nf = meta.node_fields;
  const ef = meta.edge_fields;
  const snap = {
    file,
    nodes: json.nodes,
    edges: json.edges,
    strings: json.strings,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    NF: nf.length,
    EF: ef.length,
    nType: nf.indexOf("type"),
    nName: nf.indexOf("name"),
    nId: nf.indexOf("id"),
    nSize: nf.indexOf("self_size"),
    nEdges: nf.indexOf("edge_count"),
    eType: ef.indexOf("type"),
    eName: ef.indexOf("name_or_index"),
    eTo: ef.indexOf("to_node"),
  };
  snap.count = snap.nodes.length / snap.NF;
  // First edge of each node (edges are stored node after node).
  snap.firstEdge = new Uint32Array(snap.count + 1);
  for (let i = 0, e = 0; i < snap.count; i++) {
    snap.firstEdge[i] = e;
    e += snap.nodes[i * snap.NF + snap.nEdges] * snap.EF;
    snap.firstEdge[i + 1] = e;
  }
  return snap;
}

const typeOf = (s, i) => s.nodeTypes[s.nodes[i * s.NF + s.nType]];
const nameOf = (s, i) => s.strings[s.nodes[i * s.NF + s.nName]];
const idOf = (s, i) => s.nodes[i * s.NF + s.nId];
const sizeOf = (s, i) => s.nodes[i * s.NF + s.nSize];

/** The group an object is counted in (DevTools' Summary, with closures and arrays named). */
function groupOf(s, i) {
  const type = typeOf(s, i);
  const name = nameOf(s, i);
  switch (type) {
    case "object":
    case "native":
      return name.length > 80 ? `${name.slice(0, 77)}…` : name;
    case "closure":
      return `closure ${name || "(anonymous)"}`;
    case "string":
    case "concatenated string":
    case "sliced string":
      return "(string)";
    case "array":
      return `(array) ${name}`;
    case "code":
      // V8's own kinds (bytecode, feedback vectors, …) apart; a function's machine code as one group.
      return name.startsWith("system / ") ? `(compiled code) ${name}` : "(compiled code)";
    case "hidden":
    case "synthetic":
    case "object shape":
      return `(${type}) ${name.length > 60 ? `${name.slice(0, 57)}…` : name}`;
    default:
      return `(${type})`;
  }
}

/** Self sizes by V8's node type (code, string, object, …): the first table printed. */
function byType(s) {
  const types = new Map();
  for (let i = 0; i < s.count; i++) types.set(typeOf(s, i), (types.get(typeOf(s, i)) ?? 0) + sizeOf(s, i));
  return types;
}

function summarise(s) {
  const groups = new Map();
  for (let i = 0; i < s.count; i++) {
    const g = groupOf(s, i);
    let v = groups.get(g);
    if (!v) groups.set(g, (v = { count: 0, size: 0 }));
    v.count++;
    v.size += sizeOf(s, i);
  }
  return groups;
}

// ---- shortest paths from the roots, and owners ------------------------------------------------------
/** Breadth first from the root over strong edges: each object's parent and the edge from it. */
function shortestPaths(S) {
  const weak = S.edgeTypes.indexOf("weak");
  const shortcut = S.edgeTypes.indexOf("shortcut");
  const parent = new Int32Array(S.count).fill(-1);
  const parentEdge = new Int32Array(S.count).fill(-1);
  const order = new Int32Array(S.count);
  parent[0] = 0;
  let head = 0;
  let tail = 0;
  order[tail++] = 0;
  while (head < tail) {
    const i = order[head++];
    for (let e = S.firstEdge[i]; e < S.firstEdge[i + 1]; e += S.EF) {
      const et = S.edges[e + S.eType];
      if (et === weak || et === shortcut) continue;
      const to = S.edges[e + S.eTo] / S.NF;
      if (parent[to] !== -1) continue;
      parent[to] = i;
      parentEdge[to] = e;
      order[tail++] = to;
    }
  }
  return { parent, parentEdge, order: order.subarray(0, tail) };
}

function edgeLabelIn(S, e) {
  const et = S.edgeTypes[S.edges[e + S.eType]];
  const n = S.edges[e + S.eName];
  if (et === "element" || et === "hidden") return `[${n}]`;
  const name = S.strings[n];
  if (et === "context") return `::${name}`;
  if (et === "internal") return `.(${name})`;
  return `.${name}`;
}
function nodeLabelIn(S, i) {
  const type = typeOf(S, i);
  let name = nameOf(S, i);
  if (type === "string" || type === "concatenated string" || type === "sliced string") name = JSON.stringify(name.slice(0, 40));
  else if (name.length > 60) name = `${name.slice(0, 57)}…`;
  return type === "object" ? name : `${type} ${name}`;
}

/**
 * The owner of each object: going up its shortest path from the roots, the first object that is not a
 * container (Object, Array, Map, Set, V8's arrays, shapes and code) with the edge leaving it towards the
 * object (e.g. `SiteCache .lastGood`), or the closure variable holding it (`Context ::memo`). Computed
 * in breadth-first order, so a parent's owner is known first. Returns owner label per object and the
 * count and self size per owner.
 */
const CONTAINERS = new Set(["Object", "Array", "Map", "Set", "WeakMap", "WeakSet", "Generator", "Promise", "ArrayBuffer", "Buffer", "Uint8Array"]);
function owners(S, paths) {
  const { parent, parentEdge, order } = paths;
  const ownerOfNode = new Array(S.count);
  ownerOfNode[0] = "(root)";
  const totals = new Map();
  for (let k = 1; k < order.length; k++) {
    const i = order[k];
    const p = parent[i];
    const label = edgeLabelIn(S, parentEdge[i]);
    const type = typeOf(S, p);
    const name = nameOf(S, p);
    let o;
    if (label.startsWith("::")) o = `Context ${label}`;
    else if ((type === "object" || type === "closure" || type === "native") && !CONTAINERS.has(name) && !name.startsWith("system / ")) o = `${nodeLabelIn(S, p)} ${label}`;
    else o = ownerOfNode[p];
    ownerOfNode[i] = o;
    let t = totals.get(o);
    if (!t) totals.set(o, (t = { count: 0, size: 0 }));
    t.count++;
    t.size += sizeOf(S, i);
  }
  return { ownerOfNode, totals };
}

const t0 = Date.now();
const A = load(fileA);
const sumA = summarise(A);
const idsA = new Set();
for (let i = 0; i < A.count; i++) idsA.add(idOf(A, i));
const totalA = [...sumA.values()].reduce((t, v) => t + v.size, 0);
const ownersA = owners(A, shortestPaths(A)).totals;
const typesA = byType(A);
// Free the early snapshot's arrays before loading the late one.
A.nodes = A.edges = A.strings = null;
const B = load(fileB);
const sumB = summarise(B);
const totalB = [...sumB.values()].reduce((t, v) => t + v.size, 0);
const fresh = new Map();
for (let i = 0; i < B.count; i++) {
  if (idsA.has(idOf(B, i))) continue;
  const g = groupOf(B, i);
  let v = fresh.get(g);
  if (!v) fresh.set(g, (v = { count: 0, size: 0, nodes: [] }));
  v.count++;
  v.size += sizeOf(B, i);
  v.nodes.push(i);
}

const mb = (b) => (b / 1048576).toFixed(2);
const kb = (b) => (b / 1024).toFixed(1);
console.log(`early: ${fileA}: ${A.count} objects, ${mb(totalA)} MB`);
console.log(`late:  ${fileB}: ${B.count} objects, ${mb(totalB)} MB (${totalB >= totalA ? "+" : ""}${mb(totalB - totalA)} MB)`);
const typesB = byType(B);
console.log(`by V8 type (MB, early → late): ${[...new Set([...typesA.keys(), ...typesB.keys()])]
  .map((t) => ({ t, a: typesA.get(t) ?? 0, b: typesB.get(t) ?? 0 }))
  .sort((x, y) => y.b - x.b)
  .map(({ t, a, b }) => `${t} ${mb(a)} → ${mb(b)}`)
  .join(", ")}`);
console.log("");
const rows = [];
for (const g of new Set([...sumA.keys(), ...sumB.keys()])) {
  const a = sumA.get(g) ?? { count: 0, size: 0 };
  const b = sumB.get(g) ?? { count: 0, size: 0 };
  const f = fresh.get(g) ?? { count: 0, size: 0 };
  rows.push({ g, a, b, f, dSize: b.size - a.size, dCount: b.count - a.count });
}
rows.sort((x, y) => y.dSize - x.dSize);
const pad = (v, n) => String(v).padStart(n);
console.log(`${"group".padEnd(60)} ${pad("count early", 11)} ${pad("count late", 11)} ${pad("+count", 9)} ${pad("KB early", 10)} ${pad("KB late", 10)} ${pad("+KB", 9)} ${pad("new (count / KB)", 18)}`);
for (const r of rows.slice(0, TOP)) {
  console.log(
    `${r.g.slice(0, 60).padEnd(60)} ${pad(r.a.count, 11)} ${pad(r.b.count, 11)} ${pad((r.dCount >= 0 ? "+" : "") + r.dCount, 9)} ${pad(kb(r.a.size), 10)} ${pad(kb(r.b.size), 10)} ${pad((r.dSize >= 0 ? "+" : "") + kb(r.dSize), 9)} ${pad(`${r.f.count} / ${kb(r.f.size)}`, 18)}`,
  );
}
console.log("… shrinking most:");
for (const r of rows.slice(-5)) {
  console.log(`${r.g.slice(0, 60).padEnd(60)} ${pad(r.a.count, 11)} ${pad(r.b.count, 11)} ${pad(r.dCount, 9)} ${pad(kb(r.a.size), 10)} ${pad(kb(r.b.size), 10)} ${pad(kb(r.dSize), 9)}`);
}

const pathsB = shortestPaths(B);
const { parent, parentEdge } = pathsB;
const { ownerOfNode, totals: ownersB } = owners(B, pathsB);
const edgeLabel = (e) => edgeLabelIn(B, e);
const nodeLabel = (i) => nodeLabelIn(B, i);
const ownerOf = (i) => (parent[i] === -1 ? "(unreachable)" : ownerOfNode[i]);
/** The path from the roots to node i (up to 14 steps shown: the root's end and the object's end). */
function pathTo(i) {
  const steps = [];
  let n = i;
  let guard = 0;
  while (n !== 0 && parent[n] !== -1 && guard++ < 200) {
    steps.push(`${edgeLabel(parentEdge[n])} → ${nodeLabel(n)}`);
    n = parent[n];
  }
  if (parent[i] === -1) return "(not reachable from the roots through strong edges: garbage at the time of the snapshot)";
  steps.reverse();
  if (steps.length > 14) steps.splice(4, steps.length - 14, "…");
  return `(root) ${steps.join(" ")}`;
}

console.log("");
console.log("By owner (everything an owner holds through containers, self sizes summed), sorted by growth:");
console.log(`${"owner".padEnd(70)} ${pad("count early", 11)} ${pad("count late", 11)} ${pad("KB early", 10)} ${pad("KB late", 10)} ${pad("+KB", 9)}`);
const ownerRows = [];
for (const o of new Set([...ownersA.keys(), ...ownersB.keys()])) {
  const a = ownersA.get(o) ?? { count: 0, size: 0 };
  const b = ownersB.get(o) ?? { count: 0, size: 0 };
  ownerRows.push({ o, a, b, d: b.size - a.size });
}
ownerRows.sort((x, y) => y.d - x.d);
for (const r of ownerRows.slice(0, TOP)) {
  console.log(`${r.o.slice(0, 70).padEnd(70)} ${pad(r.a.count, 11)} ${pad(r.b.count, 11)} ${pad(kb(r.a.size), 10)} ${pad(kb(r.b.size), 10)} ${pad((r.d >= 0 ? "+" : "") + kb(r.d), 9)}`);
}

console.log("");
console.log("Who keeps the new objects (shortest path from the roots in the late snapshot; element indices dropped to count):");
const growers = rows.filter((r) => r.f.count > 0).slice(0, PATHS);
for (const r of growers) {
  const f = fresh.get(r.g);
  const paths = new Map();
  const owners = new Map();
  const step = Math.max(1, Math.floor(f.nodes.length / 2000));
  let seen = 0;
  for (let k = 0; k < f.nodes.length; k += step) {
    const p = pathTo(f.nodes[k]);
    const key = p.replace(/\[\d+\]/g, "[…]").replace(/"[^"]*"/g, '"…"');
    const v = paths.get(key);
    if (v) v.n++;
    else paths.set(key, { n: 1, sample: p });
    const o = ownerOf(f.nodes[k]);
    owners.set(o, (owners.get(o) ?? 0) + 1);
    seen++;
  }
  console.log(`\n${r.g}: +${r.dCount} objects, +${kb(r.dSize)} KB (new: ${f.count} / ${kb(f.size)} KB; ${seen} paths looked at)`);
  console.log(`  owners: ${[...owners].sort((x, y) => y[1] - x[1]).slice(0, 5).map(([o, n]) => `${((100 * n) / seen).toFixed(0)} % ${o}`).join("; ")}`);
  for (const [, v] of [...paths].sort((x, y) => y[1].n - x[1].n).slice(0, 3)) {
    console.log(`  ${((100 * v.n) / seen).toFixed(0)} %: ${v.sample}`);
  }
}
console.error(`\n(${((Date.now() - t0) / 1000).toFixed(1)} s)`);

// HEAP_DIFF_OWNER="<owner as printed>": that owner's largest objects in the late snapshot, with a path each.
const wanted = process.env.HEAP_DIFF_OWNER;
if (wanted) {
  const mine = [];
  for (let i = 0; i < B.count; i++) if (parent[i] !== -1 && ownerOfNode[i] === wanted) mine.push(i);
  mine.sort((x, y) => sizeOf(B, y) - sizeOf(B, x));
  console.log(`\n${wanted}: ${mine.length} objects, ${kb(mine.reduce((t, i) => t + sizeOf(B, i), 0))} KB; the largest:`);
  for (const i of mine.slice(0, 8)) console.log(`  ${kb(sizeOf(B, i))} KB ${idsA.has(idOf(B, i)) ? "(early too)" : "(new)"}: ${pathTo(i)}`);
}
