// nginx for the bench: its own prefix, config, pid and logs in a temp directory, on an unprivileged
// port, in the foreground as a child of the bench (stopped by its PID). Installs nothing: when nginx
// is not there the bench says so and leaves the comparison out (Debian: apt-get install -y nginx).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const NGINX = process.env.BENCH_NGINX ?? (fs.existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx");
export const hasNginx = () => !spawnSync(NGINX, ["-v"]).error;

/** The main context around `httpBody` (the inside of `http { }`): 1 worker, no access log, files under `dir`. */
function mainConfig(dir, httpBody, workers, main = "") {
  return `# Written by bench/ (temporary).
${main}worker_processes ${workers};
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  keepalive_requests 1000000;
${httpBody}
}
`;
}

/**
 * Starts nginx with `httpBody` inside `http { }`; resolves when it answers on `port`.
 * Returns { dir, url, pid, stop() }.
 */
export async function startNginx({ httpBody, port, workers = 1, main = "", dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-nginx-")) }) {
  fs.chmodSync(dir, 0o755); // workers run as nobody when the bench runs as root
  fs.mkdirSync(path.join(dir, "tmp"), { recursive: true });
  const conf = path.join(dir, "nginx.conf");
  fs.writeFileSync(conf, mainConfig(dir, httpBody, workers, main));
  const test = spawnSync(NGINX, ["-p", dir, "-c", conf, "-e", path.join(dir, "error.log"), "-t"], { encoding: "utf8" });
  if (test.status !== 0) throw new Error(`nginx -t failed:\n${test.stderr}`);
  const child = spawn(NGINX, ["-p", dir, "-c", conf, "-e", path.join(dir, "error.log")], { stdio: ["ignore", "ignore", "inherit"] });
  let exited = false;
  child.on("exit", () => (exited = true));
  const stop = () => {
    if (!exited) child.kill("SIGQUIT"); // graceful: the master stops its workers
  };
  process.on("exit", stop);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited) throw new Error(`nginx exited at start (${path.join(dir, "error.log")})`);
    try {
      await fetch(`${url}/`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error("nginx did not answer within 10 s");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    dir,
    url,
    pid: child.pid,
    async stop() {
      if (exited) return;
      const gone = new Promise((r) => child.once("exit", r));
      stop();
      await gone;
    },
  };
}

/**
 * The inside of `http { }` for nginx serving stored copies: `pages` is [{ path, file, headers }], each
 * answered at exactly its path from its file, with the headers that matter for the client
 * (Content-Type, Content-Encoding) as the app sent them.
 */
export function staticCopiesConfig(port, pages) {
  const locations = pages
    .map((p) => {
      const extra = Object.entries(p.headers)
        .filter(([name]) => name.toLowerCase() !== "content-type")
        .map(([name, value]) => `    add_header ${name} "${value.replace(/"/g, '\\"')}" always;`)
        .join("\n");
      // try_files, not alias: "/" would otherwise be taken for a directory.
      return `  location = ${p.path} {\n    types { }\n    default_type "${p.headers["Content-Type"]}";\n${extra}\n    root ${path.dirname(p.file)};\n    try_files /${path.basename(p.file)} =404;\n  }`;
    })
    .join("\n");
  return `server {\n  listen 127.0.0.1:${port};\n${locations}\n  location / { return 404; }\n}`;
}

/** Debian's ngx_cache_purge (libnginx-mod-http-cache-purge), which deploy/nginx.conf's cache in front needs. */
export const CACHE_PURGE_MODULE = "/usr/lib/nginx/modules/ngx_http_cache_purge_module.so";

/**
 * deploy/nginx.conf for this machine: the app ports, the build directory, a plain-HTTP port on
 * 127.0.0.1, no TLS (the file checked in is the file measured).
 *
 * `sharedCache` ({ dir, purgePort }): keep its cache in front (bench --deployed), the cache under `dir`,
 * the purge listener on `purgePort` (load CACHE_PURGE_MODULE in the main context); the Host passed on
 * with its port ($http_host: this copy listens on a port of its own, and a console form's Origin, which
 * the app checks, carries it; on 443 the two are the same). Without it the cache is left out.
 */
export function deployConfig({ appPorts, port, buildDir, sharedCache = null }) {
  let conf = fs.readFileSync("deploy/nginx.conf", "utf8");
  if (sharedCache) {
    conf = conf
      .replaceAll("/var/cache/nginx/gatehouse", path.join(sharedCache.dir, "cache"))
      .replace("listen 127.0.0.1:8080;", `listen 127.0.0.1:${sharedCache.purgePort};`)
      .replace("proxy_set_header Host $host;", "proxy_set_header Host $http_host;");
  } else {
    // Without the cache in front (issue 41, decision 571): the app processes are what is measured here,
    // and the bench's processes are not told to purge it.
    conf = conf.replace(/[ \t]*# BEGIN shared-cache([^\n]*)\n[\s\S]*?# END shared-cache\1\n/g, "");
  }
  // The plain-HTTP server that only redirects to HTTPS is not needed here.
  conf = conf.replace(/# BEGIN redirect-to-https[\s\S]*?# END redirect-to-https\n/, "");
  conf = conf.replace(/^\s*ssl_[^\n]*\n/gm, "").replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${port};`).replace(/^\s*listen \[::\]:443 ssl http2;\n/m, "");
  conf = conf.replace(/^\s*server 127\.0\.0\.1:30\d\d[^\n]*\n/gm, "");
  conf = conf.replace(/(upstream gatehouse \{\n)/, `$1${appPorts.map((p) => `  server 127.0.0.1:${p} max_fails=0;\n`).join("")}`);
  conf = conf.replaceAll("/opt/gatehouse/build", path.resolve(buildDir));
  return conf;
}
