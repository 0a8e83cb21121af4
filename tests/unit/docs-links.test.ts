/**
 * Every link in the project's markdown resolves (issue 21): README.md, every docs/**\/*.md and any other
 * tracked markdown file. A relative link must name a file or folder that exists;
 * a `#anchor` into a markdown file must name one of its headings (GitHub's slugs). Every decision record
 * is listed, and linked, in docs/decisions/README.md, the index. Source comments that name a record
 * (`docs/decisions/063-request-guards.md`, "decisions 110-113") name one that exists.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "../..");

/** The tracked markdown files (not node_modules, build output or test reports). */
function markdownFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z", "*.md"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f && fs.existsSync(path.join(root, f)))
    .map((f) => path.join(root, f));
}

/** Markdown without its code: fenced blocks and inline code spans hold examples, not links. */
export function withoutCode(md: string): string {
  return md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** The targets of inline links and images, `[text](target)` / `[text](<target> "title")`. */
export function linkTargets(md: string): string[] {
  const targets: string[] = [];
  for (const m of withoutCode(md).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]!);
  // Reference definitions: `[name]: target`
  for (const m of withoutCode(md).matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/gm)) targets.push(m[1]!);
  return targets;
}

/** GitHub's heading anchors: lower case, markup and punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingSlugs(md: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  const text = md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = m[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links keep their text
      .replace(/<[^>]+>/g, "")
      .replace(/[*_`~]/g, (c) => (c === "_" ? "_" : ""));
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) slugs.add(m[1]!);
  return slugs;
}

export function brokenLinks(file: string, md: string, exists: (p: string) => boolean, read: (p: string) => string): string[] {
  const broken: string[] = [];
  for (const raw of linkTargets(md)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith("//")) continue; // http:, https:, mailto: …
    const [pathPart, anchor] = raw.split("#", 2) as [string, string | undefined];
    let target = file;
    if (pathPart !== "") {
      const decoded = decodeURIComponent(pathPart);
      target = decoded.startsWith("/") ? path.join(root, decoded) : path.resolve(path.dirname(file), decoded);
      if (!exists(target)) {
        broken.push(`${path.relative(root, file)}: ${raw} (no such file)`);
        continue;
      }
    }
    if (anchor && target.endsWith(".md") && !headingSlugs(read(target)).has(decodeURIComponent(anchor).toLowerCase())) {
      broken.push(`${path.relative(root, file)}: ${raw} (no such heading)`);
    }
  }
  return broken;
}

const read = (p: string) => fs.readFileSync(p, "utf8");

describe("markdown links", () => {
  const files = markdownFiles();

  it("find the project's markdown", () => {
    expect(files.map((f) => path.relative(root, f))).toEqual(expect.arrayContaining(["README.md", "docs/decisions/README.md"]));
  });

  it("all resolve (files, and headings for #anchors into markdown)", () => {
    const broken = files.flatMap((f) => brokenLinks(f, read(f), (p) => fs.existsSync(p), read));
    expect(broken).toEqual([]);
  });

  it("the checker bites: a missing file, a missing heading, and a good link", () => {
    const file = path.join(root, "docs/x.md");
    const md = "[a](decisions/999-none.md) [b](../README.md#no-such-heading) [c](../README.md#layout) `[d](nope.md)` [e](https://example.com/x)";
    expect(brokenLinks(file, md, (p) => fs.existsSync(p), read)).toEqual([
      "docs/x.md: decisions/999-none.md (no such file)",
      "docs/x.md: ../README.md#no-such-heading (no such heading)",
    ]);
  });

  it("heading slugs follow GitHub's", () => {
    const slugs = headingSlugs("# How many processes, how many connections (issue 22, decision 208)\n## A `busy` pool — is not\n## Dup\n## Dup");
    expect([...slugs]).toEqual(["how-many-processes-how-many-connections-issue-22-decision-208", "a-busy-pool--is-not", "dup", "dup-1"]);
  });
});

describe("the decisions index (docs/decisions/README.md)", () => {
  const dir = path.join(root, "docs/decisions");
  const records = fs.readdirSync(dir).filter((f) => /^\d{3}-.*\.md$/.test(f));
  const index = read(path.join(dir, "README.md"));
  const linked = new Set(linkTargets(index).map((t) => t.split("#")[0]!.replace(/^\.\//, "")));

  it("links every record", () => {
    expect(records.length).toBeGreaterThan(100);
    expect(records.filter((r) => !linked.has(r))).toEqual([]);
  });

  it("gives every record one line with a status", () => {
    const missing = records.filter((r) => {
      const line = index.split("\n").find((l) => l.startsWith(`| ${r.slice(0, 3)} | [`) && l.includes(`](${r}) |`));
      return !line || !/\b(current|superseded by \[?\d{3}|partly superseded by \[?\d{3})\b/.test(line);
    });
    expect(missing).toEqual([]);
  });

  it("names no record that does not exist", () => {
    const numbers = new Set(records.map((r) => r.slice(0, 3)));
    const statusRefs = [...index.matchAll(/superseded by \[?(\d{3})/g)].map((m) => m[1]!);
    expect(statusRefs.filter((n) => !numbers.has(n))).toEqual([]);
  });
});

/** Records named in any tracked file: by file name (`063-request-guards.md`) or as "decision(s) N[, M, N–M]". */
export function namedRecords(text: string): { files: string[]; numbers: string[] } {
  const files = [...text.matchAll(/\b(\d{3}-[a-z0-9]+(?:-[a-z0-9]+)*\.md)\b/g)].map((m) => m[1]!);
  const numbers: string[] = [];
  for (const m of text.matchAll(/\b(?:[Dd]ecisions?|[Rr]ecords?)[ ,]+(\d{3}(?:(?:, | and |[–-]| to )\d{3}\b)*)/g)) {
    numbers.push(...m[1]!.match(/\d{3}/g)!);
  }
  return { files, numbers };
}

describe("records named in the source", () => {
  const records = fs.readdirSync(path.join(root, "docs/decisions")).filter((f) => /^\d{3}-.*\.md$/.test(f));
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    // This file names missing records on purpose (the checks that bite).
    .filter((f) => f && f !== "tests/unit/docs-links.test.ts" && !f.endsWith("package-lock.json") && /\.(ts|tsx|js|mjs|cjs|json|md|yml|yaml|sh|conf)$|Dockerfile$|\.ci\//.test(f) && fs.existsSync(path.join(root, f)));

  it("exist", () => {
    const numbers = new Set(records.map((r) => r.slice(0, 3)));
    const wrong: string[] = [];
    for (const f of tracked) {
      const named = namedRecords(read(path.join(root, f)));
      for (const r of named.files) if (!records.includes(r) && /^\d{3}-/.test(r)) wrong.push(`${f}: ${r}`);
      for (const n of named.numbers) if (!numbers.has(n)) wrong.push(`${f}: decision ${n}`);
    }
    expect(wrong).toEqual([]);
  });

  it("the check bites", () => {
    expect(namedRecords("see docs/decisions/063-request-bodies-and-methods.md and decisions 110-114, decision 030")).toEqual({
      files: ["063-request-bodies-and-methods.md"],
      numbers: ["110", "114", "030"],
    });
  });
});
