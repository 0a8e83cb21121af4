CREATE TABLE "lead_notes" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"lead_id" text NOT NULL,
	"staff_id" integer NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "staff_held_actions" (
	"id" serial PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"staff_id" integer NOT NULL,
	"session_hash" text NOT NULL,
	"path" text NOT NULL,
	"fields" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tenant_notes" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"tenant_id" integer NOT NULL,
	"staff_id" integer NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_outbox" ADD COLUMN "location_id" integer;--> statement-breakpoint
ALTER TABLE "lead_notes" ADD CONSTRAINT "lead_notes_staff_id_staff_members_id_fk" FOREIGN KEY ("staff_id") REFERENCES "public"."staff_members"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "staff_held_actions" ADD CONSTRAINT "staff_held_actions_staff_id_staff_members_id_fk" FOREIGN KEY ("staff_id") REFERENCES "public"."staff_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_notes" ADD CONSTRAINT "tenant_notes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_notes" ADD CONSTRAINT "tenant_notes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_notes" ADD CONSTRAINT "tenant_notes_staff_id_staff_members_id_fk" FOREIGN KEY ("staff_id") REFERENCES "public"."staff_members"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lead_notes_lead_idx" ON "lead_notes" USING btree ("kind","lead_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "staff_held_actions_token_idx" ON "staff_held_actions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "staff_held_actions_expires_idx" ON "staff_held_actions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "tenant_notes_tenant_idx" ON "tenant_notes" USING btree ("tenant_id","created_at");--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_outbox_location_idx" ON "email_outbox" USING btree ("location_id");--> statement-breakpoint
-- A lead's note so far becomes the first of its history (decision 642).
INSERT INTO "lead_notes" ("kind", "lead_id", "staff_id", "body", "created_at")
  SELECT "kind", "lead_id", "contacted_by_staff_id", "note", "contacted_at" FROM "lead_follow_ups" WHERE "note" <> '';--> statement-breakpoint
-- Mail written before the column: the location of the audited action that wrote it (decision 645).
UPDATE "email_outbox" o SET "location_id" = a."location_id"
  FROM "audit_events" a
  WHERE o."location_id" IS NULL AND a."location_id" IS NOT NULL AND a."detail" ? 'outboxId'
    AND a."detail"->>'outboxId' ~ '^[0-9]{1,9}$' AND (a."detail"->>'outboxId')::integer = o."id";--> statement-breakpoint
-- …else, mail to a tenant whose leases are all at one location: that location.
UPDATE "email_outbox" o SET "location_id" = x."location_id"
  FROM (SELECT lower(t."email") AS "email", min(l."location_id") AS "location_id"
        FROM "tenants" t JOIN "leases" l ON l."tenant_id" = t."id"
        GROUP BY lower(t."email") HAVING count(DISTINCT l."location_id") = 1) x
  WHERE o."location_id" IS NULL AND lower(o."to") = x."email";
