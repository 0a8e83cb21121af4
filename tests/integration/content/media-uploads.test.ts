/**
 * Image uploads (issue 24, decisions 320–322) over real HTTP (tests/integration/support/app-server.ts):
 * uploads are checked by their content, stored as WebP sizes in the database, served with immutable
 * caching, kept in the draft until published, and shown with srcset once applied.
 */
import { and, eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { amenities, auditEvents, changesetChanges, locations, mediaFiles, mediaVariants, unitTypes } from "~/db/schema";
import { ALT_MESSAGES, MAX_UPLOAD_BYTES, UPLOAD_BODY_LIMIT, UPLOAD_MESSAGES, variantWidths } from "~/domain/content/media";
import { bodyLimitFor } from "~/domain/web/request-rules";
import { applyChanges, changesOf, currentDraftId } from "~/services/content/changesets.server";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let app: AppServer;
let owner: TestStaffMember;
let manager: TestStaffMember;
let loc: { id: number; slug: string; accountId: number };
let otherLoc: number;
let csrf: { cookie: string; token: string };

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  const locs = await handle.db.select({ id: locations.id, slug: locations.urlSlug, accountId: locations.accountId, status: locations.status }).from(locations).orderBy(locations.id);
  loc = locs.find((l) => l.status === "Live")!;
  otherLoc = locs.find((l) => l.id !== loc.id)!.id;
  owner = await signedInStaffMember(handle.db, { accountId: loc.accountId, role: "owner" });
  manager = await signedInStaffMember(handle.db, { accountId: loc.accountId, role: "manager", locationIds: [loc.id] });
  const minted = await getCsrfToken(new Request("http://localhost/admin"));
  csrf = { cookie: minted.setCookie!.split(";")[0]!, token: minted.token };
  app = await startAppServer(handle.db);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await handle?.close();
});

type Upload = { name: string; type: string; bytes: Uint8Array };

async function post(path: string, fields: Record<string, string>, member: TestStaffMember, file?: Upload) {
  const body = new FormData();
  body.set(CSRF_FIELD, (await getCsrfToken(new Request(app.origin + path, { headers: { Cookie: member.cookie } }))).token);
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  if (file) body.set("file", new File([new Uint8Array(file.bytes)], file.name, { type: file.type }));
  const res = await fetch(app.origin + path, { method: "POST", redirect: "manual", headers: { Cookie: `${csrf.cookie}; ${member.cookie}`, Referer: app.origin + path }, body });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

async function get(path: string, member?: TestStaffMember) {
  const res = await fetch(app.origin + path, { redirect: "manual", headers: member ? { Cookie: member.cookie } : {} });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const photosPath = () => `/admin/content/locations/${loc.id}/photos`;

/** A photo with some detail (so sizes differ), as the format asked. */
function photo(width: number, height: number) {
  return sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } }).composite([
    { input: { create: { width: Math.max(1, Math.floor(width / 3)), height: Math.max(1, Math.floor(height / 3)), channels: 3, background: { r: 240, g: 200, b: 20 } } }, top: 0, left: 0 },
  ]);
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
const errorOf = (html: string, message: string) => html.includes(escapeHtml(message)) || html.includes(message);

