/**
 * The console's "Add a location" form (issue 40, decision 620): one schema for the browser (Conform's
 * `onValidate`) and the server (`parseWithZod`), and the pure rules that turn what was typed into the
 * location's records: its slug (decision 003), its time zone record (spec §3), its hours lines.
 */
import { z } from "zod";
import { locationSlug } from "../shared/slug";
import { formatPhone, usPhoneProblem } from "../shared/phone";
import { US_STATES } from "../shared/us-states";
import { uploadFieldNames } from "./media";

/** The form's field names of photo `n` (1, 2, 3; decision 680): `photo1_file`, `photo1_alt` … */
export const photoFields = (n: number) => uploadFieldNames(`photo${n}_`);

/** The time zones a location may be in (the United States'), with what the software's record says of each. */
export const LOCATION_TIME_ZONES = [
  { id: "America/New_York", label: "Eastern (New York)", name: "Eastern Standard Time", rawOffset: -18_000 },
  { id: "America/Chicago", label: "Central (Chicago)", name: "Central Standard Time", rawOffset: -21_600 },
  { id: "America/Denver", label: "Mountain (Denver)", name: "Mountain Standard Time", rawOffset: -25_200 },
  { id: "America/Phoenix", label: "Arizona (Phoenix, no daylight saving)", name: "Mountain Standard Time", rawOffset: -25_200 },
  { id: "America/Los_Angeles", label: "Pacific (Los Angeles)", name: "Pacific Standard Time", rawOffset: -28_800 },
  { id: "America/Anchorage", label: "Alaska (Anchorage)", name: "Alaska Standard Time", rawOffset: -32_400 },
  { id: "Pacific/Honolulu", label: "Hawaii (Honolulu)", name: "Hawaii-Aleutian Standard Time", rawOffset: -36_000 },
] as const;

/** The `time_zone` record of spec §3 for a zone of the list (the shape the seed stores). */
export function timeZoneRecord(id: string) {
  const zone = LOCATION_TIME_ZONES.find((z) => z.id === id) ?? LOCATION_TIME_ZONES[0];
  return { dstOffset: 0, rawOffset: zone.rawOffset, status: "OK", timeZoneId: zone.id, timeZoneName: zone.name };
}

/** The two hours blocks of spec §3 and the three lines of a week the form asks for each. */
export const HOURS_BLOCKS = [
  { type: "gate", heading: "Gate hours" },
  { type: "office", heading: "Office hours" },
] as const;
export const HOURS_LINES = [
  { key: "weekdays", label: "Monday to Friday", days: ["Mo", "Tu", "We", "Th", "Fr"] },
  { key: "saturday", label: "Saturday", days: ["Sa"] },
  { key: "sunday", label: "Sunday", days: ["Su"] },
] as const;
export const HOURS_MODES = [
  { value: "hours", label: "Open from … to …" },
  { value: "24h", label: "Open 24 hours" },
  { value: "closed", label: "Closed" },
] as const;
type HoursMode = (typeof HOURS_MODES)[number]["value"];

/** The form's field names for one line of hours: `gate_weekdays`, `gate_weekdays_open`, `gate_weekdays_close`. */
export const hoursFieldNames = (block: string, line: string) => ({ mode: `${block}_${line}`, open: `${block}_${line}_open`, close: `${block}_${line}_close` });

export const STORAGE_CHOICES = [
  { value: "demo", label: "Demo units", hint: "A ready-made inventory of 12 unit types kept by this website: rentals work at once (for a demonstration or a trial)." },
  { value: "sitelink", label: "SiteLink", hint: "Units, prices and rentals come from the location's own SiteLink account. It goes online only after its go-live check passes." },
] as const;

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const blank = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const text = (max: number, message: string) => z.preprocess(blank, z.string().min(1, message).max(max, `Use at most ${max} characters.`));
const optionalText = (max: number) => z.preprocess(blank, z.string().max(max, `Use at most ${max} characters.`));
const phone = (message: string) =>
  z.preprocess(
    blank,
    z
      .string()
      .min(1, message)
      .refine((v) => usPhoneProblem(v) === null, "Enter a US phone number such as (910) 555-0134.")
      .transform(formatPhone),
  );
const optionalPhone = z.preprocess(
  blank,
  z
    .string()
    .refine((v) => v === "" || usPhoneProblem(v) === null, "Enter a US phone number that takes texts, such as (910) 555-0134, or leave it empty.")
    .transform((v) => (v ? formatPhone(v) : null)),
);

const hoursShape: Record<string, z.ZodType> = {};
for (const b of HOURS_BLOCKS) {
  for (const l of HOURS_LINES) {
    const names = hoursFieldNames(b.type, l.key);
    hoursShape[names.mode] = z.enum(["hours", "24h", "closed"], { error: "Choose open, open 24 hours or closed." });
    hoursShape[names.open] = optionalText(5);
    hoursShape[names.close] = optionalText(5);
  }
}

/**
 * The form. SiteLink's fields are needed only when SiteLink is chosen; the password is given either as
 * the name of an environment variable (`SITELINK_…_PASSWORD`) or typed (stored encrypted, never shown
 * again): the service checks those against the settings' own rules.
 */
