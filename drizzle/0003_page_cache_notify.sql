-- Page cache invalidation (issue 10, docs/decisions/081-page-cache.md): any change to a table a public
-- page reads notifies every server process on the channel gatehouse_changed, after commit, once per
-- statement. Writes by other processes, scripts and the seed count as much as the server's own.
CREATE OR REPLACE FUNCTION gatehouse_notify_change() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('gatehouse_changed', TG_TABLE_NAME);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "accounts" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "content_items" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "old_domains" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "redirects" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "websites" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "menus" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "nav_menu_items" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "addresses" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "amenities" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "hours_blocks" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "hours_items" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "insurance_plans" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "location_images" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "locations" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "payment_types" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "pages" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "unit_types" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "units" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
--> statement-breakpoint
CREATE TRIGGER gatehouse_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "reservations" FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_change();