describe("an upload", () => {
  it("a PNG becomes WebP sizes in the database, served with immutable caching and nosniff", async () => {
    const png = await photo(1300, 900).png().toBuffer();
    const r = await post(photosPath(), { intent: "add-photo", target: "new", alt: "Drive-up units in the sun" }, manager, { name: "units.png", type: "image/png", bytes: png });
    expect(r.status, r.body.slice(0, 500)).toBe(303);
    expect(r.location).toBe(`${photosPath()}?done=add-photo`);

    const draftId = await currentDraftId(handle.db, loc.accountId);
    const [change] = await handle.db
      .select()
      .from(changesetChanges)
      .where(and(eq(changesetChanges.changesetId, draftId!), eq(changesetChanges.entity, "locationImage"), eq(changesetChanges.op, "create")));
    const src = String(change!.values.src);
    expect(src).toMatch(/^\/media\/[0-9a-f]{64}-1300\.webp$/);
    expect(change!.values).toMatchObject({ locationId: loc.id, alt: "Drive-up units in the sun", width: 1300, height: 900 });

    const sha = src.slice("/media/".length, "/media/".length + 64);
    const [file] = await handle.db.select().from(mediaFiles).where(eq(mediaFiles.sha256, sha));
    expect(file).toMatchObject({ format: "png", width: 1300, height: 900, originalName: "units.png", uploadedBy: manager.staffId });
    const stored = await handle.db.select({ width: mediaVariants.width }).from(mediaVariants).where(eq(mediaVariants.mediaId, file!.id));
    expect(stored.map((v) => v.width).sort((a, b) => a - b)).toEqual([240, 480, 960, 1300]);

    for (const width of variantWidths(1300)) {
      const res = await get(`/media/${sha}-${width}.webp`);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("image/webp");
      expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      const meta = await sharp(res.bytes).metadata();
      expect({ format: meta.format, width: meta.width }).toEqual({ format: "webp", width });
    }
    expect((await get(`/media/${sha}-700.webp`)).status).toBe(404);
    expect((await get(`/media/${"0".repeat(64)}-240.webp`)).status).toBe(404);
    expect((await get(`/media/not-a-file.png`)).status).toBe(404);

    const audit = await handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, "media.upload"), eq(auditEvents.entityId, String(file!.id))));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.staffId).toBe(manager.staffId);
  });

  it("a JPEG is turned upright and loses its EXIF and GPS data", async () => {
    const jpeg = await photo(900, 600)
      .jpeg()
      .withExif({ IFD0: { Make: "Phone", Orientation: "6" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "35/1 0/1 0/1" } })
      .toBuffer();
    const before = await sharp(jpeg).metadata();
    expect(before.exif).toBeDefined();
    const r = await post(photosPath(), { intent: "add-photo", target: "new", alt: "The office" }, owner, { name: "office.jpg", type: "image/jpeg", bytes: jpeg });
    expect(r.status, r.body.slice(0, 500)).toBe(303);
    const [file] = await handle.db.select().from(mediaFiles).where(eq(mediaFiles.originalName, "office.jpg"));
    const upright = before.orientation === 6;
    expect({ width: file!.width, height: file!.height }).toEqual(upright ? { width: 600, height: 900 } : { width: 900, height: 600 });
    const [variant] = await handle.db.select().from(mediaVariants).where(and(eq(mediaVariants.mediaId, file!.id), eq(mediaVariants.width, 240)));
    const out = await sharp(variant!.bytes).metadata();
    expect(out.format).toBe("webp");
    expect(out.exif).toBeUndefined();
    expect(out.xmp).toBeUndefined();
  });

  it.each([
    ["a text file named .jpg", { name: "holiday.jpg", type: "image/jpeg", bytes: new TextEncoder().encode("this is not a photo at all\n".repeat(50)) }, UPLOAD_MESSAGES.notImage],
    [
      "an SVG",
      { name: "logo.png", type: "image/png", bytes: new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><script>alert(1)</script><rect width="400" height="300"/></svg>') },
      UPLOAD_MESSAGES.svg,
    ],
    ["a file over 10 MB", { name: "big.jpg", type: "image/jpeg", bytes: new Uint8Array(MAX_UPLOAD_BYTES + 1) }, UPLOAD_MESSAGES.tooLarge],
  ])("%s is refused beside the file field, the typed description kept", async (_what, file, message) => {
    const r = await post(photosPath(), { intent: "add-photo", target: "new", alt: "Sunny units" }, owner, file);
    expect(r.status).toBe(400);
    expect(errorOf(r.body, message), r.body.slice(0, 300)).toBe(true);
    expect(r.body).toMatch(/id="new-photo-file-error"/);
    expect(r.body).toContain('value="Sunny units"');
  });

  it("images too large or too small in pixels are refused", async () => {
    const wide = await sharp({ create: { width: 8100, height: 20, channels: 3, background: "#888" } }).png().toBuffer();
    const narrow = await sharp({ create: { width: 150, height: 150, channels: 3, background: "#888" } }).png().toBuffer();
    const r1 = await post(photosPath(), { intent: "add-photo", target: "new", alt: "x" }, owner, { name: "wide.png", type: "image/png", bytes: wide });
    expect(r1.status).toBe(400);
    expect(errorOf(r1.body, UPLOAD_MESSAGES.tooBig)).toBe(true);
    const r2 = await post(photosPath(), { intent: "add-photo", target: "new", alt: "x" }, owner, { name: "narrow.png", type: "image/png", bytes: narrow });
    expect(r2.status).toBe(400);
    expect(errorOf(r2.body, UPLOAD_MESSAGES.tooNarrow)).toBe(true);
  });

  it("a good file without its description is kept: the form sends it back and needs only the text", async () => {
    const png = await photo(640, 480).png().toBuffer();
    const r = await post(photosPath(), { intent: "add-photo", target: "new", alt: "" }, owner, { name: "gate.png", type: "image/png", bytes: png });
    expect(r.status).toBe(400);
    expect(errorOf(r.body, ALT_MESSAGES.missing)).toBe(true);
    const media = /name="media" value="([^"]+)"/.exec(r.body)?.[1];
    expect(media).toMatch(/^\/media\/[0-9a-f]{64}-640\.webp$/);
    const again = await post(photosPath(), { intent: "add-photo", target: "new", alt: "", decorative: "1", media: media! }, owner);
    expect(again.status, again.body.slice(0, 300)).toBe(303);
    // Another account's (or a made-up) address is not accepted as a file.
    const forged = await post(photosPath(), { intent: "add-photo", target: "new", alt: "x", media: `/media/${"f".repeat(64)}-640.webp` }, owner);
    expect(forged.status).toBe(400);
    expect(errorOf(forged.body, UPLOAD_MESSAGES.missing)).toBe(true);
  });

  it("upload forms' bodies may be up to the upload limit; other forms keep theirs", () => {
    expect(bodyLimitFor(photosPath())).toBe(UPLOAD_BODY_LIMIT);
    expect(bodyLimitFor("/admin/content/unit-types/3/photos")).toBe(UPLOAD_BODY_LIMIT);
    expect(bodyLimitFor("/admin/content/images")).toBe(UPLOAD_BODY_LIMIT);
    expect(bodyLimitFor("/admin/staff")).toBeLessThan(100_000);
    expect(bodyLimitFor("/admin/content/locations/3/photos/x")).toBeLessThan(100_000);
  });
});

