/**
 * The texting opt-in on the rental (issue 40, decision 511), over HTTP against the BUILT server, at a
 * location on SiteLink (the simulator over SOAP): the details step offers the box unticked, keeps it
 * ticked when the form comes back with an error, stores the consent with its source when the step is
 * saved, and the move-in creates the SiteLink tenant with `bSMSOptIn` as the renter chose (read from
 * the simulator's tenant record). A renter who leaves it unticked has no consent and `bSMSOptIn` false.
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { locations, rentals, textConsents } from "~/db/schema";
import { RENTAL_TEXT_OPT_IN_WORDING } from "~/services/texts/rental.server";
import { startTwilioFake, type RunningTwilioFake } from "../../../twilio-fake";
import { NOW } from "../support/rental-fixtures";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";
import { visitor as cookieVisitor } from "../support/visitor";

let bed: SiteLinkTestbed;
let server: BuiltServer;
let fake: RunningTwilioFake;
let rentPath: string;

const escaped = (text: string) => text.replace(/&/g, "&amp;");
const optInInput = (html: string) => /<input[^>]*name="text_opt_in"[^>]*>/.exec(html)?.[0] ?? null;

const visitor = () => cookieVisitor(() => server.origin);

const details = (email: string, phone: string, optIn: boolean) => ({
  intent: "details",
  website_url: "",
  first_name: "Ada",
  last_name: "Lovelace",
  email,
  cell_phone: phone,
  addr_1: "1 Main St",
  addr_2: "",
  city: "Lumberton",
  region: "NC",
  postal_code: "28358",
  alt_contact_first_name: "",
  alt_contact_last_name: "",
  alt_contact_phone: "",
  web_pw: "Tidy-Unit-42",
  confirm_web_pw: "Tidy-Unit-42",
  ...(optIn ? { text_opt_in: "on" } : {}),
});

/** The rest of the rental over HTTP: protection (the first plan), the signature where e-signing is on, and the card. */
async function finishRental(v: ReturnType<typeof visitor>) {
  const protection = await v.get(`${rentPath}?step=protection`);
  const plan = /name="insurance_plan" value="([^"]+)"/.exec(protection.body)?.[1];
  expect(plan).toBeTruthy();
  const chosen = await v.post(`${rentPath}?step=protection`, { intent: "protection", insurance_plan: plan! });
  expect(chosen.status, chosen.body.slice(0, 300)).toBe(303);
  const sign = await v.get(`${rentPath}?step=sign`);
  if (sign.status === 200 && /name="signed_name"/.test(sign.body)) {
    const signed = await v.post(`${rentPath}?step=sign`, { intent: "sign", signed_name: "Ada Lovelace", consent: "on" });
    expect(signed.status, signed.body.slice(0, 300)).toBe(303);
  }
  const paid = await v.post(`${rentPath}?step=pay`, {
    intent: "pay",
    card_number: "4242424242424242",
    exp_month: "12",
    exp_year: "2030",
    cvv: "123",
    name_on_card: "Ada Lovelace",
    billing_postal_code: "28358",
  });
  expect(paid.status, paid.body.slice(0, 500)).toBe(303);
  expect(paid.location).toContain("/confirmation");
}

const simTenant = (email: string) => bed.sim.control.inspectSite("L001").tenants.find((t) => t.fields.sEmail === email);

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  fake = await startTwilioFake({ port: 0 });
  process.env.TWILIO_ACCOUNT_SID = fake.accountSid;
  process.env.TWILIO_AUTH_TOKEN = fake.authToken;
  process.env.TWILIO_API_BASE = fake.url;
  bed = await startSyncedSiteLinkTestbed(NOW);
  await bed.handle.db.update(locations).set({ sms: "(910) 555-0179" }).where(eq(locations.id, bed.lumberton.id));
  rentPath = `/rent/${(await roomiestSyncedUnitType(bed, bed.lumberton)).id}`;
  server = await startBuiltServer(bed.handle);
  process.env.PUBLIC_URL = server.origin;
});

afterAll(async () => {
  for (const k of ["FAKE_NOW", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_API_BASE", "PUBLIC_URL"]) delete process.env[k];
  await server?.close();
  await fake?.close();
  await bed?.close();
});

describe("the texting opt-in on the rental", () => {
  it("is offered unticked, kept ticked when the form comes back with an error, stored as consent from the rental, and reaches SiteLink's bSMSOptIn", async () => {
    const v = visitor();
    const email = `opt-in-${Date.now()}@example.com`;
    const first = await v.get(`${rentPath}?step=details`);
    expect(first.body).toContain(escaped(RENTAL_TEXT_OPT_IN_WORDING));
    expect(optInInput(first.body)).not.toMatch(/checked/);

    // An error elsewhere on the form (no city): the box comes back as the renter left it.
    const wrong = await v.post(`${rentPath}?step=details`, { ...details(email, "(910) 555-0161", true), city: "" });
    expect(wrong.status).toBe(400);
    expect(optInInput(wrong.body)).toMatch(/checked/);
    expect(await bed.handle.db.select().from(textConsents).where(eq(textConsents.phone, "+19105550161"))).toEqual([]);

    const saved = await v.post(`${rentPath}?step=details`, details(email, "(910) 555-0161", true));
    expect(saved.status, saved.body.slice(0, 300)).toBe(303);
    const [rental] = await bed.handle.db.select().from(rentals).where(eq(rentals.status, "open"));
    const [consent] = await bed.handle.db.select().from(textConsents).where(eq(textConsents.phone, "+19105550161"));
    expect(consent).toMatchObject({ optedIn: true, source: "rental_details", wording: RENTAL_TEXT_OPT_IN_WORDING, locationId: bed.lumberton.id, rentalId: rental!.id });
    expect(consent!.givenAt.toISOString()).toBe(NOW.toISOString());
    // Back on the step, the box shows the answer saved.
    expect(optInInput((await v.get(`${rentPath}?step=details`)).body)).toMatch(/checked/);

    await finishRental(v);
    const tenant = simTenant(email);
    expect(tenant, "the SiteLink tenant").toBeTruthy();
    expect(tenant!.fields.bSMSOptIn).toBe(true);
    expect(tenant!.fields.sMobile).toBe("(910) 555-0161");
  });

  it("left unticked: no consent stored, and the SiteLink tenant has bSMSOptIn false", async () => {
    const v = visitor();
    const email = `no-opt-in-${Date.now()}@example.com`;
    const saved = await v.post(`${rentPath}?step=details`, details(email, "(910) 555-0162", false));
    expect(saved.status, saved.body.slice(0, 300)).toBe(303);
    await finishRental(v);
    expect(await bed.handle.db.select().from(textConsents).where(eq(textConsents.phone, "+19105550162"))).toEqual([]);
    expect(simTenant(email)!.fields.bSMSOptIn).toBe(false);
  });
});
