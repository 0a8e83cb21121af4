import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ConnectionGate } from "./connection-gate";
import { isDatabaseBusy, isDatabaseUnavailable } from "./unavailable";

describe("ConnectionGate (decision 205)", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("lets as many in as it has slots, then queues first come, first served", async () => {
    const gate = new ConnectionGate({ slots: 2, maxWaiting: 10, waitTimeoutMs: 5_000 });
    await gate.acquire();
    await gate.acquire();
    const order: number[] = [];
    const third = gate.acquire().then(() => order.push(3));
    const fourth = gate.acquire().then(() => order.push(4));
    expect(gate.waiting).toBe(2);
    gate.release();
    await third;
    gate.release();
    await fourth;
    expect(order).toEqual([3, 4]);
    expect(gate.active).toBe(2);
    gate.release();
    gate.release();
    expect(gate.active).toBe(0);
  });

  it("a wait past its bound is refused as busy (an outage-class error, not an unreachable database)", async () => {
    const gate = new ConnectionGate({ slots: 1, maxWaiting: 10, waitTimeoutMs: 5_000 });
    await gate.acquire();
    const waiting = gate.acquire();
    const outcome = waiting.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5_001);
    const error = await outcome;
    expect(isDatabaseBusy(error)).toBe(true);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(gate.waiting).toBe(0);
    // The slot holder gives it back: nobody waits, the gate is free again.
    gate.release();
    expect(gate.active).toBe(0);
  });

  it("a queue at its stated length refuses the next one at once", async () => {
    const gate = new ConnectionGate({ slots: 1, maxWaiting: 2, waitTimeoutMs: 5_000 });
    await gate.acquire();
    const a = gate.acquire();
    const b = gate.acquire();
    await expect(gate.acquire()).rejects.toSatisfy(isDatabaseBusy);
    gate.release();
    gate.release();
    await Promise.all([a, b]);
  });

  it("an unreachable database fails everyone waiting at once with its own error", async () => {
    const gate = new ConnectionGate({ slots: 1, maxWaiting: 10, waitTimeoutMs: 60_000 });
    await gate.acquire();
    const waiting = [gate.acquire(), gate.acquire()].map((p) => p.catch((e: unknown) => e));
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    gate.failWaiting(refused);
    expect(await Promise.all(waiting)).toEqual([refused, refused]);
    expect(gate.waiting).toBe(0);
  });
});