describe("drafted photos and the live page", () => {
  it("a drafted photo is not on the live page; once the draft is applied the page shows it with srcset", async () => {
    const png = await photo(2400, 1600).png().toBuffer();
    const r = await post(photosPath(), { intent: "add-photo", target: "new", alt: "Climate-controlled hallway" }, owner, { name: "hall.png", type: "image/png", bytes: png });
    expect(r.status, r.body.slice(0, 300)).toBe(303);
    const page = await get(photosPath(), owner);
    expect(text(page.bytes)).toContain("Climate-controlled hallway");
    const draftId = (await currentDraftId(handle.db, loc.accountId))!;
    const changes = await changesOf(handle.db, draftId);
    const hall = changes.find((c) => c.values.alt === "Climate-controlled hallway")!;
    const src = String(hall.values.src);
    expect(src).toMatch(/-1920\.webp$/);

    const before = text((await get(`/locations/${loc.slug}`)).bytes);
    expect(before).not.toContain(src);

    await handle.db.transaction(async (tx) => {
      await applyChanges(tx, changes);
    });
    const after = text((await get(`/locations/${loc.slug}`)).bytes);
    const sha = src.slice("/media/".length, "/media/".length + 64);
    expect(after).toContain(`alt="Climate-controlled hallway"`);
    expect(after).toContain(`/media/${sha}-240.webp 240w, /media/${sha}-480.webp 480w, /media/${sha}-960.webp 960w, /media/${sha}-1440.webp 1440w, /media/${sha}-1920.webp 1920w`);
    expect(after).toMatch(/srcSet="|srcset="/);
  });
});

