CREATE TABLE "special_hours" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"date" text NOT NULL,
	"label" text DEFAULT '' NOT NULL,
	"is_closed" boolean DEFAULT true NOT NULL,
	"open" text,
	"close" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "changeset_changes" (
	"id" serial PRIMARY KEY NOT NULL,
	"changeset_id" integer NOT NULL,
	"entity" text NOT NULL,
	"op" text NOT NULL,
	"record_id" integer,
	"create_key" text,
	"location_id" integer,
	"values" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"base" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"staff_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "changesets" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"version" integer,
	"scheduled_for" timestamp with time zone,
	"scheduled_time_zone" text,
	"restores_version" integer,
	"created_by" integer,
	"published_by" integer,
	"published_at" timestamp with time zone,
	"failure" text,
	"snapshot" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "unit_types" ADD COLUMN "is_hidden_online" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "unit_types" ADD COLUMN "promotion" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "unit_types" ADD COLUMN "images" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "special_hours" ADD CONSTRAINT "special_hours_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "changeset_changes" ADD CONSTRAINT "changeset_changes_changeset_id_changesets_id_fk" FOREIGN KEY ("changeset_id") REFERENCES "public"."changesets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "changeset_changes" ADD CONSTRAINT "changeset_changes_staff_id_staff_members_id_fk" FOREIGN KEY ("staff_id") REFERENCES "public"."staff_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "changesets" ADD CONSTRAINT "changesets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "changesets" ADD CONSTRAINT "changesets_created_by_staff_members_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."staff_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "changesets" ADD CONSTRAINT "changesets_published_by_staff_members_id_fk" FOREIGN KEY ("published_by") REFERENCES "public"."staff_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "special_hours_location_date_idx" ON "special_hours" USING btree ("location_id","date");--> statement-breakpoint
CREATE UNIQUE INDEX "changeset_changes_record_idx" ON "changeset_changes" USING btree ("changeset_id","entity","record_id") WHERE "changeset_changes"."record_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "changeset_changes_create_idx" ON "changeset_changes" USING btree ("changeset_id","create_key") WHERE "changeset_changes"."create_key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "changesets_one_draft_idx" ON "changesets" USING btree ("account_id") WHERE "changesets"."status" = 'draft';--> statement-breakpoint
CREATE UNIQUE INDEX "changesets_account_version_idx" ON "changesets" USING btree ("account_id","version");--> statement-breakpoint
CREATE INDEX "changesets_scheduled_idx" ON "changesets" USING btree ("status","scheduled_for");--> statement-breakpoint
-- Special hours show on public pages: they notify gatehouse_changed like every table those pages read (0006).
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "special_hours" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "special_hours" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "special_hours" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
