import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { notFound } from "~/services/web/responses.server";

const APP = path.resolve(import.meta.dirname, "../../app");

describe("notFound(): the one 404 of the routes", () => {
  it("is a 404 that is never stored, unless the caller gives its own headers", () => {
    const r = notFound();
    expect(r.init?.status).toBe(404);
    expect(new Headers(r.init?.headers).get("Cache-Control")).toBe("private, no-store");
    expect(new Headers(notFound({ "Cache-Control": "private, no-cache", Vary: "Cookie" }).init?.headers).get("Vary")).toBe("Cookie");
  });

  it("no route or service builds a 404 by hand", () => {
    // Areas live in folders (conventions: "Areas as folders"): every file below routes/ and services/.
    const files = ["routes", "services"].flatMap((d) =>
      readdirSync(path.join(APP, d), { recursive: true, encoding: "utf8" })
        .filter((f) => /\.tsx?$/.test(f))
        .map((f) => path.join(d, f)),
    );
    const offenders = files.filter((f) => !f.endsWith(path.join("web", "responses.server.ts")) && /status:\s*404/.test(readFileSync(path.join(APP, f), "utf8")));
    expect(offenders).toEqual([]);
  });
});
