-- Promotions that apply (issue 40, decisions 673 and 674). Custom SQL, between 0029 (the plans' mirror,
-- the plan's saved wording) and 0031 (unit_types.promotion dropped).
--
-- 1. A published SiteLink promotion keeps what its plan gave when it was saved, in its words
--    (promotion_plan_wording): a plan was one month of a percentage or a fixed amount until now.
UPDATE "unit_types" SET "promotion_plan_wording" = CASE
    WHEN "promotion_percent" >= 100 THEN 'First month free'
    WHEN "promotion_percent" > 0 THEN "promotion_percent"::text || '% off the first month'
    WHEN "promotion_amount" > 0 THEN '$' || to_char("promotion_amount" / 100, 'FM999,999,990')
      || CASE WHEN "promotion_amount" % 100 = 0 THEN '' ELSE '.' || lpad(("promotion_amount" % 100)::text, 2, '0') END
      || ' off the first month'
    ELSE '' END
  WHERE "promotion_kind" = 'plan';
--> statement-breakpoint
-- The same for a plan waiting in a draft, a schedule or a failed publish (their values name the plan's terms).
UPDATE "changeset_changes" cc SET "values" = cc."values" || jsonb_build_object('promotionPlanWording', CASE
    WHEN COALESCE((cc."values"->>'promotionPercent')::int, 0) >= 100 THEN 'First month free'
    WHEN COALESCE((cc."values"->>'promotionPercent')::int, 0) > 0 THEN (cc."values"->>'promotionPercent') || '% off the first month'
    WHEN COALESCE((cc."values"->>'promotionAmount')::int, 0) > 0 THEN '$' || to_char((cc."values"->>'promotionAmount')::int / 100, 'FM999,999,990')
      || CASE WHEN (cc."values"->>'promotionAmount')::int % 100 = 0 THEN '' ELSE '.' || lpad(((cc."values"->>'promotionAmount')::int % 100)::text, 2, '0') END
      || ' off the first month'
    ELSE '' END)
  FROM "changesets" c
  WHERE c."id" = cc."changeset_id" AND c."status" IN ('draft', 'scheduled', 'failed')
    AND cc."entity" = 'unitType' AND cc."values"->>'promotionKind' = 'plan' AND NOT cc."values" ? 'promotionPlanWording';
--> statement-breakpoint
-- 2. The typed promotion text (decision 305) is retired: only a promotion that applies shows text. A
--    text that says exactly what a local promotion gives ("First month free", "50% off the first
--    month", "$20 off each of the first 3 months": promotionWording's words) becomes that promotion,
--    where the location's rentals are ours (not SiteLink's) and the type has no applied promotion yet.
--    Every other text is dropped. Each type's text is kept in the audit trail, with what became of it.
CREATE TEMPORARY TABLE "retired_promotion_text" AS
WITH typed AS (
  SELECT ut."id", ut."location_id", l."account_id", btrim(ut."promotion") AS "text",
    ut."promotion_kind" = 'none'
      AND NOT (l."software" = 'sitelink' AND NOT a."use_demo_units" AND EXISTS (SELECT 1 FROM "sitelink_sites" s WHERE s."location_id" = l."id")) AS "local_none"
  FROM "unit_types" ut
  JOIN "locations" l ON l."id" = ut."location_id"
  JOIN "accounts" a ON a."id" = l."account_id"
  WHERE btrim(ut."promotion") <> ''
), parsed AS (
  SELECT t.*,
    CASE
      WHEN t."text" = 'First month free' THEN 'percent'
      WHEN t."text" ~ '^First ([2-9]|1[0-2]) months free$' THEN 'percent'
      WHEN t."text" ~ '^[1-9][0-9]?% off the first month$' THEN 'percent'
      WHEN t."text" ~ '^[1-9][0-9]?% off the first ([2-9]|1[0-2]) months$' THEN 'percent'
      WHEN t."text" ~ '^\$(0\.(0[1-9]|[1-9][0-9])|[1-9][0-9]{0,2}(,[0-9]{3})*(\.(0[1-9]|[1-9][0-9]))?) off the first month$' THEN 'amount'
      WHEN t."text" ~ '^\$(0\.(0[1-9]|[1-9][0-9])|[1-9][0-9]{0,2}(,[0-9]{3})*(\.(0[1-9]|[1-9][0-9]))?) off each of the first ([2-9]|1[0-2]) months$' THEN 'amount'
    END AS "kind",
    CASE
      WHEN t."text" LIKE 'First % free' THEN 100
      WHEN t."text" ~ '^[1-9][0-9]?% ' THEN substring(t."text" FROM '^([0-9]+)%')::int
      ELSE 0
    END AS "percent",
    CASE
      WHEN t."text" ~ '^\$' THEN replace(substring(t."text" FROM '^\$([0-9,]+)'), ',', '')::bigint * 100
        + COALESCE(substring(t."text" FROM '^\$[0-9,]+\.([0-9]{2}) ')::int, 0)
      ELSE 0
    END AS "amount",
    COALESCE(substring(t."text" FROM '([0-9]+) months( free)?$')::int, 1) AS "months"
  FROM typed t
)
SELECT "id", "location_id", "account_id", "text", "kind", "percent", "amount", "months",
  ("local_none" AND "kind" IS NOT NULL AND "amount" <= 10000000) AS "mapped"
FROM parsed;
--> statement-breakpoint
UPDATE "unit_types" ut SET
    "promotion_kind" = r."kind",
    "promotion_percent" = CASE WHEN r."kind" = 'percent' THEN r."percent" ELSE 0 END,
    "promotion_amount" = CASE WHEN r."kind" = 'amount' THEN r."amount"::int ELSE 0 END,
    "promotion_months" = r."months",
    "promotion_plan_id" = NULL
  FROM "retired_promotion_text" r
  WHERE ut."id" = r."id" AND r."mapped";
--> statement-breakpoint
INSERT INTO "audit_events" ("account_id", "actor", "action", "entity", "entity_id", "location_id", "changes", "detail")
SELECT r."account_id", 'migration 0030', 'content.promotion_text_retired', 'unit_type', r."id"::text, r."location_id",
  jsonb_build_object('promotion', jsonb_build_object('before', r."text", 'after', '')),
  jsonb_build_object('note', CASE WHEN r."mapped"
    THEN 'The typed promotion text said exactly what a promotion gives, so that promotion now applies at rent time (decision 674).'
    ELSE 'The typed promotion text did not say exactly what an applied promotion gives here, so it is no longer shown (decision 674).' END)
FROM "retired_promotion_text" r;
--> statement-breakpoint
DROP TABLE "retired_promotion_text";
--> statement-breakpoint
-- A typed text waiting in a draft, a schedule or a failed publish goes too (published history is kept).
UPDATE "changeset_changes" cc SET "values" = cc."values" - 'promotion', "base" = cc."base" - 'promotion'
  FROM "changesets" c
  WHERE c."id" = cc."changeset_id" AND c."status" IN ('draft', 'scheduled', 'failed') AND cc."entity" = 'unitType' AND (cc."values" ? 'promotion' OR cc."base" ? 'promotion');
--> statement-breakpoint
DELETE FROM "changeset_changes" cc
  USING "changesets" c
  WHERE c."id" = cc."changeset_id" AND c."status" IN ('draft', 'scheduled', 'failed') AND cc."entity" = 'unitType' AND cc."op" = 'update' AND cc."values" = '{}'::jsonb;
--> statement-breakpoint
-- 3. The plans' mirror is read by the public pages (a published promotion's words): a change to it
--    drops the page caches (the gatehouse_changed triggers, row level as in 0006) and purges its
--    location's pages from a shared cache (0020's tags).
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "sitelink_discount_plans" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "sitelink_discount_plans" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "sitelink_discount_plans" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION gatehouse_cache_tags(tbl text, r jsonb) RETURNS text[] AS $$
DECLARE
  loc text;
