import type { Database } from "~/db/client.server";
import { contactMessages } from "~/db/schema";
import { formatPhone } from "~/domain/shared/phone";
import { sendEmail } from "../mail/outbox.server";

interface ContactMessageInput {
  accountId: number;
  kind: "contact" | "notify";
  locationId?: number | null;
  locationName?: string | null;
  name: string;
  email: string;
  phone?: string;
  message?: string;
  /** Where the office's copy goes. */
  officeEmail: string | null;
}

/** Stores a contact or notify-me message and emails the office a copy. */
export async function submitContactMessage(db: Database, input: ContactMessageInput) {
  const phone = input.phone ? formatPhone(input.phone) : null;
  const [row] = await db
    .insert(contactMessages)
    .values({
      accountId: input.accountId,
      kind: input.kind,
      locationId: input.locationId ?? null,
      name: input.name,
      email: input.email,
      phone,
      message: input.message ?? "",
    })
    .returning({ id: contactMessages.id });
  if (input.officeEmail) {
    const about = input.locationName ? ` (${input.locationName})` : "";
    await sendEmail(db, {
      locationId: input.locationId ?? null,
      to: input.officeEmail,
      subject:
        input.kind === "notify"
          ? `Notify me when ${input.locationName ?? "the location"} opens: ${input.name}`
          : `Website message from ${input.name}${about}`,
      text: [
        `Name: ${input.name}`,
        `Email: ${input.email}`,
        `Phone: ${phone ?? "(not given)"}`,
        input.locationName ? `Location: ${input.locationName}` : null,
        "",
        input.message || "(no message)",
      ]
        .filter((l) => l !== null)
        .join("\n"),
    });
  }
  return { id: row!.id };
}
