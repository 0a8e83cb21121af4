ALTER TABLE "payments" ADD COLUMN "refunded_amount" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Decision 509: the payments refunded (in full) before partial refunds gave back all they took.
UPDATE "payments" SET "refunded_amount" = "amount" WHERE "status" = 'refunded';
