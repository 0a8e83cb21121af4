/**
 * nginx running the checked-in deploy/nginx.conf in front of test servers: ports and the build path
 * substituted, TLS and the HTTP→HTTPS server left out (the same transformation `npm run bench --
 * --multi` makes). Its own prefix, pid and logs in a temp directory; stopped by its PID.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./server";
import { sleep } from "./ports";

const NGINX_BIN = process.env.NGINX ?? "/usr/sbin/nginx";

export function nginxSkipReason(): string | null {
  return spawnSync(NGINX_BIN, ["-v"]).error ? `nginx not found at ${NGINX_BIN} (set NGINX)` : null;
}

/** Debian's ngx_cache_purge (libnginx-mod-http-cache-purge), which the cache in front needs. */
const CACHE_PURGE_MODULE = "/usr/lib/nginx/modules/ngx_http_cache_purge_module.so";

export function sharedCacheSkipReason(): string | null {
  return nginxSkipReason() ?? (fs.existsSync(CACHE_PURGE_MODULE) ? null : `${CACHE_PURGE_MODULE} not found (apt-get install libnginx-mod-http-cache-purge)`);
}

/**
 * `sharedCache`: keep deploy/nginx.conf's cache in front (its directory under `dir`, its purge listener
 * on `purgePort`); else it is left out (the tests of the processes behind it, decision 571).
 */
function deployConfig(listenPort: number, appPorts: number[], cache: { dir: string; purgePort: number } | null, backupPorts: number[] = []): string {
  let conf = fs.readFileSync(path.join(REPO_ROOT, "deploy/nginx.conf"), "utf8");
  if (cache) {
    conf = conf.replaceAll("/var/cache/nginx/gatehouse", path.join(cache.dir, "cache")).replace("listen 127.0.0.1:8080;", `listen 127.0.0.1:${cache.purgePort};\n  access_log ${path.join(cache.dir, "purge.log")};`);
  } else {
    conf = conf.replace(/[ \t]*# BEGIN shared-cache([^\n]*)\n[\s\S]*?# END shared-cache\1\n/g, "");
  }
  conf = conf.replace(/# BEGIN redirect-to-https[\s\S]*?# END redirect-to-https\n/, "");
  conf = conf.replace(/^\s*ssl_[^\n]*\n/gm, "").replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${listenPort};`).replace(/^\s*listen \[::\]:443 ssl http2;\n/m, "");
  conf = conf.replace(/^\s*server 127\.0\.0\.1:30\d\d[^\n]*\n/gm, "");
  conf = conf.replace(/(upstream gatehouse \{\n)/, `$1${[...appPorts.map((p) => `  server 127.0.0.1:${p};\n`), ...backupPorts.map((p) => `  server 127.0.0.1:${p} backup;\n`)].join("")}`);
  return conf.replaceAll("/opt/gatehouse/build", path.join(REPO_ROOT, process.env.BUILD_DIR ?? "build"));
}

export async function startNginx(
  listenPort: number,
  appPorts: number[],
  options: {
    sharedCache?: { purgePort: number };
    /**
     * Pass the Host header on as the client sent it (`$http_host`, with this copy's own port) instead of
     * `$host` (the name alone): the deployment listens on 443, where the browser's Origin has no port
     * either; this copy listens elsewhere, and a form posted to the console (whose Origin the app
     * checks against the request's host) needs the port.
     */
    hostWithPort?: boolean;
    /** Processes nginx asks only when every one of `appPorts` fails (`backup`): a test that must know which process answers. */
    backupPorts?: number[];
  } = {},
): Promise<{ url: string; /** The purge listener's requests, one line each (with `sharedCache`). */ purgeLog(): string[]; stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-fault-nginx-"));
  fs.chmodSync(dir, 0o755);
  fs.mkdirSync(path.join(dir, "tmp"));
  const t = (n: string) => path.join(dir, "tmp", n);
  let conf = deployConfig(listenPort, appPorts, options.sharedCache ? { dir, purgePort: options.sharedCache.purgePort } : null, options.backupPorts);
  if (options.hostWithPort) conf = conf.replace("proxy_set_header Host $host;", "proxy_set_header Host $http_host;");
  fs.writeFileSync(
    path.join(dir, "nginx.conf"),
    (options.sharedCache ? `load_module ${CACHE_PURGE_MODULE};\n` : "") +
      `worker_processes 1;\ndaemon off;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;\nevents { worker_connections 256; }\n` +
      `http {\n  access_log off;\n  client_body_temp_path ${t("body")};\n  proxy_temp_path ${t("proxy")};\n  fastcgi_temp_path ${t("fastcgi")};\n` +
      `  uwsgi_temp_path ${t("uwsgi")};\n  scgi_temp_path ${t("scgi")};\n  types { text/css css; application/javascript js; }\n${conf}\n}\n`,
  );
  const args = ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", path.join(dir, "error.log")];
  const check = spawnSync(NGINX_BIN, [...args, "-t"], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`nginx -t failed:\n${check.stderr}`);
  const child = spawn(NGINX_BIN, args, { stdio: "ignore" });
  const gone = new Promise<void>((r) => child.once("exit", () => r()));
  process.on("exit", () => child.kill("SIGKILL"));
  const url = `http://127.0.0.1:${listenPort}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (i > 50) throw new Error(`nginx did not answer: ${fs.readFileSync(path.join(dir, "error.log"), "utf8")}`);
      await sleep(100);
    }
  }
  return {
    url,
    purgeLog: () => (fs.existsSync(path.join(dir, "purge.log")) ? fs.readFileSync(path.join(dir, "purge.log"), "utf8").split("\n").filter(Boolean) : []),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGQUIT");
      await gone;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
