-- Whether a time series is stepwise (its value holds until the next point) rather than
-- linear between points. CDF's time-weighted aggregates (average, interpolation, the
-- variances) depend on it, so it is stored per series, false unless set. SPEC's surface neither
-- shows nor accepts it; the CDF surface (api/cdf/) sets and returns it.
ALTER TABLE nodes ADD COLUMN is_step boolean NOT NULL DEFAULT false;

-- The series directory (engine/meta/series-directory.ts) now keeps is_step too: a change of it
-- notifies every process as a change of the other kept keys does (migration 004).
DROP TRIGGER nodes_series_updated ON nodes;
CREATE TRIGGER nodes_series_updated AFTER UPDATE ON nodes
  FOR EACH ROW WHEN (OLD.kind = 'timeseries' AND (
    OLD.external_id IS DISTINCT FROM NEW.external_id OR OLD.data_set_id IS DISTINCT FROM NEW.data_set_id
    OR OLD.value_type IS DISTINCT FROM NEW.value_type OR OLD.kind IS DISTINCT FROM NEW.kind
    OR OLD.is_step IS DISTINCT FROM NEW.is_step))
  EXECUTE FUNCTION notify_series_changed();
