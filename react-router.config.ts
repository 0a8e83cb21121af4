import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // BUILD_DIR lets several builds sit side by side (e.g. parallel browser-test runs); default "build".
  buildDirectory: process.env.BUILD_DIR ?? "build",
} satisfies Config;
