import { describe, expect, it } from "vitest";
import { DatabaseUnavailableError, isDatabaseUnavailable, outageReason } from "./unavailable";

const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("isDatabaseUnavailable", () => {
  it.each([
    ["admin shutdown (57P01)", withCode("57P01", "terminating connection due to administrator command")],
    ["starting up (57P03)", withCode("57P03", "the database system is starting up")],
    ["refused", withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")],
    ["pool connect timeout", new Error("timeout exceeded when trying to connect")],
    ["connection terminated", new Error("Connection terminated unexpectedly")],
    ["statement timeout", withCode("57014", "canceling statement due to statement timeout")],
    ["wrapped by Drizzle", new Error("Failed query: select 1", { cause: withCode("57P01") })],
    ["our own", new DatabaseUnavailableError()],
    ["aggregate", Object.assign(new AggregateError([withCode("ECONNREFUSED")], "all failed"), {})],
  ])("%s is an outage", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ["unique violation", withCode("23505", "duplicate key value")],
    ["syntax error", withCode("42601", "syntax error")],
    ["a bug", new TypeError("x is undefined")],
    ["nothing", undefined],
  ])("%s is not an outage", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe("outageReason", () => {
  it("names the innermost error, never the SQL or its parameters", () => {
    const e = new Error('Failed query: select * from tenants where email = $1\nparams: ada@example.com', {
      cause: withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
    });
    expect(outageReason(e)).toBe("ECONNREFUSED connect ECONNREFUSED 127.0.0.1:5432");
    expect(outageReason(e)).not.toContain("ada@example.com");
  });
});
