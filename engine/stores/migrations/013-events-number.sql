-- A number per event, beside its UUID: CDF's clients (docs/cdf.md, "Events") name an event by
-- a JSON number in [1, 2^53-1] (CDF's id range), which a UUID cannot be. The number is
-- assigned by the store on insert (an identity, never reused) and never changes; SPEC's
-- surface does not show it. Byids and updates by number are index probes.
ALTER TABLE events ADD COLUMN number bigint GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX events_number ON events (tenant, number);
