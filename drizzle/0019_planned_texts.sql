CREATE TABLE "planned_texts" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"location_id" integer NOT NULL,
	"tenant_id" integer NOT NULL,
	"lease_id" integer NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"planned_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	"outcome" text,
	"text_message_id" integer
);
--> statement-breakpoint
ALTER TABLE "planned_texts" ADD CONSTRAINT "planned_texts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "planned_texts" ADD CONSTRAINT "planned_texts_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "planned_texts" ADD CONSTRAINT "planned_texts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "planned_texts" ADD CONSTRAINT "planned_texts_lease_id_leases_id_fk" FOREIGN KEY ("lease_id") REFERENCES "public"."leases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "planned_texts" ADD CONSTRAINT "planned_texts_text_message_id_text_messages_id_fk" FOREIGN KEY ("text_message_id") REFERENCES "public"."text_messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "planned_texts_once_idx" ON "planned_texts" USING btree ("lease_id","kind","key");--> statement-breakpoint
CREATE INDEX "planned_texts_unsettled_idx" ON "planned_texts" USING btree ("planned_at") WHERE "planned_texts"."settled_at" is null;