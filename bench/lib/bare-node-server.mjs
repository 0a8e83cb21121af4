// node bench/lib/bare-node-server.mjs PORT pages.json — see bare-node.mjs. Each answer is one
// writeHead with the recorded headers (a flat [name, value, …] array, which also keeps a repeated
// header such as Set-Cookie) and one end with the recorded bytes, as the app writes a stored page.
import fs from "node:fs";
import http from "node:http";

const [port, manifestFile] = process.argv.slice(2);
const pages = new Map(
  JSON.parse(fs.readFileSync(manifestFile, "utf8")).map((p) => [p.path, { status: p.status, headers: p.headers.flat(), body: fs.readFileSync(p.file) }]),
);
http
  .createServer((req, res) => {
    const page = pages.get(req.url);
    if (!page) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(page.status, page.headers);
    res.end(req.method === "HEAD" ? undefined : page.body);
  })
  .listen(Number(port), "127.0.0.1");
