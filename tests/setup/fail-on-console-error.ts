import { afterEach, beforeEach, vi } from "vitest";

// A console.error during a test is a bug being swallowed: fail the test (conventions.md).
let errors: unknown[][] = [];
beforeEach(() => {
  errors = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    errors.push(args);
  });
});
afterEach(() => {
  vi.mocked(console.error).mockRestore();
  if (errors.length) {
    const text = errors.map((a) => a.map(String).join(" ")).join("\n");
    errors = [];
    throw new Error(`console.error was called during the test:\n${text}`);
  }
});
