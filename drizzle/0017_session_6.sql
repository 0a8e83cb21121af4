CREATE TABLE "sitelink_go_live_checks" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	"passed" boolean NOT NULL,
	"settings_fingerprint" text NOT NULL,
	"source" text NOT NULL,
	"saw" jsonb NOT NULL,
	"test_tenant_id" text,
	CONSTRAINT "sitelink_go_live_checks_source" CHECK ("sitelink_go_live_checks"."source" in ('sitelink:verify', 'demo seed'))
);
--> statement-breakpoint
CREATE TABLE "sitelink_sync_lease" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"leased_until" timestamp with time zone NOT NULL,
	"acquired_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_differences" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"location_id" integer,
	"day" date NOT NULL,
	"kind" text NOT NULL,
	"reference" text NOT NULL,
	"processor_amount" integer,
	"recorded_amount" integer,
	"payment_id" integer,
	"detail" text DEFAULT '' NOT NULL,
	"found_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cleared_at" timestamp with time zone,
	"resolved_at" timestamp with time zone,
	"resolved_by" integer,
	"resolution_note" text
);
--> statement-breakpoint
CREATE TABLE "hosted_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"idempotency_key" text NOT NULL,
	"tenant_id" integer,
	"flow" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "text_consents" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"phone" text NOT NULL,
	"opted_in" boolean NOT NULL,
	"source" text NOT NULL,
	"wording" text NOT NULL,
	"location_id" integer,
	"tenant_id" integer,
	"rental_id" text,
	"given_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "text_messages" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"location_id" integer,
	"direction" text NOT NULL,
	"from" text NOT NULL,
	"to" text NOT NULL,
	"body" text NOT NULL,
	"purpose" text NOT NULL,
	"provider_sid" text,
	"status" text NOT NULL,
	"error_code" text,
	"consent_id" integer,
	"tenant_id" integer,
	"lead_key" text,
	"staff_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "review_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sitelink_go_live_checks" ADD CONSTRAINT "sitelink_go_live_checks_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_differences" ADD CONSTRAINT "payment_differences_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_differences" ADD CONSTRAINT "payment_differences_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_differences" ADD CONSTRAINT "payment_differences_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_differences" ADD CONSTRAINT "payment_differences_resolved_by_staff_members_id_fk" FOREIGN KEY ("resolved_by") REFERENCES "public"."staff_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hosted_sessions" ADD CONSTRAINT "hosted_sessions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_consents" ADD CONSTRAINT "text_consents_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_consents" ADD CONSTRAINT "text_consents_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_consents" ADD CONSTRAINT "text_consents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_messages" ADD CONSTRAINT "text_messages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_messages" ADD CONSTRAINT "text_messages_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_messages" ADD CONSTRAINT "text_messages_consent_id_text_consents_id_fk" FOREIGN KEY ("consent_id") REFERENCES "public"."text_consents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_messages" ADD CONSTRAINT "text_messages_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_messages" ADD CONSTRAINT "text_messages_staff_id_staff_members_id_fk" FOREIGN KEY ("staff_id") REFERENCES "public"."staff_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sitelink_go_live_checks_location_idx" ON "sitelink_go_live_checks" USING btree ("location_id","checked_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_differences_reference_idx" ON "payment_differences" USING btree ("account_id","kind","reference");--> statement-breakpoint
CREATE INDEX "payment_differences_open_idx" ON "payment_differences" USING btree ("account_id","resolved_at","cleared_at");--> statement-breakpoint
CREATE INDEX "hosted_sessions_key_idx" ON "hosted_sessions" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "text_consents_phone_idx" ON "text_consents" USING btree ("account_id","phone","id");--> statement-breakpoint
CREATE UNIQUE INDEX "text_messages_provider_sid_idx" ON "text_messages" USING btree ("provider_sid") WHERE "text_messages"."provider_sid" is not null;--> statement-breakpoint
CREATE INDEX "text_messages_lead_idx" ON "text_messages" USING btree ("lead_key");--> statement-breakpoint
CREATE INDEX "text_messages_to_idx" ON "text_messages" USING btree ("account_id","to","id");