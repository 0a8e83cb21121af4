/**
 * Issue 14: while the database cannot be reached, a form answers 503 with a plain message and what
 * was typed (never a password or card data), not an error page.
 */
import { describe, expect, it } from "vitest";
import type { Database } from "~/db/client.server";
import { FORM_UNAVAILABLE_MESSAGE, PAYMENT_UNAVAILABLE_MESSAGE } from "~/db/unavailable";
import { getCsrfToken } from "~/services/web/csrf.server";
import { action as contactAction } from "~/routes/site/contact";
import { action as loginAction } from "~/routes/portal/login";
import { action as reserveAction } from "~/routes/rental/reserve";
import { action as rentAction } from "~/routes/rental/rent";
import { action as payAction } from "~/routes/portal/pay";
import { loader as dashboardLoader } from "~/routes/portal/_index";
import { isDatabaseUnavailable } from "~/db/unavailable";
import { callRoute } from "../support/route-helpers";

/** A database every call of which fails as a stopped PostgreSQL does (57P01). */
function unreachableDatabase(): Database {
  const fail = () => {
    throw Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
  };
  const handler: ProxyHandler<() => void> = {
    get: (_t, prop) => (prop === "then" ? undefined : proxy),
    apply: fail,
  };
  const proxy: unknown = new Proxy(function () {}, handler);
  return proxy as Database;
}

async function form(path: string, fields: Record<string, string>) {
  const { token, setCookie } = await getCsrfToken(new Request(`http://localhost${path}`));
  return {
    method: "POST",
    body: new URLSearchParams({ csrf: token, ...fields }),
    headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" },
  };
}

type Reply = { result: { status: string; initialValue: Record<string, string>; error: Record<string, string[]> } | null; formError?: string };

describe("forms while the database is unreachable", () => {
  const db = unreachableDatabase();

  it("contact: 503, the message, what was typed kept", async () => {
    const fields = { name: "Ada Lovelace", email: "ada@example.com", message: "Do you have 10x10 units?" };
    const r = await callRoute<Reply>(contactAction, db, "/contact", { init: await form("/contact", fields) });
    expect(r.status).toBe(503);
    expect(r.headers.get("Retry-After")).toBe("30");
    expect(r.data.result!.error[""]).toEqual([FORM_UNAVAILABLE_MESSAGE]);
    expect(r.data.result!.initialValue).toMatchObject(fields);
    expect(r.data.result!.initialValue).not.toHaveProperty("csrf");
  });

  it("sign-in: 503, the e-mail kept, the password never echoed", async () => {
    const r = await callRoute<Reply>(loginAction, db, "/customer-portal/login", {
      init: await form("/customer-portal/login", { email: "ada@example.com", password: "Secret-123" }),
    });
    expect(r.status).toBe(503);
    expect(r.data.result!.initialValue).toEqual({ email: "ada@example.com" });
  });

  it("reservation: 503 with the message", async () => {
    const r = await callRoute<Reply>(reserveAction, db, "/reserve/1", {
      params: { unitTypeId: "1" },
      init: await form("/reserve/1", { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com", phone: "9105550134" }),
    });
    expect(r.status).toBe(503);
    expect(r.data.result!.initialValue).toMatchObject({ first_name: "Ada", phone: "9105550134" });
  });

  it("the rental's pay step: 503 saying a payment is never charged twice", async () => {
    const r = await callRoute<Reply>(rentAction, db, "/rent/1", {
      params: { unitTypeId: "1" },
      init: await form("/rent/1", { intent: "pay", card_number: "4242424242424242", cvv: "123" }),
    });
    expect(r.status).toBe(503);
    expect(r.data.formError).toBe(PAYMENT_UNAVAILABLE_MESSAGE);
    expect(JSON.stringify(r.data)).not.toContain("4242424242424242");
  });

  it("the portal's pay form, the session checked by its layout: 503 with the payment message, the amount kept, no card data", async () => {
    const r = await callRoute<Reply>(payAction, db, "/customer-portal/units/7/pay", {
      init: await form("/customer-portal/units/7/pay", { amount_choice: "other", other_amount: "25.00", card_number: "4242424242424242", cvv: "123" }),
    });
    expect(r.status).toBe(503);
    expect(r.headers.get("Retry-After")).toBe("30");
    expect(r.data.result!.error[""]).toEqual([PAYMENT_UNAVAILABLE_MESSAGE]);
    expect(r.data.result!.initialValue).toMatchObject({ amount_choice: "other", other_amount: "25.00" });
    expect(JSON.stringify(r.data)).not.toContain("4242424242424242");
  });

  it("a portal page: the layout's session check raises the outage in the loader (entry.server answers 503), never a redirect or 404", async () => {
    const error = await callRoute(dashboardLoader, db, "/customer-portal").catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
  });
});
