import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { createAdmission } from "./admission.js";

/** A response that finishes when told to. */
class FakeResponse extends EventEmitter {
  writableEnded = false;
  end() {
    this.writableEnded = true;
    this.emit("finish");
  }
}
const request = (name: string) => Object.assign(new EventEmitter(), { name, destroyed: false });
type Req = ReturnType<typeof request>;
const turn = () => new Promise((r) => setImmediate(r));
const settle = async () => {
  for (let i = 0; i < 20; i++) await turn();
};

describe("admission (decisions 205, 427)", () => {
  it("works on at most `max` at once and admits the waiting ones first come first served", async () => {
    const running: Array<[Req, FakeResponse]> = [];
    const admission = createAdmission<Req, FakeResponse>({ max: 2, run: (req, res) => running.push([req, res]) });
    const responses = ["a", "b", "c", "d"].map((name) => {
      const res = new FakeResponse();
      admission.offer(request(name), res);
      return res;
    });
    expect(running.map(([r]) => r.name)).toEqual(["a", "b"]);
    expect(admission.waiting).toBe(2);
    responses[0]!.end();
    await settle();
    expect(running.map(([r]) => r.name)).toEqual(["a", "b", "c"]);
    // A newcomer waits behind the ones already waiting, even when a place is free meanwhile.
    responses[1]!.end();
    const late = new FakeResponse();
    admission.offer(request("e"), late);
    await settle();
    expect(running.map(([r]) => r.name)).toEqual(["a", "b", "c", "d"]);
    responses[2]!.end();
    await settle();
    expect(running.map(([r]) => r.name)).toEqual(["a", "b", "c", "d", "e"]);
    expect(admission.inProgress).toBe(2);
  });

  it("admits one waiting request per turn of the event loop, so work that never yields does not chain the queue into one turn", async () => {
    const order: string[] = [];
    const admission = createAdmission<Req, FakeResponse>({
      max: 1,
      // Each request answers within its own microtasks (no I/O), and asks for a callback on the next turn.
      run: (req, res) => {
        order.push(req.name);
        setImmediate(() => order.push(`turn after ${req.name}`));
        queueMicrotask(() => res.end());
      },
    });
    for (const name of ["a", "b", "c"]) admission.offer(request(name), new FakeResponse());
    await settle();
    // Without the turn in between, b's end would admit c at once, before anything else could run.
    expect(order).toEqual(["a", "turn after a", "b", "turn after b", "c", "turn after c"]);
  });

  it("skips a waiting visitor who gave up, lets health checks through at once, and gives a place away while a request waits for a hash", async () => {
    const running: string[] = [];
    const admission = createAdmission<Req, FakeResponse>({ max: 1, run: (req) => running.push(req.name) });
    admission.offer(request("a"), new FakeResponse());
    const gone = request("gone");
    admission.offer(gone, new FakeResponse());
    admission.offer(request("b"), new FakeResponse());
    gone.destroyed = true;
    // "a" waits for a hashing thread: its place goes to the next one still there.
    const back = admission.away();
    await settle();
    expect(running).toEqual(["a", "b"]);
    back();
    back();
    // Full, and a health check comes: it is answered at once all the same.
    admission.offer(request("/healthz"), new FakeResponse(), true);
    expect(running).toEqual(["a", "b", "/healthz"]);
    expect(admission.inProgress).toBe(3);
  });
});
