/**
 * Fault test (issue 14): the SMTP server stops during a rental.
 *
 * The outbox retry job (app/services/mail/outbox.server.ts startEmailDelivery) runs in the server
 * process; EMAIL_RETRY_EVERY_MS and EMAIL_RETRY_FIRST_MS shorten its interval and first backoff here.
 *
 * A private PostgreSQL (as in db-restart.test.ts), the BUILT server with SMTP_URL pointing at a
 * small SMTP server run by the test. One renter goes through a whole rental; the SMTP server is
 * stopped just before the payment is sent (the move-in email is sent right after the charge). Then:
 * the rental completes (confirmation page, no 500); nothing is delivered while SMTP is down; when
 * SMTP is back the move-in email is delivered exactly once within MAIL_WAIT_MS, and its outbox row
 * is marked sent; the server never exits.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import crypto from "node:crypto";
import pg from "pg";
import { clusterSkipReason, createCluster, type PgCluster } from "./support/pg-cluster";
import { startServer, type ServerHandle } from "./support/server";
import { Recorder, Visitor } from "./support/http";
import { rent, renterSpec, type RentalResult } from "./support/rental";
import { prepareDatabase, UNIT_TYPE_PAGE } from "./support/database";
import { startSmtpServer, type SmtpServer } from "./support/smtp";
import { sleep } from "./support/ports";

const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
/** How long SMTP stays down after the payment (several failed retries happen in that time). */
const SMTP_DOWN_MS = num("FAULT_SMTP_DOWN_MS", 3000);
/** How long after SMTP is back the email may take to go out. */
const MAIL_WAIT_MS = num("FAULT_MAIL_WAIT_MS", 20_000);
/** After the first delivery, how long to watch for a duplicate. */
const DUPLICATE_WATCH_MS = num("FAULT_MAIL_DUPLICATE_MS", 3000);

/** The retry job's knobs (assumed names; see the box above). */
const MAIL_ENV = { EMAIL_RETRY_FIRST_MS: "200", EMAIL_RETRY_EVERY_MS: "500", HOUSEKEEPING: "on" };

const skip = clusterSkipReason();
if (skip) console.warn(`[fault] smtp-outage skipped: ${skip}`);

let cluster: PgCluster | undefined;
let server: ServerHandle | undefined;
let smtp: SmtpServer | undefined;
const recorder = new Recorder();
let rental: RentalResult | undefined;
let smtpStoppedAt = 0;
let smtpBackAt = 0;
let deliveredDuringOutage = 0;
let firstDeliveryMs: number | null = null;
let outbox: Array<{ id: number; sent_at: Date | null; error: string | null }> = [];

describe.skipIf(Boolean(skip))("a rental completes while SMTP is down; its email goes out once when SMTP is back", () => {
  beforeAll(async () => {
    const started = Date.now();
    smtp = await startSmtpServer();
    cluster = await createCluster();
    const unitTypeId = await prepareDatabase(cluster.url, { extraUnits: 2 });
    server = await startServer({
      env: { DATABASE_URL: cluster.url, SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, ...MAIL_ENV },
      supervise: false,
    });

    const spec = renterSpec(0, crypto.randomBytes(3).toString("hex"));
    rental = await rent(new Visitor("renter", server.baseUrl, recorder), spec, {
      unitTypeId,
      unitTypePage: UNIT_TYPE_PAGE,
      deadline: Date.now() + 30_000,
      thinkMs: () => 100,
      shouldStop: () => false,
      beforeSubmit: async (step) => {
        if (step === "pay" && smtp!.up()) {
          await smtp!.stop();
          smtpStoppedAt = Date.now();
        }
      },
    });

    // SMTP stays down a while (the first send and some retries fail), then comes back.
    const downFor = SMTP_DOWN_MS - (Date.now() - smtpStoppedAt);
    if (downFor > 0) await sleep(downFor);
    deliveredDuringOutage = smtp.to(spec.email).length;
    await smtp.start();
    smtpBackAt = Date.now();
    while (Date.now() - smtpBackAt < MAIL_WAIT_MS && smtp.to(spec.email).length === 0) await sleep(100);
    if (smtp.to(spec.email).length) {
      firstDeliveryMs = smtp.to(spec.email)[0]!.at - smtpBackAt;
      await sleep(DUPLICATE_WATCH_MS);
    }

    const c = new pg.Client({ connectionString: cluster.url });
    await c.connect();
    outbox = (await c.query(`select id, sent_at, error from email_outbox where lower("to") = lower($1) order by id`, [spec.email])).rows;
    await c.end();
    console.log(
      `FAULT_SUMMARY ${JSON.stringify({
        test: "smtp-outage",
        exits: server.exits.length,
        rentalCompleted: rental.confirmed,
        http500: recorder.samples.filter((s) => s.outcome === 500).length,
        deliveredDuringOutage,
        delivered: smtp.to(spec.email).length,
        firstDeliveryMs,
        outboxRows: outbox.length,
        outboxSent: outbox.filter((r) => r.sent_at).length,
        durationMs: Date.now() - started,
      })}`,
    );
  }, 120_000);

  afterAll(async () => {
    await server?.stop(3000);
    await smtp?.stop();
    cluster?.destroy();
  });

  it("the rental completes: the renter sees the confirmation, nothing answers 500", () => {
    expect(rental!.failure).toBeNull();
    expect(rental!.confirmed).toBe(true);
    expect(recorder.samples.filter((s) => typeof s.outcome !== "number" || (s.outcome >= 500 && s.outcome !== 503)).map((s) => `${s.method} ${s.path} → ${s.outcome}`)).toEqual([]);
  });

  it("the server process never exits", () => {
    expect(server!.exits).toEqual([]);
  });

  it("nothing is delivered while SMTP is down", () => {
    expect(smtpStoppedAt).toBeGreaterThan(0);
    expect(deliveredDuringOutage).toBe(0);
  });

  it(`the move-in email goes out within ${MAIL_WAIT_MS} ms of SMTP's return, exactly once`, () => {
    const mails = smtp!.to(rental!.spec.email);
    expect(mails.length, "move-in emails delivered after SMTP came back").toBe(1);
    expect(mails[0]!.data).toMatch(/Subject: Your rental at /);
    expect(mails[0]!.data).toContain("Your gate code");
  });

  it("its outbox row is kept once and marked sent", () => {
    expect(outbox.length).toBe(1);
    expect(outbox[0]!.sent_at).toBeInstanceOf(Date);
  });
});
