-- SOL005 package notification subscriptions (their notifications share the outbox).
CREATE TABLE pkgm_subscriptions (
    id TEXT PRIMARY KEY,
    callback_uri TEXT NOT NULL,
    filter TEXT NOT NULL,
    authentication TEXT,
    created_at TIMESTAMP NOT NULL
);
