CREATE TABLE "page_changes" (
	"id" integer PRIMARY KEY NOT NULL,
	"count" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- The change counter (issue 41, decision 710): one row, bumped once by each committed transaction that
-- changed what a public page shows, and notified with its new value. The shared-cache guard
-- (server/shared-cache-guard.ts) reads it before answering a request a shared cache may store: a process
-- that has not yet heard of a change drops its caches first, and an answer during which it moved is not
-- stored. The app's role reads it, and its own changes bump it (the trigger runs as that role, which has
-- UPDATE on every table: app/db/roles.server.ts).
INSERT INTO "page_changes" ("id", "count") VALUES (1, 0);
--> statement-breakpoint
-- Bumped at commit, by a deferred constraint trigger on the purge queue (every change to what a page
-- shows queues its tags there, migration 0020): the row is locked only from the bump to the commit, the
-- last thing the transaction does, so writers queue on it only for their commits (never for their work,
-- and never in a deadlock: nothing else is locked after it), and the values follow the commit order
-- (a second committer waits for the first's commit and counts on from its value). Once per
-- transaction (a transaction-local setting marks it done). Its notification replaces the change
-- triggers' own for the same transaction: it comes after the commit like theirs, now with the value.
CREATE OR REPLACE FUNCTION gatehouse_count_change() RETURNS trigger AS $$
DECLARE
  counted bigint;
BEGIN
  IF current_setting('gatehouse.change_counted', true) IS DISTINCT FROM 'on' THEN
    PERFORM set_config('gatehouse.change_counted', 'on', true);
    UPDATE page_changes SET count = count + 1 WHERE id = 1 RETURNING count INTO counted;
    PERFORM pg_notify('gatehouse_changed', counted::text);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
-- Only rows a change trigger queued count (pg_trigger_depth() > 0: the WHEN of a constraint trigger is
-- evaluated when the row is inserted, inside that trigger): tags a process puts back after a failed
-- purge (app/db/cache-purges.server.ts) are no new change.
CREATE CONSTRAINT TRIGGER gatehouse_count_change AFTER INSERT ON "cache_purges" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (pg_trigger_depth() > 0) EXECUTE FUNCTION gatehouse_count_change();
--> statement-breakpoint
-- The change triggers (0020, unchanged otherwise): a change that queued tags is notified by the counter
-- above, with its value; one that queued none (bookkeeping no page shows) as before, by its table's name.
CREATE OR REPLACE FUNCTION gatehouse_notify_change() RETURNS trigger AS $$
DECLARE
  queued integer := 0;
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
    GET DIAGNOSTICS queued = ROW_COUNT;
  ELSE
    INSERT INTO cache_purges (tag) VALUES ('site');
    queued := 1;
  END IF;
  IF queued = 0 THEN
    PERFORM pg_notify('gatehouse_changed', TG_TABLE_NAME);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