BEGIN
  IF r IS NULL THEN
    RETURN ARRAY[]::text[];
  END IF;
  loc := r->>'location_id';
  CASE tbl
    WHEN 'units', 'reservations' THEN
      RETURN ARRAY['location-' || loc, 'unit-type-' || (r->>'unit_type_id')];
    WHEN 'unit_types' THEN
      RETURN ARRAY['location-' || loc, 'unit-type-' || (r->>'id')];
    WHEN 'locations' THEN
      RETURN ARRAY['location-' || (r->>'id'), 'locations'];
    WHEN 'hours_items' THEN
      SELECT location_id::text INTO loc FROM hours_blocks WHERE id = (r->>'hours_block_id')::integer;
      RETURN ARRAY[COALESCE('location-' || loc, 'site')];
    WHEN 'addresses', 'amenities', 'hours_blocks', 'special_hours', 'location_images', 'insurance_plans', 'payment_types', 'sitelink_discount_plans' THEN
      RETURN ARRAY[COALESCE('location-' || loc, 'site')];
    WHEN 'content_items' THEN
      RETURN ARRAY[CASE r->>'tag' WHEN 'FAQ' THEN 'faqs' ELSE 'storage-tips' END];
    WHEN 'pages' THEN
      RETURN ARRAY['page-' || (r->>'slug')];
    ELSE
      RETURN ARRAY['site'];
  END CASE;
END;
$$ LANGUAGE plpgsql;
