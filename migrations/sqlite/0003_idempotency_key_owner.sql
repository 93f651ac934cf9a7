-- The request that holds a pending Idempotency-Key. A retry may take over the key of a request
-- that looks dead; if that request was only paused, its commit then finds the key no longer
-- its own and rolls back, so the two can never both apply.
ALTER TABLE cairn_idempotency_keys ADD COLUMN owner VARCHAR(64) NOT NULL DEFAULT '';
