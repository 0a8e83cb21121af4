import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // BUILD_DIR lets several builds sit side by side (e.g. parallel browser-test runs); default "build".
  buildDirectory: process.env.BUILD_DIR ?? "build",
  // Integrity hashes for our own script assets (an import map with SHA-384s): the browser refuses a
  // changed file. Part of how the payment pages' scripts are assured (docs/payment-page-scripts.md).
  subResourceIntegrity: true,
  // Route middleware: the portal's signed-in and unit layouts check the session before any loader or
  // action (docs/decisions/160-portal-layout-middleware.md). Loaders and actions get a
  // RouterContextProvider (server/react-router-handler.ts).
  future: { v8_middleware: true },
} satisfies Config;
