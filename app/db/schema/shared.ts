import { timestamp } from "drizzle-orm/pg-core";
import { z } from "zod";

/** created_at / updated_at columns every table carries. */
export const timestamps = {
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
};

/** Spec §3 "Image": every field the operator's media records carry. */
export const imageSchema = z.object({
  width: z.number().int().positive().nullable().default(null),
  height: z.number().int().positive().nullable().default(null),
  type: z.string().nullable().default(null),
  alt: z.string().default(""),
  src: z.string(),
  src_webp: z.string().nullable().default(null),
  title: z.string().nullable().default(null),
  file_name: z.string().nullable().default(null),
  file_name_full: z.string().nullable().default(null),
  file_name_original: z.string().nullable().default(null),
  file_name_webp: z.string().nullable().default(null),
  file_name_original_unmodified: z.string().nullable().default(null),
  file_type: z.string().nullable().default(null),
  file_base_url: z.string().nullable().default(null),
});
export type Image = z.infer<typeof imageSchema>;
