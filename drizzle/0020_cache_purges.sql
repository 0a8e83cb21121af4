CREATE TABLE "cache_purges" (
	"id" serial PRIMARY KEY NOT NULL,
	"tag" text NOT NULL
);
--> statement-breakpoint
-- Shared-cache purges (issue 41, decision 570): the tags a changed row touches, queued in the writing
-- transaction by the same triggers that notify gatehouse_changed (0003, 0006, 0013). What each table's
-- row touches, by the pages that show it (app/domain/web/cache-tags.ts names the pages' tags):
--   units, reservations: its location and unit type; unit_types: its location and itself;
--   locations: the location, and `locations` (every page's layout lists the locations);
--   a location's details (addresses, hours, special hours, amenities, photos, insurance, payment
--   types): its location (`site` for a row of no location); FAQs and storage tips: `faqs` /
--   `storage-tips`; pages: `page-<slug>`; anything else (the website, the account, menus, redirects,
--   old domains) and every TRUNCATE: `site`, which every page carries.
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
    WHEN 'addresses', 'amenities', 'hours_blocks', 'special_hours', 'location_images', 'insurance_plans', 'payment_types' THEN
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
--> statement-breakpoint
CREATE OR REPLACE FUNCTION gatehouse_notify_change() RETURNS trigger AS $$
BEGIN
  IF TG_LEVEL = 'ROW' AND TG_OP = 'UPDATE'
     AND (to_jsonb(OLD) - ARRAY['updated_at', 'has_new_changes', 'has_redeploy_started']) = (to_jsonb(NEW) - ARRAY['updated_at', 'has_new_changes', 'has_redeploy_started']) THEN
    -- Bookkeeping no page shows (the draft's "new changes" flag, a row's updated_at): nothing to purge.
    NULL;
  ELSIF TG_LEVEL = 'ROW' THEN
    INSERT INTO cache_purges (tag)
    SELECT DISTINCT t FROM unnest(
      gatehouse_cache_tags(TG_TABLE_NAME, CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END)
      || gatehouse_cache_tags(TG_TABLE_NAME, CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) END)
    ) AS t
    WHERE t IS NOT NULL;
  ELSE
    INSERT INTO cache_purges (tag) VALUES ('site');
  END IF;
  PERFORM pg_notify('gatehouse_changed', TG_TABLE_NAME);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
