/**
 * The queue in front of the PostgreSQL pool (issue 22, decision 205): a busy pool is not a dead
 * database.
 *
 * node-postgres bounds two different waits with one setting (`connectionTimeoutMillis`): opening a
 * connection to the server, and waiting for a connection of the pool to be free. With its 800 ms (decision
 * 080) a rush of visitors queued behind ten busy connections was answered "503 database unavailable"
 * while the database was fine. This gate holds one slot per pool connection, so the pool itself never
 * queues and its timeout bounds only the opening of a connection; waiting for a slot has its own, longer
 * bound and a bounded queue length. When opening a connection fails because the database cannot be
 * reached, everyone waiting gets that answer at once instead of waiting out their own bound.
 *
 * Pure: timers only, no I/O.
 */
import { DatabaseBusyError } from "./unavailable";

interface ConnectionGateOptions {
  /** As many as the pool has connections. */
  slots: number;
  /** How many may wait for a slot; one more is refused at once (DatabaseBusyError). */
  maxWaiting: number;
  /** How long one may wait for a slot before it is refused (DatabaseBusyError). */
  waitTimeoutMs: number;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class ConnectionGate {
  private inUse = 0;
  private readonly waiters: Waiter[] = [];

  constructor(private readonly options: ConnectionGateOptions) {
    if (!(options.slots >= 1)) throw new Error("A connection gate needs at least one slot");
  }

  /** Slots taken. */
  get active(): number {
    return this.inUse;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves when the caller holds a slot (first come, first served); it must call `release()` once. */
  acquire(): Promise<void> {
    if (this.inUse < this.options.slots && this.waiters.length === 0) {
      this.inUse++;
      return Promise.resolve();
    }
    if (this.waiters.length >= this.options.maxWaiting) {
      return Promise.reject(new DatabaseBusyError(`database busy: ${this.waiters.length} statements already waiting for a connection`));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new DatabaseBusyError(`database busy: no free connection within ${this.options.waitTimeoutMs} ms`));
        }, this.options.waitTimeoutMs),
      };
      (waiter.timer as { unref?: () => void }).unref?.();
      this.waiters.push(waiter);
    });
  }

  /** Gives a slot back: to the first one waiting, else to the gate. */
  release(): void {
    const next = this.waiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve();
      return;
    }
    if (this.inUse > 0) this.inUse--;
  }

  /** The database cannot be reached: everyone waiting is told so now (they would only fail later). */
  failWaiting(error: unknown): void {
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }
}
