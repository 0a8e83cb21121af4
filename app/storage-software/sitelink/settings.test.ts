import { describe, expect, it } from "vitest";
import { adapterChoiceFor, endpointProblem, MIN_SETTLE_AFTER_MS, settingsProblems, settleAfterMsFor } from "./settings";

const dev = { NODE_ENV: "development" } as NodeJS.ProcessEnv;
const prod = { NODE_ENV: "production" } as NodeJS.ProcessEnv;
const SIM = "http://127.0.0.1:8765/CCWs_3.5/CallCenterWs.asmx";
const LIVE = "https://api.smdservers.net/CCWs_3.5/CallCenterWs.asmx";

describe("SiteLink settings that are refused (issue 19, decision 186)", () => {
  it("https always; http only to this machine and never in production", () => {
    expect(endpointProblem(LIVE, prod)).toBeNull();
    expect(endpointProblem(LIVE, dev)).toBeNull();
    for (const sim of [SIM, "http://localhost:8765/x", "http://[::1]:8765/x"]) {
      expect(endpointProblem(sim, dev)).toBeNull();
      expect(endpointProblem(sim, prod)).toMatch(/https:\/\/ in production/);
    }
    // The test runner's production server (decision 432): the simulator on this machine only.
    const runner = { NODE_ENV: "production", GATEHOUSE_TEST_RUNNER: "1" } as NodeJS.ProcessEnv;
    expect(endpointProblem(SIM, runner)).toBeNull();
    expect(endpointProblem("http://api.smdservers.net/CCWs_3.5/CallCenterWs.asmx", runner)).toMatch(/only on this machine/);
    expect(endpointProblem("http://api.smdservers.net/CCWs_3.5/CallCenterWs.asmx", dev)).toMatch(/only on this machine/);
    expect(endpointProblem("http://127.0.0.1.nip.io/x", dev)).toMatch(/only on this machine/);
    expect(endpointProblem("https://user:pw@api.smdservers.net/x", prod)).toMatch(/user name or password/);
    expect(endpointProblem("ftp://api.smdservers.net/x", dev)).toMatch(/https/);
    expect(endpointProblem("not a url", dev)).toMatch(/not a URL/);
  });

  it("lists every problem of a row: endpoint and the variables named for the secrets", () => {
    expect(settingsProblems({ endpoint: LIVE, passwordEnv: "SITELINK_L001_PASSWORD", apiKeyEnv: "SITELINK_L001_API_KEY" }, prod)).toEqual([]);
    const problems = settingsProblems({ endpoint: "http://sitelink.example/x", passwordEnv: "SESSION_SECRET", apiKeyEnv: "SITELINK_SECRET_KEY" }, prod);
    expect(problems).toHaveLength(3);
    expect(problems.join(" ")).toMatch(/SESSION_SECRET/);
  });
});

describe("the adapter rule (adapterChoiceFor, decision 215)", () => {
  const sitelink = { useDemoUnits: false, software: "sitelink", hasSiteLinkSettings: true };
  it("SiteLink only with use_demo_units off, software sitelink and settings present", () => {
    expect(adapterChoiceFor(sitelink).choice).toBe("sitelink");
    expect(adapterChoiceFor({ ...sitelink, useDemoUnits: true })).toEqual({ choice: "local", reason: "use_demo_units is on (demo inventory)" });
    expect(adapterChoiceFor({ ...sitelink, software: "no_api" }).choice).toBe("local");
    expect(adapterChoiceFor({ ...sitelink, hasSiteLinkSettings: false }).choice).toBe("local");
    expect(adapterChoiceFor(undefined).choice).toBe("local");
  });
});

describe("the settle time after an unanswered write (settleAfterMsFor, decision 215)", () => {
  it("twice the write timeout, never under two minutes", () => {
    expect(MIN_SETTLE_AFTER_MS).toBe(120_000);
    expect(settleAfterMsFor({ writeTimeoutMs: 45_000 })).toBe(120_000);
    expect(settleAfterMsFor({ writeTimeoutMs: 90_000 })).toBe(180_000);
    expect(settleAfterMsFor({ writeTimeoutMs: 1_500 })).toBe(120_000);
  });
});
