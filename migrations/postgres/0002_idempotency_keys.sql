-- Idempotency-Key records (REST spec 1.11): a key is claimed ('pending') when its request
-- starts and finished ('done', with the response) in the same transaction as the commit's
-- pointer swaps, so a replay on any replica returns what the first request did.
CREATE TABLE cairn_idempotency_keys (
  catalog_name VARCHAR(255) NOT NULL,
  idempotency_key VARCHAR(64) NOT NULL,
  request VARCHAR(2000) NOT NULL,
  state VARCHAR(8) NOT NULL,
  status INTEGER,
  response TEXT,
  created_at_ms BIGINT NOT NULL,
  expires_at_ms BIGINT NOT NULL,
  PRIMARY KEY (catalog_name, idempotency_key)
);

CREATE INDEX cairn_idempotency_keys_expiry ON cairn_idempotency_keys (expires_at_ms);