export const newLocationSchema = z
  .object({
    name: text(200, "Enter the location's name."),
    status: z.enum(["Live", "Coming Soon"], { error: "Choose Live or Coming soon." }),
    street1: text(200, "Enter the street address."),
    street2: optionalText(200),
    city: text(100, "Enter the city."),
    stateProvince: z.preprocess(
      (v) => blank(v).toUpperCase(),
      z.string().refine((v) => US_STATES.some(([code]) => code === v), "Choose the state."),
    ),
    postal: z.preprocess(blank, z.string().regex(/^\d{5}(-\d{4})?$/, "Enter a ZIP code such as 28358.")),
    timeZone: z.enum(LOCATION_TIME_ZONES.map((t) => t.id) as [string, ...string[]], { error: "Choose the location's time zone." }),
    phoneNumber: phone("Enter the office's phone number."),
    sms: optionalPhone,
    ...hoursShape,
    software: z.enum(["demo", "sitelink"], { error: "Choose how the location's units are kept." }),
    sitelinkEndpoint: optionalText(500),
    sitelinkCorpCode: optionalText(50),
    sitelinkLocationCode: optionalText(50),
    sitelinkUser: optionalText(100),
    sitelinkPasswordEnv: optionalText(100),
    sitelinkPassword: z.preprocess((v) => (typeof v === "string" ? v : ""), z.string().max(200, "Use at most 200 characters.")),
    sitelinkApiKeyEnv: optionalText(100),
    sitelinkApiKey: z.preprocess((v) => (typeof v === "string" ? v.trim() : ""), z.string().max(200, "Use at most 200 characters.")),
  })
  .superRefine((v, ctx) => {
    const values = v as Record<string, unknown>;
    for (const b of HOURS_BLOCKS) {
      for (const l of HOURS_LINES) {
        const names = hoursFieldNames(b.type, l.key);
        if (values[names.mode] !== "hours") continue;
        const open = String(values[names.open] ?? "");
        const close = String(values[names.close] ?? "");
        const what = `${b.heading.toLowerCase()}, ${l.label}`;
        if (!TIME.test(open)) ctx.addIssue({ code: "custom", path: [names.open], message: `Enter the opening time (${what}) as HH:MM, for example 09:00.` });
        if (!TIME.test(close)) ctx.addIssue({ code: "custom", path: [names.close], message: `Enter the closing time (${what}) as HH:MM, for example 18:00.` });
        else if (TIME.test(open) && close <= open) ctx.addIssue({ code: "custom", path: [names.close], message: `The closing time must be after the opening time (${open}).` });
      }
    }
    if (v.software !== "sitelink") return;
    const need = (field: keyof typeof v, message: string) => {
      if (!v[field]) ctx.addIssue({ code: "custom", path: [field], message });
    };
    need("sitelinkEndpoint", "Enter the SiteLink web service address (https://…/CallCenterWs.asmx).");
    need("sitelinkCorpCode", "Enter the SiteLink corp code.");
    need("sitelinkLocationCode", "Enter the SiteLink location code.");
    need("sitelinkUser", "Enter the SiteLink user name.");
    // SiteLink takes an API key as "user:::KEY" in the user name; typed there it would be kept in clear.
    if (v.sitelinkUser.includes(":::")) ctx.addIssue({ code: "custom", path: ["sitelinkUser"], message: "Enter the user name alone, without :::. An API key goes in its own field below, where it is kept encrypted." });
    if (v.sitelinkApiKeyEnv && v.sitelinkApiKey) {
      ctx.addIssue({ code: "custom", path: ["sitelinkApiKeyEnv"], message: "Give the SiteLink API key one way: the name of an environment variable, or the key itself (not both)." });
    }
    if (!v.sitelinkPasswordEnv === !v.sitelinkPassword) {
      ctx.addIssue({ code: "custom", path: ["sitelinkPasswordEnv"], message: "Give the SiteLink password one way: the name of an environment variable, or the password itself (not both)." });
    }
  });
export type NewLocationInput = z.infer<typeof newLocationSchema>;

/** The slug the location will have (decision 003): city, state and ZIP. */
export const newLocationSlug = (v: Pick<NewLocationInput, "city" | "stateProvince" | "postal">) => locationSlug(v);

interface HoursLine {
  days: string;
  open: string | null;
  close: string | null;
  isOpen24Hours: boolean;
  isClosed: boolean;
}

/**
 * A block's hours lines from the form: Monday to Friday, Saturday and Sunday, with neighbouring lines
 * that say the same merged ("Mo,Tu,We,Th,Fr,Sa 08:00–22:00"), as the operator's own records are.
 */
export function hoursLinesOf(values: Record<string, unknown>, block: string): HoursLine[] {
  const out: HoursLine[] = [];
  for (const l of HOURS_LINES) {
    const names = hoursFieldNames(block, l.key);
    const mode = values[names.mode] as HoursMode;
    const line: HoursLine = {
      days: l.days.join(","),
      open: mode === "hours" ? String(values[names.open]) : null,
      close: mode === "hours" ? String(values[names.close]) : null,
      isOpen24Hours: mode === "24h",
      isClosed: mode === "closed",
    };
    const last = out.at(-1);
    if (last && last.open === line.open && last.close === line.close && last.isOpen24Hours === line.isOpen24Hours && last.isClosed === line.isClosed) {
      last.days = `${last.days},${line.days}`;
    } else out.push(line);
  }
  return out;
}

/** What a blank form shows: gate open 24 hours, the office 09:00–18:00 on weekdays, 09:00–14:00 on Saturday, closed on Sunday. */
export const NEW_LOCATION_DEFAULTS: Record<string, string> = {
  status: "Live",
  timeZone: "America/New_York",
  software: "demo",
  gate_weekdays: "24h",
  gate_saturday: "24h",
  gate_sunday: "24h",
  office_weekdays: "hours",
  office_weekdays_open: "09:00",
  office_weekdays_close: "18:00",
  office_saturday: "hours",
  office_saturday_open: "09:00",
  office_saturday_close: "14:00",
  office_sunday: "closed",
};