describe("other image fields", () => {
  it("a unit type's photos and a location's logo go into the draft", async () => {
    const [type] = await handle.db.select({ id: unitTypes.id }).from(unitTypes).where(eq(unitTypes.locationId, loc.id)).limit(1);
    const png = await photo(800, 600).png().toBuffer();
    const r = await post(`/admin/content/unit-types/${type!.id}/photos`, { intent: "add-photo", target: "new", alt: "A 10×10 unit, door open" }, manager, { name: "unit.png", type: "image/png", bytes: png });
    expect(r.status, r.body.slice(0, 300)).toBe(303);
    const page = text((await get(`/admin/content/unit-types/${type!.id}/photos`, manager)).bytes);
    expect(page).toContain("A 10×10 unit, door open");
    const logo = await post(photosPath(), { intent: "upload", target: "location.mainLogo", alt: "Gatehouse" }, manager, { name: "logo.png", type: "image/png", bytes: await photo(400, 100).png().toBuffer() });
    expect(logo.status, logo.body.slice(0, 300)).toBe(303);
  });

  it("the website's logo is an owner's: a manager's upload to it is not found", async () => {
    const png = await photo(440, 96).png().toBuffer();
    const ok = await post("/admin/content/images", { intent: "upload", target: "website.logo", alt: "Gatehouse Self Storage" }, owner, { name: "logo.png", type: "image/png", bytes: png });
    expect(ok.status, ok.body.slice(0, 300)).toBe(303);
    const refused = await post("/admin/content/images", { intent: "upload", target: "website.logo", alt: "Gatehouse Self Storage" }, manager, { name: "logo.png", type: "image/png", bytes: png });
    expect(refused.status).toBe(404);
    const elsewhere = await post(`/admin/content/locations/${otherLoc}/photos`, { intent: "add-photo", target: "new", alt: "x" }, manager, { name: "x.png", type: "image/png", bytes: png });
    expect(elsewhere.status).toBe(404);
  });
});

describe("an amenity's image (decision 363)", () => {
  it("is uploaded on the location's photos page into the draft (a description or decorative required, a checked file), and the location page shows it once applied", async () => {
    const [amenity] = await handle.db.select({ id: amenities.id, label: amenities.label, image: amenities.image }).from(amenities).where(eq(amenities.locationId, loc.id)).orderBy(amenities.id).limit(1);
    const target = `amenity:id:${amenity!.id}`;
    const page = text((await get(photosPath(), manager)).bytes);
    expect(page).toContain(`Image of ${amenity!.label}`);
    expect(page).toContain(`value="${target}"`);
    // Not an image (checked by content, not by name), then no description: refused beside the fields.
    const notImage = await post(photosPath(), { intent: "upload", target, alt: "Gate" }, manager, { name: "gate.png", type: "image/png", bytes: new TextEncoder().encode("not a picture") });
    expect(notImage.status).toBe(400);
    const png = await photo(480, 480).png().toBuffer();
    const noAlt = await post(photosPath(), { intent: "upload", target, alt: "" }, manager, { name: "gate.png", type: "image/png", bytes: png });
    expect(noAlt.status).toBe(400);
    expect(errorOf(noAlt.body, ALT_MESSAGES.missing)).toBe(true);
    const media = /name="media" value="([^"]+)"/.exec(noAlt.body)![1]!;
    const saved = await post(photosPath(), { intent: "upload", target, alt: "Keypad at the gate", media }, manager);
    expect(saved.status, saved.body.slice(0, 300)).toBe(303);
    const [live] = await handle.db.select({ image: amenities.image }).from(amenities).where(eq(amenities.id, amenity!.id));
    expect(live!.image).toEqual(amenity!.image);
    const draftId = (await currentDraftId(handle.db, loc.accountId))!;
    const changes = await changesOf(handle.db, draftId);
    const change = changes.find((c) => c.entity === "amenity" && c.recordId === amenity!.id)!;
    expect((change.values.image as { alt: string; src: string }).alt).toBe("Keypad at the gate");
    const src = (change.values.image as { src: string }).src;
    expect(text((await get(`/locations/${loc.slug}`)).bytes)).not.toContain(src);
    await handle.db.transaction(async (tx) => {
      await applyChanges(tx, [change]);
    });
    const after = text((await get(`/locations/${loc.slug}`)).bytes);
    expect(after).toContain(src);
    expect(after).toContain('alt="Keypad at the gate"');
    // Another location's amenity is not found for this manager; an unknown amenity neither.
    const [elsewhere] = await handle.db.select({ id: amenities.id }).from(amenities).where(eq(amenities.locationId, otherLoc)).limit(1);
    if (elsewhere) expect((await post(`/admin/content/locations/${otherLoc}/photos`, { intent: "clear", target: `amenity:id:${elsewhere.id}` }, manager)).status).toBe(404);
    expect((await post(photosPath(), { intent: "clear", target: "amenity:id:999999" }, manager)).status).toBe(404);
    const cleared = await post(photosPath(), { intent: "clear", target }, manager);
    expect(cleared.status).toBe(303);
  });
});
