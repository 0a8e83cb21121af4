/**
 * Imported first by bench/diff-page.ts (before anything reads the configuration, which is parsed once
 * outside tests): this process signs the owner's session as the servers it starts would, with the
 * same secret and the same production cookie names.
 */
Object.assign(process.env, {
  NODE_ENV: "production",
  HTTPS: "false",
  PAYMENT_GATEWAY: "test",
  SESSION_SECRET: "bench-only-session-secret-not-for-production-0000",
  PUBLIC_URL: "http://127.0.0.1:3460",
  CONSOLE_URL: "http://admin.localhost:3460",
});
