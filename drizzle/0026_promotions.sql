ALTER TABLE "unit_types" ADD COLUMN "promotion_kind" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "unit_types" ADD COLUMN "promotion_amount" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "unit_types" ADD COLUMN "promotion_percent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "unit_types" ADD COLUMN "promotion_months" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "unit_types" ADD COLUMN "promotion_plan_id" integer;--> statement-breakpoint
ALTER TABLE "unit_types" ADD COLUMN "promotion_starts_on" text;--> statement-breakpoint
ALTER TABLE "unit_types" ADD COLUMN "promotion_ends_on" text;--> statement-breakpoint
ALTER TABLE "leases" ADD COLUMN "promotion_discount" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "leases" ADD COLUMN "promotion_months" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "leases" ADD COLUMN "promotion_wording" text DEFAULT '' NOT NULL;