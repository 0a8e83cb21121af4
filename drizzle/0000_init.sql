CREATE TABLE "accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"client_code" text NOT NULL,
	"name" text NOT NULL,
	"privacy_policy" text DEFAULT '' NOT NULL,
	"company_information" text DEFAULT '' NOT NULL,
	"tagline" text DEFAULT '' NOT NULL,
	"use_demo_units" boolean DEFAULT false NOT NULL,
	"is_split_units_by_unit_type" boolean DEFAULT false NOT NULL,
	"is_reviews_auto_update" boolean DEFAULT false NOT NULL,
	"global_settings" jsonb NOT NULL,
	"main_image" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_clientCode_unique" UNIQUE("client_code")
);
--> statement-breakpoint
CREATE TABLE "content_items" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"tag" text NOT NULL,
	"index" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "old_domains" (
	"id" serial PRIMARY KEY NOT NULL,
	"website_id" integer NOT NULL,
	"hostname" text NOT NULL,
	"location_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "redirects" (
	"id" serial PRIMARY KEY NOT NULL,
	"website_id" integer NOT NULL,
	"from_path" text NOT NULL,
	"to_path" text NOT NULL,
	"status_code" integer DEFAULT 301 NOT NULL,
	"is_forced" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "websites" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"website_name" text NOT NULL,
	"domain" text NOT NULL,
	"staging_domain" text,
	"redirects" text DEFAULT '' NOT NULL,
	"analytics_id" text,
	"unit_page_title" text DEFAULT '' NOT NULL,
	"unit_page_meta" text DEFAULT '' NOT NULL,
	"custom_css" text DEFAULT '' NOT NULL,
	"custom_js" text DEFAULT '' NOT NULL,
	"custom_header_code" text DEFAULT '' NOT NULL,
	"custom_body_code" text DEFAULT '' NOT NULL,
	"logo" jsonb,
	"footer_logo" jsonb,
	"global_styles" jsonb NOT NULL,
	"nav_component" jsonb NOT NULL,
	"footer_component" jsonb NOT NULL,
	"has_new_changes" boolean DEFAULT false NOT NULL,
	"has_redeploy_started" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "menus" (
	"id" serial PRIMARY KEY NOT NULL,
	"website_id" integer NOT NULL,
	"name" text NOT NULL,
	"heading" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "nav_menu_items" (
	"id" serial PRIMARY KEY NOT NULL,
	"menu_id" integer NOT NULL,
	"parent_id" integer,
	"name" text NOT NULL,
	"url" text DEFAULT '' NOT NULL,
	"index" integer DEFAULT 0 NOT NULL,
	"is_internal" boolean DEFAULT true NOT NULL,
	"is_target_blank" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "addresses" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"street_1" text NOT NULL,
	"street_2" text,
	"city" text NOT NULL,
	"state_province" text NOT NULL,
	"postal" text NOT NULL,
	"country" text DEFAULT 'US' NOT NULL,
	"lat" double precision,
	"lon" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "addresses_locationId_unique" UNIQUE("location_id")
);
--> statement-breakpoint
CREATE TABLE "amenities" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"label" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"index" integer DEFAULT 0 NOT NULL,
	"image" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hours_blocks" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"type" text NOT NULL,
	"is_available" boolean DEFAULT true NOT NULL,
	"display_text" text DEFAULT '' NOT NULL,
	"show_on_google_my_business" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hours_items" (
	"id" serial PRIMARY KEY NOT NULL,
	"hours_block_id" integer NOT NULL,
	"id_json_formatted_text" text DEFAULT '' NOT NULL,
	"days" text NOT NULL,
	"open" text,
	"close" text,
	"is_open_24_hours" boolean DEFAULT false NOT NULL,
	"open_24_hours_text" text DEFAULT 'Open 24 hours' NOT NULL,
	"is_closed" boolean DEFAULT false NOT NULL,
	"closed_text" text DEFAULT 'Closed' NOT NULL,
	"is_display_text" boolean DEFAULT false NOT NULL,
	"display_text" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "insurance_plans" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"sitelink_id" text,
	"coverage" integer NOT NULL,
	"percent_of_theft_coverage" numeric(5, 2) NOT NULL,
	"site_id" text,
	"description" text DEFAULT '' NOT NULL,
	"premium" integer NOT NULL,
	"provider" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "location_images" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"index" integer DEFAULT 0 NOT NULL,
	"width" integer,
	"height" integer,
	"type" text,
	"alt" text DEFAULT '' NOT NULL,
	"src" text NOT NULL,
	"src_webp" text,
	"title" text,
	"file_name" text,
	"file_name_full" text,
	"file_name_original" text,
	"file_name_webp" text,
	"file_name_original_unmodified" text,
	"file_type" text,
	"file_base_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "locations" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"name" text NOT NULL,
	"url_slug" text NOT NULL,
	"status" text NOT NULL,
	"software" text NOT NULL,
	"external_payment_link" text,
	"phone_number" text NOT NULL,
	"sms" text,
	"email" text,
	"facebook" text,
	"yelp" text,
	"google" text,
	"twitter" text,
	"sparefoot" text,
	"linkedin" text,
	"instagram" text,
	"google_review_link" text,
	"yelp_review_link" text,
	"facebook_review_link" text,
	"time_zone" jsonb NOT NULL,
	"rental_success_message" text DEFAULT '' NOT NULL,
	"reservation_success_message" text DEFAULT '' NOT NULL,
	"move_out_confirmation_message" text DEFAULT '' NOT NULL,
	"autopay_terms" text DEFAULT '' NOT NULL,
	"meta_title" text DEFAULT '' NOT NULL,
	"meta_tagline" text DEFAULT '' NOT NULL,
	"meta_description" text DEFAULT '' NOT NULL,
	"has_imported_units" boolean DEFAULT false NOT NULL,
	"is_show_only_specific_unit_types" boolean DEFAULT false NOT NULL,
	"specific_unit_types_to_show" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"is_show_extra_charges_at_checkout" boolean DEFAULT false NOT NULL,
	"is_hide_extra_charges_for_parking_or_office" boolean DEFAULT false NOT NULL,
	"charges_to_show_at_checkout" text DEFAULT '[]' NOT NULL,
	"global_settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"review_settings" jsonb NOT NULL,
	"main_image" jsonb,
	"main_logo" jsonb,
	"has_match_on_location_page_filter" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_types" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"deleted_at" timestamp with time zone,
	"value" text NOT NULL,
	"label" text NOT NULL,
	"category" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contact_messages" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"location_id" integer,
	"kind" text DEFAULT 'contact' NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"phone" text,
	"message" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_outbox" (
	"id" serial PRIMARY KEY NOT NULL,
	"to" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"html" text,
	"sent_at" timestamp with time zone,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pages" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"meta_title" text DEFAULT '' NOT NULL,
	"meta_description" text DEFAULT '' NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "unit_types" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"name" text NOT NULL,
	"category" text NOT NULL,
	"width" double precision NOT NULL,
	"length" double precision NOT NULL,
	"height" double precision,
	"floor" integer DEFAULT 1 NOT NULL,
	"features" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"standard_rate" integer NOT NULL,
	"web_rate" integer NOT NULL,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "units" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"unit_type_id" integer NOT NULL,
	"name" text NOT NULL,
	"floor" integer DEFAULT 1 NOT NULL,
	"status" text DEFAULT 'available' NOT NULL,
	"held_until" timestamp with time zone,
	"hold_token" text,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text NOT NULL,
	"email" text NOT NULL,
	"cell_phone" text NOT NULL,
	"web_pw_hash" text NOT NULL,
	"addr_1" text NOT NULL,
	"addr_2" text,
	"city" text NOT NULL,
	"region" text NOT NULL,
	"postal_code" text NOT NULL,
	"is_military" boolean DEFAULT false NOT NULL,
	"is_company" boolean DEFAULT false NOT NULL,
	"is_commercial" boolean DEFAULT false NOT NULL,
	"alt_contact_first_name" text,
	"alt_contact_last_name" text,
	"alt_contact_phone" text,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "leases" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer NOT NULL,
	"unit_id" integer NOT NULL,
	"location_id" integer NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"move_in_date" date NOT NULL,
	"monthly_rate" integer NOT NULL,
	"insurance_plan_id" integer,
	"insurance_premium" integer DEFAULT 0 NOT NULL,
	"paid_through_date" date NOT NULL,
	"next_due_date" date NOT NULL,
	"gate_code" text NOT NULL,
	"autopay_enabled" boolean DEFAULT false NOT NULL,
	"autopay_card_id" integer,
	"move_out_date" date,
	"move_out_notice_at" timestamp with time zone,
	"lease_text" text NOT NULL,
	"lease_hash" text NOT NULL,
	"signed_name" text NOT NULL,
	"signed_at" timestamp with time zone NOT NULL,
	"signed_ip" text DEFAULT '' NOT NULL,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" serial PRIMARY KEY NOT NULL,
	"lease_id" integer NOT NULL,
	"tenant_id" integer NOT NULL,
	"kind" text NOT NULL,
	"description" text NOT NULL,
	"amount" integer NOT NULL,
	"tax" integer DEFAULT 0 NOT NULL,
	"period_start" date,
	"period_end" date,
	"entry_date" date NOT NULL,
	"payment_id" integer,
	"posting_key" text,
	"posted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"lease_id" integer,
	"amount" integer NOT NULL,
	"status" text NOT NULL,
	"source" text NOT NULL,
	"card_brand" text NOT NULL,
	"card_last4" text NOT NULL,
	"auth_reference" text,
	"decline_reason" text,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "saved_cards" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"name_on_card" text DEFAULT '' NOT NULL,
	"gateway_token" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "content_items" ADD CONSTRAINT "content_items_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "old_domains" ADD CONSTRAINT "old_domains_website_id_websites_id_fk" FOREIGN KEY ("website_id") REFERENCES "public"."websites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "old_domains" ADD CONSTRAINT "old_domains_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "redirects" ADD CONSTRAINT "redirects_website_id_websites_id_fk" FOREIGN KEY ("website_id") REFERENCES "public"."websites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "websites" ADD CONSTRAINT "websites_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "menus" ADD CONSTRAINT "menus_website_id_websites_id_fk" FOREIGN KEY ("website_id") REFERENCES "public"."websites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nav_menu_items" ADD CONSTRAINT "nav_menu_items_menu_id_menus_id_fk" FOREIGN KEY ("menu_id") REFERENCES "public"."menus"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nav_menu_items" ADD CONSTRAINT "nav_menu_items_parent_id_nav_menu_items_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."nav_menu_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "addresses" ADD CONSTRAINT "addresses_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amenities" ADD CONSTRAINT "amenities_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hours_blocks" ADD CONSTRAINT "hours_blocks_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hours_items" ADD CONSTRAINT "hours_items_hours_block_id_hours_blocks_id_fk" FOREIGN KEY ("hours_block_id") REFERENCES "public"."hours_blocks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "insurance_plans" ADD CONSTRAINT "insurance_plans_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "location_images" ADD CONSTRAINT "location_images_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "locations" ADD CONSTRAINT "locations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_types" ADD CONSTRAINT "payment_types_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_messages" ADD CONSTRAINT "contact_messages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_messages" ADD CONSTRAINT "contact_messages_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pages" ADD CONSTRAINT "pages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unit_types" ADD CONSTRAINT "unit_types_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "units" ADD CONSTRAINT "units_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "units" ADD CONSTRAINT "units_unit_type_id_unit_types_id_fk" FOREIGN KEY ("unit_type_id") REFERENCES "public"."unit_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leases" ADD CONSTRAINT "leases_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leases" ADD CONSTRAINT "leases_unit_id_units_id_fk" FOREIGN KEY ("unit_id") REFERENCES "public"."units"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leases" ADD CONSTRAINT "leases_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leases" ADD CONSTRAINT "leases_insurance_plan_id_insurance_plans_id_fk" FOREIGN KEY ("insurance_plan_id") REFERENCES "public"."insurance_plans"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_lease_id_leases_id_fk" FOREIGN KEY ("lease_id") REFERENCES "public"."leases"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_lease_id_leases_id_fk" FOREIGN KEY ("lease_id") REFERENCES "public"."leases"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_cards" ADD CONSTRAINT "saved_cards_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "content_items_account_tag_idx" ON "content_items" USING btree ("account_id","tag","index");--> statement-breakpoint
CREATE UNIQUE INDEX "old_domains_hostname_idx" ON "old_domains" USING btree ("hostname");--> statement-breakpoint
CREATE UNIQUE INDEX "redirects_website_from_path_idx" ON "redirects" USING btree ("website_id","from_path");--> statement-breakpoint
CREATE INDEX "nav_menu_items_menu_idx" ON "nav_menu_items" USING btree ("menu_id","parent_id","index");--> statement-breakpoint
CREATE UNIQUE INDEX "hours_blocks_location_type_idx" ON "hours_blocks" USING btree ("location_id","type");--> statement-breakpoint
CREATE INDEX "location_images_location_idx" ON "location_images" USING btree ("location_id","index");--> statement-breakpoint
CREATE UNIQUE INDEX "locations_url_slug_idx" ON "locations" USING btree ("url_slug");--> statement-breakpoint
CREATE INDEX "contact_messages_created_idx" ON "contact_messages" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "pages_account_slug_idx" ON "pages" USING btree ("account_id","slug");--> statement-breakpoint
CREATE INDEX "unit_types_location_idx" ON "unit_types" USING btree ("location_id");--> statement-breakpoint
CREATE UNIQUE INDEX "units_location_name_idx" ON "units" USING btree ("location_id","name");--> statement-breakpoint
CREATE INDEX "units_type_status_idx" ON "units" USING btree ("unit_type_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "tenants_account_email_idx" ON "tenants" USING btree ("account_id",lower("email"));--> statement-breakpoint
CREATE INDEX "tenants_email_idx" ON "tenants" USING btree ("email");--> statement-breakpoint
CREATE INDEX "leases_tenant_idx" ON "leases" USING btree ("tenant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "leases_active_unit_idx" ON "leases" USING btree ("unit_id") WHERE "leases"."status" = 'active';--> statement-breakpoint
CREATE INDEX "ledger_entries_lease_idx" ON "ledger_entries" USING btree ("lease_id","entry_date");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_posting_key_idx" ON "ledger_entries" USING btree ("lease_id","posting_key");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_idempotency_idx" ON "payments" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "payments_tenant_idx" ON "payments" USING btree ("tenant_id");