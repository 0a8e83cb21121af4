CREATE TABLE "location_occupancy_days" (
	"location_id" integer NOT NULL,
	"day" date NOT NULL,
	"taken" integer NOT NULL,
	"total" integer NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	CONSTRAINT "location_occupancy_days_location_id_day_pk" PRIMARY KEY("location_id","day")
);
--> statement-breakpoint
CREATE TABLE "staff_report_preferences" (
	"staff_id" integer PRIMARY KEY NOT NULL,
	"frequency" text NOT NULL,
	"hour" integer NOT NULL,
	"weekday" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_outbox" ADD COLUMN "headers" jsonb;--> statement-breakpoint
ALTER TABLE "location_occupancy_days" ADD CONSTRAINT "location_occupancy_days_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "staff_report_preferences" ADD CONSTRAINT "staff_report_preferences_staff_id_staff_members_id_fk" FOREIGN KEY ("staff_id") REFERENCES "public"."staff_members"("id") ON DELETE cascade ON UPDATE no action;