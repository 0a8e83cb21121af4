// The ceiling for one Node.js process (issue 22): a bare node:http server that answers each path with
// the exact status, headers and bytes the app answered, and does nothing else — no routing, no cache
// lookup, no Express. Its requests/s is what any Node.js process can do here with these bytes and
// headers; the app's requests/s against it is the app's own overhead, whatever the machine.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Headers the server writes itself (or that belong to the connection), not copied. */
const OWN = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

/** `pages`: [{ path, status, headers (as node:http gave them), body (Buffer) }]. */
export async function startBareNode({ port, pages }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-bare-"));
  const manifest = pages.map((p, i) => {
    const file = path.join(dir, `page-${i}.bin`);
    fs.writeFileSync(file, p.body);
    const headers = Object.entries(p.headers)
      .filter(([name]) => !OWN.has(name.toLowerCase()))
      .flatMap(([name, value]) => (Array.isArray(value) ? value.map((v) => [name, v]) : [[name, value]]));
    return { path: p.path, status: p.status, headers, file };
  });
  fs.writeFileSync(path.join(dir, "pages.json"), JSON.stringify(manifest));
  const child = spawn("node", [path.join(import.meta.dirname, "bare-node-server.mjs"), String(port), path.join(dir, "pages.json")], { stdio: ["ignore", "ignore", "inherit"] });
  let exited = false;
  child.on("exit", () => (exited = true));
  process.on("exit", () => exited || child.kill());
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited) throw new Error("the bare node:http server stopped while starting");
    try {
      await fetch(`${url}${pages[0].path}`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error("the bare node:http server did not answer within 10 s");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async stop() {
      if (!exited) {
        const gone = new Promise((r) => child.once("exit", r));
        child.kill();
        await gone;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
