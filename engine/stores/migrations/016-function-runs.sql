-- What keeping a function's target up to date runs with. The grant entries (data set ids,
-- externalIds or "*") of the token that last set the function's expression or target, as
-- `{"read": [...], "write": [...]}`, or `{"all": true}` for a token without a `datasets`
-- claim. Tokens are not stored; these entries are expanded anew (descendants included) at
-- every recompute, so a series moved out of the granted data sets stops the recompute, which
-- `target_status` then explains. Rows written before this column read as no grant at all:
-- they stop until their expression or target is set again.
ALTER TABLE functions ADD COLUMN run_grants jsonb NOT NULL DEFAULT '{"read": [], "write": []}';
