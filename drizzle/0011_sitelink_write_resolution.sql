ALTER TABLE "sitelink_writes" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sitelink_writes" ADD COLUMN "resolved_by_staff_id" integer;--> statement-breakpoint
ALTER TABLE "sitelink_writes" ADD COLUMN "resolution_note" text;