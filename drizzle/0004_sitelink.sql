CREATE TABLE "sitelink_sites" (
	"location_id" integer PRIMARY KEY NOT NULL,
	"endpoint" text NOT NULL,
	"corp_code" text NOT NULL,
	"location_code" text NOT NULL,
	"corp_user" text NOT NULL,
	"password_env" text,
	"password_encrypted" text,
	"api_key_env" text,
	"api_key_encrypted" text,
	"card_charged_by" text DEFAULT 'sitelink' NOT NULL,
	"test_mode" boolean DEFAULT false NOT NULL,
	"card_type_ids" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"billing_frequency" integer DEFAULT 3 NOT NULL,
	"channel_type" integer DEFAULT 1 NOT NULL,
	"read_timeout_ms" integer,
	"write_timeout_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sitelink_sites_password_source" CHECK ("sitelink_sites"."password_env" is not null or "sitelink_sites"."password_encrypted" is not null),
	CONSTRAINT "sitelink_sites_card_charged_by" CHECK ("sitelink_sites"."card_charged_by" in ('sitelink', 'gateway'))
);
--> statement-breakpoint
CREATE TABLE "sitelink_sync_state" (
	"location_id" integer PRIMARY KEY NOT NULL,
	"last_time_polled" text,
	"last_synced_at" timestamp with time zone,
	"last_full_sync_at" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sitelink_writes" (
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"operation" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"request_fingerprint" text,
	"external_ids" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"last_error" text,
	CONSTRAINT "sitelink_writes_state" CHECK ("sitelink_writes"."state" in ('pending', 'done', 'failed', 'unknown'))
);
--> statement-breakpoint
CREATE TABLE "tenant_software_links" (
	"tenant_id" integer NOT NULL,
	"location_id" integer NOT NULL,
	"external_tenant_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_software_links_tenant_id_location_id_pk" PRIMARY KEY("tenant_id","location_id")
);
--> statement-breakpoint
ALTER TABLE "sitelink_sites" ADD CONSTRAINT "sitelink_sites_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sitelink_sync_state" ADD CONSTRAINT "sitelink_sync_state_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sitelink_writes" ADD CONSTRAINT "sitelink_writes_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_software_links" ADD CONSTRAINT "tenant_software_links_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_software_links" ADD CONSTRAINT "tenant_software_links_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sitelink_writes_open_idx" ON "sitelink_writes" USING btree ("location_id","state","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "tenant_software_links_external_idx" ON "tenant_software_links" USING btree ("location_id","external_tenant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "unit_types_location_external_idx" ON "unit_types" USING btree ("location_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "units_location_external_idx" ON "units" USING btree ("location_id","external_id");