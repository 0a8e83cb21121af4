CREATE TABLE "sitelink_discount_plans" (
	"location_id" integer NOT NULL,
	"concession_id" integer NOT NULL,
	"name" text NOT NULL,
	"terms" jsonb,
	"not_offered" text,
	"listed" boolean DEFAULT true NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sitelink_discount_plans_location_id_concession_id_pk" PRIMARY KEY("location_id","concession_id")
);
--> statement-breakpoint
ALTER TABLE "unit_types" ADD COLUMN "promotion_plan_wording" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "sitelink_discount_plans" ADD CONSTRAINT "sitelink_discount_plans_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;