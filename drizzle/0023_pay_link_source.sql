-- Issue 39, decision 508: a payment made through a pay link is recorded as "pay_link", not "portal".
-- Backfill: the payments that used a link (our own payment id on the link, the same lease).
UPDATE "payments" SET "source" = 'pay_link'
FROM "pay_links"
WHERE "pay_links"."payment_id" = "payments"."id"::text
  AND "pay_links"."lease_id" = "payments"."lease_id"
  AND "payments"."source" = 'portal';
