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
ALTER TABLE "sitelink_go_live_checks" ADD CONSTRAINT "sitelink_go_live_checks_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sitelink_go_live_checks_location_idx" ON "sitelink_go_live_checks" USING btree ("location_id","checked_at");