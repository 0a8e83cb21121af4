// Waits until every browser-test server answers /healthz, prints "e2e servers ready", then stays up
// until Playwright stops it. playwright.config.ts starts the servers of every worker at once (its
// webServer entries without a URL are only started, not awaited, and Playwright awaits them one by
// one) and this as the last entry, which Playwright awaits: decision 285.
const urls = process.argv.slice(2);

const answers = async (url) => {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false; // not listening yet
  }
};

// The servers were started a moment ago and take seconds to listen (migrations, seed): one that
// answers already is another run's, left on the port, which ours cannot bind.
const stale = (await Promise.all(urls.map(async (url) => ((await answers(url)) ? url : null)))).filter(Boolean);
if (stale.length > 0) {
  console.error(`already in use by another process (stop it, or choose other E2E_* ports): ${stale.join(", ")}`);
  process.exit(1);
}
const deadline = Date.now() + Number(process.env.E2E_WAIT_MS ?? 120_000);
const waiting = new Set(urls);
while (waiting.size > 0) {
  if (Date.now() > deadline) {
    console.error(`e2e servers not ready: ${[...waiting].join(", ")}`);
    process.exit(1);
  }
  await Promise.all([...waiting].map(async (url) => (await answers(url)) && waiting.delete(url)));
  if (waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, 250));
}
console.log("e2e servers ready");
setInterval(() => {}, 1 << 30);
