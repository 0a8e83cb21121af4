// Production and development HTTP server: Express in front of the React Router request handler
// (the React Router "node-custom-server" template). The app itself is server/app.ts, built by Vite.
import compression from "compression";
import express from "express";

const DEVELOPMENT = process.argv.includes("--dev") || process.env.NODE_ENV === "development";
const PORT = Number.parseInt(process.env.PORT || "3000", 10);
const HOST = process.env.HOST || "0.0.0.0";
const BUILD_DIR = process.env.BUILD_DIR || "build";

const app = express();
app.disable("x-powered-by");
app.set("trust proxy", process.env.TRUST_PROXY ? Number(process.env.TRUST_PROXY) || process.env.TRUST_PROXY : "loopback");
app.use(compression());

if (DEVELOPMENT) {
  const vite = await import("vite");
  const viteDevServer = await vite.createServer({ server: { middlewareMode: true } });
  app.use(viteDevServer.middlewares);
  app.use(async (req, res, next) => {
    try {
      const source = await viteDevServer.ssrLoadModule("./server/app.ts");
      return await source.app(req, res, next);
    } catch (error) {
      if (error instanceof Error) viteDevServer.ssrFixStacktrace(error);
      next(error);
    }
  });
} else {
  const { app: site, staticSecurityHeaders } = await import(`./${BUILD_DIR}/server/index.js`);
  // Static files get the site's security headers too (CSP, nosniff, frame-ancestors, HSTS in production).
  app.use(staticSecurityHeaders);
  // Fingerprinted build assets never change: cache them for a year.
  app.use("/assets", express.static(`${BUILD_DIR}/client/assets`, { immutable: true, maxAge: "1y", index: false }));
  // Other public files (images, favicon): cache for a day, revalidate after.
  app.use(express.static(`${BUILD_DIR}/client`, { maxAge: "1d", index: false }));
  app.use(site);
}

const server = app.listen(PORT, HOST, () => {
  console.log(`Gatehouse listening on http://localhost:${PORT}${DEVELOPMENT ? " (development)" : ""}`);
});

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  });
}
