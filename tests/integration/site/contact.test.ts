import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { desc } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { contactMessages, emailOutbox } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { submitContactMessage } from "~/services/site/contact.server";
import { getWebsite } from "~/db/queries/site.server";
import { listLocations } from "~/db/queries/locations.server";
import { action as contactAction } from "~/routes/site/contact";
import { action as locationAction } from "~/routes/site/location";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";

let handle: DatabaseHandle;
beforeEach(async () => {
  handle = await createTestDatabase();
});
afterEach(() => handle?.close());

/** A form post as the browser sends it: the CSRF cookie and the same token in the hidden field. */
async function formPost(fields: Record<string, string>, options: { csrf?: "ok" | "missing" | "wrong" } = {}) {
  const { token, setCookie } = await getCsrfToken(new Request("http://localhost/contact"));
  const cookie = setCookie!.split(";")[0]!;
  const body = new URLSearchParams(fields);
  if (options.csrf !== "missing") body.set("csrf", options.csrf === "wrong" ? token.replace(/^./, (c) => (c === "a" ? "b" : "a")) : token);
  return { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } };
}

const good = { name: "Ann Lee", email: "ann@example.com", phone: "910 555 0199", location: "jacksonville-nc-28546", message: "Do you have a 10x10?" };

describe("the contact form", () => {
  it("stores the message, queues the office's email (no SMTP here) and redirects to the confirmation", async () => {
    const r = await callRoute(contactAction, handle.db, "/contact", { init: await formPost(good) });
    expect(r.status).toBe(303);
    expect(r.response!.headers.get("Location")).toBe("/contact?sent=1");

    const [message] = await handle.db.select().from(contactMessages);
    expect(message).toMatchObject({ kind: "contact", name: "Ann Lee", email: "ann@example.com", phone: "(910) 555-0199", message: "Do you have a 10x10?" });
    const jacksonville = (await listLocations(handle.db, message!.accountId)).find((l) => l.urlSlug === "jacksonville-nc-28546")!;
    expect(message!.locationId).toBe(jacksonville.id);

    const [email] = await handle.db.select().from(emailOutbox).orderBy(desc(emailOutbox.id));
    expect(email).toMatchObject({ subject: "Website message from Ann Lee (Jacksonville)", sentAt: null, error: null });
    expect(email!.to).toContain("@");
    expect(email!.text).toContain("Email: ann@example.com");
    expect(email!.text).toContain("Phone: (910) 555-0199");
    expect(email!.text).toContain("Do you have a 10x10?");
  });

  it("answers 400 with a plain-words error per field and the typed values, storing nothing", async () => {
    const r = await callRoute<{ result: { error: Record<string, string[]>; initialValue: Record<string, string> } }>(
      contactAction,
      handle.db,
      "/contact",
      { init: await formPost({ name: "", email: "ann@", phone: "555", message: "" }) },
    );
    expect(r.status).toBe(400);
    expect(r.data.result.error).toEqual({
      name: ["Enter your name."],
      email: ["Enter a valid email address, like name@example.com."],
      phone: ["Enter a 10-digit phone number, like (910) 555-0134."],
      message: ["Enter your message."],
    });
    expect(r.data.result.initialValue).toMatchObject({ email: "ann@", phone: "555" });
    expect(await handle.db.select().from(contactMessages)).toEqual([]);
    expect(await handle.db.select().from(emailOutbox)).toEqual([]);
  });

  it.each([
    ["missing", 403],
    ["wrong", 403],
  ] as const)("refuses a post whose CSRF token is %s", async (csrf, status) => {
    const r = await callRoute(contactAction, handle.db, "/contact", { init: await formPost(good, { csrf }) });
    expect(r.status).toBe(status);
    expect(await handle.db.select().from(contactMessages)).toEqual([]);
  });

  it("silently drops a post whose honeypot is filled (a bot) but shows the same confirmation", async () => {
    const r = await callRoute(contactAction, handle.db, "/contact", { init: await formPost({ ...good, website_url: "http://spam.example" }) });
    expect(r.status).toBe(303);
    expect(r.response!.headers.get("Location")).toBe("/contact?sent=1");
    expect(await handle.db.select().from(contactMessages)).toEqual([]);
    expect(await handle.db.select().from(emailOutbox)).toEqual([]);
  });
});

describe("the coming-soon notify form", () => {
  it("stores a notify request for the location and emails the office", async () => {
    const r = await callRoute(locationAction, handle.db, "/locations/kinston-nc-28501", {
      params: { slug: "kinston-nc-28501" },
      init: await formPost({ name: "Bo", email: "bo@example.com", location: "kinston-nc-28501" }),
    });
    expect(r.status).toBe(303);
    expect(r.response!.headers.get("Location")).toBe("/locations/kinston-nc-28501?notified=1#notify");
    const [message] = await handle.db.select().from(contactMessages);
    expect(message).toMatchObject({ kind: "notify", name: "Bo", email: "bo@example.com", message: "" });
    const [email] = await handle.db.select().from(emailOutbox);
    expect(email!.subject).toBe("Notify me when Kinston opens: Bo");
  });

  it("is not offered on a live location", async () => {
    const r = await callRoute(locationAction, handle.db, "/locations/lumberton-nc-28358", {
      params: { slug: "lumberton-nc-28358" },
      init: await formPost({ name: "Bo", email: "bo@example.com" }),
    });
    expect(r.status).toBe(405);
    expect(await handle.db.select().from(contactMessages)).toEqual([]);
  });
});

describe("submitContactMessage", () => {
  it("stores the message without an email when the office has no address", async () => {
    const accountId = (await getWebsite(handle.db))!.accountId;
    const { id } = await submitContactMessage(handle.db, {
      accountId,
      kind: "contact",
      name: "C",
      email: "c@example.com",
      message: "Hi",
      officeEmail: null,
    });
    expect(id).toEqual(expect.any(Number));
    expect(await handle.db.select().from(emailOutbox)).toEqual([]);
  });
});
