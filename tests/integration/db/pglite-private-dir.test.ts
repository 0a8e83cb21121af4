/**
 * Issue 19: the PGlite directory was created with world-writable files (968 of 1,187 were 0666).
 * Opening it now makes it 0700 with 0600 files, fixes files left open by an older version, and the
 * files PGlite creates afterwards are private too.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-pglite-"));
let handle: DatabaseHandle | null = null;
const umask = process.umask();
afterAll(async () => {
  await handle?.close();
  process.umask(umask);
  fs.rmSync(root, { recursive: true, force: true });
});

function modes(dir: string): { path: string; mode: number; dir: boolean }[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).map((e) => {
    const p = path.join(e.parentPath, e.name);
    return { path: path.relative(dir, p), mode: fs.statSync(p).mode & 0o777, dir: e.isDirectory() };
  });
}

describe("the PGlite directory is private", () => {
  it("is created 0700 with 0600 files; files left 0666 are fixed at start-up; new files are 0600", async () => {
    const dir = path.join(root, "pglite");
    process.umask(0); // the permissive umask a container may run with
    handle = openDatabase({ pgliteDir: dir });
    await handle.ping();
    await handle.close();
    handle = null;
    // An older version's directory: everything world-writable.
    for (const f of modes(dir)) fs.chmodSync(path.join(dir, f.path), f.dir ? 0o777 : 0o666);
    fs.chmodSync(dir, 0o777);
    process.umask(0);

    handle = openDatabase({ pgliteDir: dir });
    await handle.ping();
    // New relations and their files are created after start-up.
    const { sql } = await import("drizzle-orm");
    await handle.db.execute(sql`create table private_check (id serial primary key, secret text)`);
    await handle.db.execute(sql`insert into private_check (secret) select md5(g::text) from generate_series(1, 500) g`);
    await handle.db.execute(sql`checkpoint`);

    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const all = modes(dir);
    expect(all.length).toBeGreaterThan(100);
    const open = all.filter((f) => (f.dir ? f.mode !== 0o700 : f.mode !== 0o600));
    expect(open).toEqual([]);
  });
});
