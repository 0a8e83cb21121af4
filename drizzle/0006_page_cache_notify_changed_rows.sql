-- Page cache invalidation, issue 19 (docs/decisions/191-page-cache-dropped-by-real-writes.md): the
-- statement-level triggers of 0003 notified for every INSERT/UPDATE/DELETE statement, even one that
-- changed no row, so a conditional sweep ("release the reservations that have expired", sent on every
-- rental page view) dropped every process's caches. Now only a row that really changed notifies:
-- row-level triggers (an UPDATE only when the row differs), and the statement trigger for TRUNCATE.
-- pg_notify sends one notification per channel and payload per transaction, however many rows.
DROP TRIGGER IF EXISTS gatehouse_changed ON "accounts";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "accounts" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "accounts" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "accounts" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "addresses";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "addresses" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "addresses" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "addresses" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "amenities";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "amenities" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "amenities" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "amenities" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "content_items";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "content_items" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "content_items" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "content_items" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "hours_blocks";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "hours_blocks" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "hours_blocks" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "hours_blocks" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "hours_items";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "hours_items" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "hours_items" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "hours_items" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "insurance_plans";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "insurance_plans" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "insurance_plans" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "insurance_plans" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "location_images";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "location_images" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "location_images" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "location_images" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "locations";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "locations" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "locations" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "locations" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "menus";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "menus" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "menus" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "menus" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "nav_menu_items";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "nav_menu_items" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "nav_menu_items" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "nav_menu_items" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "old_domains";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "old_domains" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "old_domains" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "old_domains" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "pages";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "pages" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "pages" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "pages" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "payment_types";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "payment_types" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "payment_types" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "payment_types" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "redirects";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "redirects" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "redirects" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "redirects" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "reservations";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "reservations" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "reservations" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "reservations" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "unit_types";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "unit_types" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "unit_types" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "unit_types" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "units";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "units" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "units" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "units" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
DROP TRIGGER IF EXISTS gatehouse_changed ON "websites";
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_rows AFTER INSERT OR DELETE ON "websites" FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_update AFTER UPDATE ON "websites" FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed_truncate AFTER TRUNCATE ON "websites" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
