CREATE TABLE "rental_recovery_opt_outs" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"email" text NOT NULL,
	"rental_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "recovery_sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "recovery_token_hash" text;--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "recovery_text_settled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "resumed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "rental_recovery_opt_outs" ADD CONSTRAINT "rental_recovery_opt_outs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "rental_recovery_opt_outs_email_idx" ON "rental_recovery_opt_outs" USING btree ("account_id","email");--> statement-breakpoint
CREATE UNIQUE INDEX "checkouts_recovery_token_idx" ON "checkouts" USING btree ("recovery_token_hash");