-- Series directory invalidation: every API process keeps the keys of the time
-- series it resolves in memory (engine/meta/series-directory.ts), so a data point request
-- makes no PostgreSQL round trip. A change of what it keeps (externalId, data set, value
-- type) or a delete notifies every process, whichever path made it. Payload: the tenant
-- (identical payloads of one transaction are delivered once).
CREATE FUNCTION notify_series_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('series_changed', OLD.tenant);
  RETURN NULL;
END $$;

CREATE TRIGGER nodes_series_deleted AFTER DELETE ON nodes
  FOR EACH ROW WHEN (OLD.kind = 'timeseries') EXECUTE FUNCTION notify_series_changed();

CREATE TRIGGER nodes_series_updated AFTER UPDATE ON nodes
  FOR EACH ROW WHEN (OLD.kind = 'timeseries' AND (
    OLD.external_id IS DISTINCT FROM NEW.external_id OR OLD.data_set_id IS DISTINCT FROM NEW.data_set_id
    OR OLD.value_type IS DISTINCT FROM NEW.value_type OR OLD.kind IS DISTINCT FROM NEW.kind))
  EXECUTE FUNCTION notify_series_changed();
