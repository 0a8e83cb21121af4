ALTER TABLE "checkouts" ADD COLUMN "pending_move_in" jsonb;--> statement-breakpoint
-- Issue 19: settled write-journal rows keep ids only. Rows written before kept the move-in's tenant
-- (with its password hash), signature, lease text, gate code and autopay token, and the contact
-- change's details; open rows keep them until they are settled (reconciliation may still need them).
UPDATE "sitelink_writes" SET "external_ids" = "external_ids" - 'tenant' - 'signature' - 'leaseText' - 'accessCode' - 'autopayToken' - 'autopayCard' - 'fields' WHERE "state" IN ('done', 'failed');
