CREATE TABLE "bill_reminders" (
	"lease_id" integer NOT NULL,
	"bill_date" date NOT NULL,
	"outbox_id" integer NOT NULL,
	"pay_link_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bill_reminders_lease_id_bill_date_pk" PRIMARY KEY("lease_id","bill_date")
);
--> statement-breakpoint
ALTER TABLE "bill_reminders" ADD CONSTRAINT "bill_reminders_lease_id_leases_id_fk" FOREIGN KEY ("lease_id") REFERENCES "public"."leases"("id") ON DELETE cascade ON UPDATE no action;